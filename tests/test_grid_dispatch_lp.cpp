// Tests of pz::grid::DispatchLp: hand-computed 3-bus dispatches (a binding rating, spill that
// relieves a line, an unavoidable overload beside unserved load) and agreement with the lazy
// soft-limit DC-OPF (CLP) on thousands of random case118 dispatches.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"
#include "powerzoo/grid/uc/dispatch_lp.hpp"
#include "powerzoo/grid/uc/merit_order.hpp"
#include "test_dispatch_util.hpp"
#include "test_grid_util.hpp"

namespace {

using pz::grid::Case;
using pz::grid::DispatchLp;
using pz::grid::MeritOrderResult;
using pz::grid::PtdfFlow;

constexpr double kVoll = 1000.0, kPrice = 1e5;

using pz::test::bus_pd;
using pz::test::ratings;

/// The dispatch triangle (test_dispatch_util.hpp) with 1-2 and 2-3 rated 1000 MW.
Case triangle(double rate13) { return pz::test::dispatch_triangle(rate13, 1000); }

DispatchLp make(const Case& c) {
  return DispatchLp(PtdfFlow(c, c.ref_bus_idx), c.gen_bus_idx, bus_pd(c), ratings(c), kVoll,
                    kPrice);
}

const std::vector<double> kLo = {0, 10, 0}, kHi = {100, 50, 100}, kCost = {20, 10, 30};

}  // namespace

