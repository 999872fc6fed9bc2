// Tests of the offer-based clearing (pz::market::Clearing): PowerZooJax's two golden checks of
// its offer_sced (tests/market/test_sced_golden.py) on case5, a ramp window and an infeasible
// window.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "powerzoo/market/clearing.hpp"
#include "test_grid_util.hpp"
#include "test_market_util.hpp"

namespace {

using pz::market::Clearing;
using pz::market::ClearingResult;
using pz::market::OfferMarket;
using pz::market::OfferUnit;

using pz::test::gencos_units;

OfferMarket case5_market() { return OfferMarket(pz::test::bundled("case5"), gencos_units(), 3); }

}  // namespace

TEST_SUITE("market_clearing") {
  TEST_CASE("truthful prices: c, c + 0.01, c + 0.02 for flat marginal costs") {
    const OfferMarket m = case5_market();
    const std::vector<double>& p = m.base_prices();
    REQUIRE(p.size() == 15);
    CHECK(p[0] == doctest::Approx(14.0).epsilon(1e-12));
    CHECK(p[1] == doctest::Approx(14.01).epsilon(1e-12));
    CHECK(p[14] == doctest::Approx(10.02).epsilon(1e-12));
  }

  TEST_CASE("golden 1: uncongested, P = [40, 80, 20, 10, 600]") {
    const OfferMarket m = case5_market();
    Clearing cl(m);
    ClearingResult r;
    const std::vector<double> load = {0, 250, 300, 200, 0};
    cl.clear(load, m.base_prices(), {}, {}, r);
    REQUIRE(r.feasible);
    const double p_ref[] = {40, 80, 20, 10, 600};
    for (int u = 0; u < 5; ++u) CHECK(r.p_mw[u] == doctest::Approx(p_ref[u]).epsilon(1e-9));
    // G2's second segment (15.01) is marginal: the exact LMP. The reference states 15 (its
    // ridge-regressed LMP, 15.01·(1 − 1e-4)); ours is within its 0.01 $/MWh price step.
    for (double lmp : r.lmp) {
      CHECK(lmp == doctest::Approx(15.01).epsilon(1e-9));
      CHECK(std::abs(lmp - 15.0) <= 0.0101);
    }
    // Σ price·δ above pmin: 35·14 + 70·15 + 580·10 = 7340 (the reference's figure) plus the
    // 0.01 steps: G1 (35/3)·0.03, G2 (70 − 160/3)·0.01, G5 (580/3)·0.03 = 6.316̄7.
    CHECK(r.offer_cost == doctest::Approx(7340.0 + 0.35 + 0.5 / 3.0 + 5.8).epsilon(1e-12));
    CHECK(std::abs(r.offer_cost - 7340.0) / 7340.0 < 1e-3);
    const double f_ref[] = {335.684, 150.885, -366.568, 85.684, -194.316, -233.432};
    for (int l = 0; l < 6; ++l) CHECK(std::abs(r.flow_mw[l] - f_ref[l]) <= 5.01e-4);  // 3 decimals
    CHECK(r.true_cost == doctest::Approx(40 * 14 + 80 * 15 + 20 * 30 + 10 * 40 + 600 * 10));
  }

  TEST_CASE("golden 2: line 4-5 at its floor -240, LMPs by congestion") {
    const OfferMarket m = case5_market();
    Clearing cl(m);
    ClearingResult r;
    const std::vector<double> load = {0, 400, 450, 400, 0};
    cl.clear(load, m.base_prices(), {}, {}, r);
    REQUIRE(r.feasible);
    CHECK(r.flow_mw[5] == doctest::Approx(-240.0).epsilon(1e-9));
    // The reference's LMPs are those of G4 (40, segment 0) and G5 (10, segment 2) marginal at
    // unrepaired prices: LMP_b = α_b·40 + (1 − α_b)·10. G5's segment 2 is offered at 10.02, so
    // the exact LMP is α_b·40 + (1 − α_b)·10.02, within 0.02 of the stated value; 1e-3 covers
    // the stated values' 3-decimal rounding.
    const double lmp_ref[] = {16.991, 26.416, 30.038, 40.0, 10.0};
    for (int b = 0; b < 5; ++b) {
      const double alpha = (lmp_ref[b] - 10.0) / 30.0;
      CHECK(r.lmp[b] == doctest::Approx(alpha * 40.0 + (1 - alpha) * 10.02).epsilon(1e-3 / 40));
      CHECK(std::abs(r.lmp[b] - lmp_ref[b]) <= 0.0201);
    }
    CHECK(r.lmp[3] == doctest::Approx(40.0).epsilon(1e-12));
    CHECK(r.lmp[4] == doctest::Approx(10.02).epsilon(1e-12));
    // The optimum's offer cost is unique (the P may be degenerate): at the reference's P,
    // G1 35 MW, G2 160, G3 500 (full curves), G4 13.657 at 40, G5 476.343 over its 3 segments.
    const double w5 = 580.0 / 3.0;
    const double hand = 35.0 / 3 * (14 + 14.01 + 14.02) + 160.0 / 3 * (15 + 15.01 + 15.02) +
                        500.0 / 3 * (30 + 30.01 + 30.02) + 13.657 * 40 + w5 * (10 + 10.01) +
                        (476.343 - 2 * w5) * 10.02;
    CHECK(std::abs(r.offer_cost - hand) < 0.05);  // the reference P's 3-decimal rounding
    double sum_p = 0;
    for (double p : r.p_mw) sum_p += p;
    CHECK(sum_p == doctest::Approx(1250.0).epsilon(1e-12));
  }

  TEST_CASE("ramp window: hand-computed bounds truncate the curve") {
    const OfferMarket m = case5_market();
    const std::vector<double> prev = {30, 100, 200, 50, 100};
    const std::vector<double> ramp = {20, 85, 260, 100, 300};
    std::vector<double> lo(5), hi(5);
    pz::market::ramp_window(m.units(), prev, ramp, ramp, lo, hi);
    // lo = max(pmin, prev − ramp), hi = min(pmax, prev + ramp).
    const double lo_ref[] = {10, 15, 20, 10, 20}, hi_ref[] = {40, 170, 460, 150, 400};
    for (int u = 0; u < 5; ++u) {
      CHECK(lo[u] == lo_ref[u]);
      CHECK(hi[u] == hi_ref[u]);
    }
    Clearing cl(m);
    ClearingResult r;
    const std::vector<double> load = {0, 250, 300, 200, 0};  // 750 MW
    cl.clear(load, m.base_prices(), lo, hi, r);
    REQUIRE(r.feasible);
    // Merit order within the windows: G5 to its cap 400, G1 40, G2 170, G4 at 10, G3 takes the
    // remaining 130 MW on its first segment (30 $/MWh), far from every rating.
    const double p_ref[] = {40, 170, 130, 10, 400};
    for (int u = 0; u < 5; ++u) CHECK(r.p_mw[u] == doctest::Approx(p_ref[u]).epsilon(1e-9));
    for (double lmp : r.lmp) CHECK(lmp == doctest::Approx(30.0).epsilon(1e-9));
    // Offered cost above each window's lower bound (truncated curves).
    const double w5 = 580.0 / 3.0;
    const double g1 = (5 + 35.0 / 3 - 10) * 14 + 35.0 / 3 * 14.01 + 35.0 / 3 * 14.02;
    const double g2 = (10 + 160.0 / 3 - 15) * 15 + 160.0 / 3 * 15.01 + 160.0 / 3 * 15.02;
    const double g3 = 110 * 30.0;
    const double g5 = (w5 + 20 - 20) * 10 + (400 - 20 - w5) * 10.01;
    CHECK(r.offer_cost == doctest::Approx(g1 + g2 + g3 + g5).epsilon(1e-12));
  }

  TEST_CASE("infeasible window: load shed at the value of lost load, flagged") {
    const OfferMarket m = case5_market();
    const std::vector<double> hi = {25, 95, 280, 110, 320};  // Σ 830 MW
    const std::vector<double> lo = {5, 10, 20, 10, 20};
    Clearing cl(m);
    ClearingResult r;
    const std::vector<double> load = {0, 400, 450, 400, 0};  // 1250 MW
    cl.clear(load, m.base_prices(), lo, hi, r);
    CHECK_FALSE(r.feasible);
    CHECK(r.status == pz::grid::DcOpfStatus::kOptimal);
    CHECK(r.unserved_mw == doctest::Approx(420.0).epsilon(1e-9));
    for (int u = 0; u < 5; ++u) CHECK(r.p_mw[u] == doctest::Approx(hi[u]).epsilon(1e-9));
    CHECK(r.lmp[3] == doctest::Approx(Clearing::kVoll).epsilon(1e-9));  // the slack bus
    // Spilling: every unit at a floor summing above the load.
    const std::vector<double> lo2 = {40, 170, 500, 150, 500}, hi2 = {40, 170, 520, 200, 600};
    cl.clear(load, m.base_prices(), lo2, hi2, r);  // Σ lo = 1360 MW > 1250
    CHECK_FALSE(r.feasible);
    CHECK(r.unserved_mw == doctest::Approx(-110.0).epsilon(1e-9));
    for (int u = 0; u < 5; ++u) CHECK(r.p_mw[u] == doctest::Approx(lo2[u]).epsilon(1e-9));
    CHECK(r.lmp[3] == doctest::Approx(-Clearing::kVoll).epsilon(1e-9));
    // Back to a feasible load: the same engine clears it exactly again (warm start kept).
    cl.clear(std::vector<double>{0, 250, 300, 200, 0}, m.base_prices(), {}, {}, r);
    CHECK(r.feasible);
    CHECK(r.lmp[0] == doctest::Approx(15.01).epsilon(1e-9));
  }
}