TEST_SUITE("grid_dispatch_lp") {
  TEST_CASE("3-bus triangle by hand: 1-3 rated 60 MW binds at (65, 50, 5), 1950 $/h") {
    DispatchLp lp = make(triangle(60));
    MeritOrderResult r;
    // Merit order (70, 50, 0) puts 190/3 MW on 1-3; 80 − 50/3 − 2·p3/3 = 60 gives p3 = 5.
    REQUIRE(lp.solve(1.2, kLo, kHi, kCost, r));
    CHECK(r.p_mw[0] == doctest::Approx(65).epsilon(1e-12));
    CHECK(r.p_mw[1] == doctest::Approx(50).epsilon(1e-12));
    CHECK(r.p_mw[2] == doctest::Approx(5).epsilon(1e-12));
    CHECK(r.flow_mw[2] == doctest::Approx(60).epsilon(1e-12));
    CHECK(r.slack_mw == doctest::Approx(0).scale(1));
    CHECK(r.cost_usd_per_h == doctest::Approx(1950).epsilon(1e-12));
    CHECK(lp.rows() == 2);  // the balance row and 1-3's row only
    CHECK(lp.iterations() == 1);
    // Within every rating the merit order is the answer and no row is added.
    REQUIRE(lp.solve(1.0, kLo, kHi, kCost, r));
    CHECK(r.p_mw == std::vector<double>{50, 50, 0});
    CHECK(lp.rows() == 1);
    CHECK(lp.iterations() == 0);
  }

  TEST_CASE("3-bus triangle by hand: spilling 5 MW at VOLL is cheaper than overloading 1-3") {
    // 1-3 rated 5 MW at 120 MW of load: p2/3 + 2·p3/3 ≥ 75 needs p3 = 100 and p2 = 25, 5 MW above
    // the load, spilled (5000 $/h) instead of 1.67 MW of overload (1.67e5 $/h); bus 1 stays at 0.
    DispatchLp lp = make(triangle(5));
    MeritOrderResult r;
    REQUIRE(lp.solve(1.2, kLo, kHi, kCost, r));
    CHECK(r.p_mw[0] == doctest::Approx(0).scale(1));
    CHECK(r.p_mw[1] == doctest::Approx(25).epsilon(1e-12));
    CHECK(r.p_mw[2] == doctest::Approx(100).epsilon(1e-12));
    CHECK(r.slack_mw == doctest::Approx(-5).epsilon(1e-12));
    CHECK(r.flow_mw[2] == doctest::Approx(5).epsilon(1e-12));
    CHECK(r.cost_usd_per_h == doctest::Approx(250 + 3000 + 5 * kVoll).epsilon(1e-12));
  }

  TEST_CASE("3-bus triangle by hand: 300 MW leaves 50 MW unserved and 1-3 overloaded") {
    // The flow 1→3 is at least 200 − 50/3 − 200/3 = 350/3 MW (p2, p3 at their ceilings) against
    // 100 MW: 50/3 MW of overload; bus 1 serves 100 MW, 50 MW are unserved.
    DispatchLp lp = make(triangle(100));
    MeritOrderResult r;
    REQUIRE(lp.solve(3.0, kLo, kHi, kCost, r));
    CHECK(r.p_mw == std::vector<double>{100, 50, 100});
    CHECK(r.slack_mw == doctest::Approx(50).epsilon(1e-12));
    CHECK(r.flow_mw[2] == doctest::Approx(350.0 / 3).epsilon(1e-12));
    CHECK(r.cost_usd_per_h ==
          doctest::Approx(2000 + 500 + 3000 + 50 * kVoll + 50.0 / 3 * kPrice).epsilon(1e-12));
    // An inverted window (lo 45 > hi 40 at bus 2) is pinned to 40, as in MeritOrder.
    const std::vector<double> lo = {0, 45, 0}, hi = {100, 40, 100};
    REQUIRE(lp.solve(1.0, lo, hi, kCost, r));
    CHECK(r.p_mw == std::vector<double>{60, 40, 0});
    // A cost at or beyond ±VOLL is not this LP (the balance slack would be a cheaper unit).
    const std::vector<double> bad = {20, kVoll, 30};
    CHECK_FALSE(lp.solve(1.2, kLo, kHi, bad, r));
  }

  TEST_CASE("wrong sizes are rejected at construction") {
    const Case c = triangle(100);
    const PtdfFlow pf(c, 0);
    CHECK_THROWS_AS(DispatchLp(pf, {0, 1, 2}, {0, 0}, ratings(c), kVoll, kPrice),
                    pz::core::ConfigError);
    CHECK_THROWS_AS(DispatchLp(pf, {0, 1, 2}, bus_pd(c), {100}, kVoll, kPrice),
                    pz::core::ConfigError);
    CHECK_THROWS_AS(DispatchLp(pf, {0, 3}, bus_pd(c), ratings(c), kVoll, kPrice),
                    pz::core::ConfigError);
  }

  // The path of record is the lazy soft-limit DC-OPF on CLP (what unit commitment called for
  // every congested step): the same optimum to 1e-9 MW on random windows, commitments, costs
  // and loads of case118 with tight ratings (most draws congest several lines; some cannot
  // meet them and overload, spill or shed).
  TEST_CASE("equals the lazy soft-limit DC-OPF (CLP) on 3000 random case118 dispatches") {
    Case c = pz::test::bundled("case118");
    for (auto& b : c.bus) b.gs_mw = 0;
    const int ng = c.n_gen();
    for (int g = 0; g < ng; ++g) {
      c.gencost[g].model = 2;
      c.gencost[g].coeffs = {20.0 + 0.5 * (g % 40), 0.0};
      c.gen[g].status = 1;
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(0, 1);
    for (auto& br : c.branch) br.rate_a_mva = 40 + 160 * U(rng);
    c.finalize();
    const std::vector<double> pd = bus_pd(c);
    DispatchLp lp = make(c);
    pz::grid::DcOpf opf(c);
    opf.set_lazy_line_limits(true);
    opf.set_dispatch_only(true);
    opf.set_reference_loads(pd);
    pz::grid::DcOpfOverrides o;
    o.balance_slack_cost = kVoll;
    o.line_overload_cost = kPrice;
    o.pmin_mw.resize(ng);
    o.pmax_mw.resize(ng);
    o.linear_cost_delta.resize(ng);
    std::vector<double> cost(ng);
    MeritOrderResult r;
    pz::grid::DcOpfResult ref;
    double worst_p = 0, worst_flow = 0;
    int solved = 0, congested = 0, max_rows = 0;
    for (int k = 0; k < 3000; ++k) {
      CAPTURE(k);
      for (int g = 0; g < ng; ++g) {
        const bool on = U(rng) < 0.8;
        const double pmax = c.gen[g].pmax_mw, a = U(rng) * pmax, b = U(rng) * pmax;
        o.pmin_mw[g] = on ? std::min(a, b) * (U(rng) < 0.3 ? 0.0 : 1.0) : 0.0;
        o.pmax_mw[g] = on ? std::max(a, b) : 0.0;
        if (on && U(rng) < 0.03) std::swap(o.pmin_mw[g], o.pmax_mw[g]);  // inverted window
        o.linear_cost_delta[g] = 5 * U(rng) + 1e-4 * g;
        cost[g] = c.gencost[g].coeffs[0] + o.linear_cost_delta[g];
      }
      const double f = 0.4 + 1.2 * U(rng);
      opf.solve_scaled_into(f, o, ref);
      REQUIRE(ref.ok());
      if (!lp.solve(f, o.pmin_mw, o.pmax_mw, cost, r)) continue;
      ++solved;
      congested += lp.rows() > 1;
      max_rows = std::max(max_rows, lp.rows());
      for (int g = 0; g < ng; ++g)
        worst_p = std::max(worst_p, std::abs(r.p_mw[g] - ref.gen_pg_mw[g]));
      for (size_t l = 0; l < r.flow_mw.size(); ++l)
        worst_flow = std::max(worst_flow, std::abs(r.flow_mw[l] - ref.branch_pf_mw[l]));
      CHECK(r.slack_mw == doctest::Approx(ref.balance_slack_mw).epsilon(1e-9).scale(1));
    }
    MESSAGE("solved " << solved << " of 3000, " << congested << " with flow rows (at most "
                      << max_rows - 1 << "), max |Δp| " << worst_p << " MW, max |Δflow| "
                      << worst_flow << " MW");
    // Ratings of 40-200 MW on every case118 branch congest far more than the TSO task: about 5 %
    // of the draws need more than kMaxRows − 1 flow rows, which DispatchLp leaves to CLP.
    CHECK(solved > 2700);
    CHECK(congested > 2000);
    CHECK(worst_p < 1e-9);
    CHECK(worst_flow < 1e-9);
  }
}
