// Tests of the clearing's fast path (pz::market::OfferLp) against CLP (Clearing with the fast path
// off): the same dispatch, LMPs, flows, shedding and profits on random markets, with the line
// limits relaxed where the ratings cannot be met, and every branch outage of case5.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
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

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

TEST_SUITE("market_offer_lp") {
  TEST_CASE("offer_lp_equals_clp: 3000 random clearings, dispatch, LMPs, flows, profits to 1e-9") {
    const OfferMarket m(pz::test::bundled("case5"), gencos_units(), 3);
    const int nu = 5, k = 3;
    Clearing fast(m), slow(m);
    slow.set_fast_path(false);
    std::mt19937_64 gen(35);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double dmax[] = {500, 600, 400};  // the task's load ranges at buses 2, 3, 4
    std::vector<double> pd(5), prices(nu * k), lo(nu), hi(nu), p_prev(nu), ramp(nu);
    std::vector<float> act(nu * k);
    for (int u = 0; u < nu; ++u) {
      ramp[u] = 0.5 * m.units()[u].pmax_mw;
      p_prev[u] = m.units()[u].pmin_mw;
    }
    ClearingResult a, b;
    int congested = 0, shed = 0, spill = 0, relaxed = 0;
    for (int it = 0; it < 3000; ++it) {
      // Loads up to 1.3× the task's ranges (shedding within ramp windows, congestion).
      const double scale = 1.3 * unit(gen);
      for (int d = 0; d < 3; ++d) pd[1 + d] = scale * dmax[d] * unit(gen);
      for (float& x : act) x = static_cast<float>(2 * unit(gen) - 1);
      pz::market::offer_prices(m.base_prices(), act, k, 2.0, prices);
      const bool windows = it % 4 != 0;  // every fourth: the static market
      if (windows) pz::market::ramp_window(m.units(), p_prev, ramp, ramp, lo, hi);
      const std::span<const double> wl = windows ? lo : std::span<const double>{};
      const std::span<const double> wh = windows ? hi : std::span<const double>{};
      fast.clear(pd, prices, wl, wh, a);
      slow.clear(pd, prices, wl, wh, b);
      CAPTURE(it);
      REQUIRE(a.status == b.status);
      CHECK(a.feasible == b.feasible);
      CHECK(a.lines_relaxed == b.lines_relaxed);
      CHECK(std::abs(a.unserved_mw - b.unserved_mw) <= 1e-9);
      for (int u = 0; u < nu; ++u) CHECK(close(a.p_mw[u], b.p_mw[u]));
      for (int bus = 0; bus < 5; ++bus) CHECK(close(a.lmp[bus], b.lmp[bus]));
      for (int l = 0; l < 6; ++l) CHECK(close(a.flow_mw[l], b.flow_mw[l]));
      CHECK(close(a.offer_cost, b.offer_cost));
      CHECK(close(a.true_cost, b.true_cost));
      for (int u = 0; u < nu; ++u) {  // the env's reward: LMP at the unit's bus · P − TC(P)
        const int bus = m.offer_case().gen_bus_idx[m.units()[u].gen_row];
        const double pa = a.lmp[bus] * a.p_mw[u] - m.units()[u].total_cost(a.p_mw[u]);
        const double pb = b.lmp[bus] * b.p_mw[u] - m.units()[u].total_cost(b.p_mw[u]);
        CHECK(close(pa, pb));
      }
      congested += std::abs(std::abs(b.flow_mw[0]) - 400) < 1e-6 ||
                   std::abs(std::abs(b.flow_mw[5]) - 240) < 1e-6;
      shed += b.unserved_mw > 1e-6;
      spill += b.unserved_mw < -1e-6;
      relaxed += b.lines_relaxed;
      if (windows) p_prev = b.p_mw;  // the env's dynamics: the next window around this dispatch
    }
    // The comparison covers the cases that matter: congestion, shedding and spilling.
    CHECK(congested > 300);
    CHECK(shed > 30);
    CHECK(spill > 10);
    // OfferLp cleared all of them, those whose ratings could not be met too (its second solve
    // without line limits, as CLP's path relaxes them).
    CHECK(relaxed > 0);
    CHECK(fast.clp_clearings() == 0);
    CHECK(fast.fast_clearings() == 3000);
    CHECK(slow.fast_clearings() == 0);
  }

  TEST_CASE("offer_lp_takes_pmax_off_the_curve_by_rounding: x0 + K·w ≠ pmax in the last bit") {
    // pmin 21.9, pmax 270.3, K = 3: the curve's last breakpoint is 270.29999999999995 (and
    // 32.6 + 3·(394.6/3) = 427.20000000000005 above pmax); the static window [pmin, pmax] still
    // clears on the fast path, as CLP clears it.
    std::vector<OfferUnit> units = gencos_units();
    units[2].pmin_mw = 21.9;
    units[2].pmax_mw = 270.3;
    units[4].pmin_mw = 32.6;
    units[4].pmax_mw = 427.2;
    const OfferMarket m(pz::test::bundled("case5"), units, 3);
    REQUIRE(m.offer_case().gencost[2].coeffs[6] != 270.3);
    Clearing fast(m), slow(m);
    slow.set_fast_path(false);
    ClearingResult a, b;
    for (double total : {300.0, 600.0, 900.0, 1100.0}) {  // the last at G3's cap
      const std::vector<double> pd = {0, total / 3, total / 3, total / 3, 0};
      fast.clear(pd, m.base_prices(), {}, {}, a);
      slow.clear(pd, m.base_prices(), {}, {}, b);
      CAPTURE(total);
      for (int u = 0; u < 5; ++u) CHECK(close(a.p_mw[u], b.p_mw[u]));
      for (int bus = 0; bus < 5; ++bus) CHECK(close(a.lmp[bus], b.lmp[bus]));
    }
    CHECK(fast.fast_clearings() == 4);
  }

  TEST_CASE("offer_lp_leaves_a_degenerate_relaxed_price_to_clp: pinned units over a line") {
    const OfferMarket m(pz::test::bundled("case5"), gencos_units(), 3);
    // Every unit pinned (lo = hi): G5 at 600 MW at bus 5 with the load at bus 4 pushes line 4-5
    // far past its 240 MW rating whatever is shed at the slack bus (bus 4); the pins meet the
    // load exactly, so the price is any within ±VOLL and CLP's is the one of record.
    const std::vector<double> lo = {5, 10, 20, 10, 600}, hi = lo;
    const std::vector<double> pd = {0, 0, 0, 645, 0};
    Clearing fast(m), slow(m);
    slow.set_fast_path(false);
    ClearingResult a, b;
    fast.clear(pd, m.base_prices(), lo, hi, a);
    slow.clear(pd, m.base_prices(), lo, hi, b);
    CHECK(fast.clp_clearings() == 1);
    CHECK(fast.fast_clearings() == 0);
    CHECK(a.lines_relaxed);
    CHECK_FALSE(a.feasible);
    for (int u = 0; u < 5; ++u) CHECK(a.p_mw[u] == b.p_mw[u]);
    for (int bus = 0; bus < 5; ++bus) CHECK(a.lmp[bus] == b.lmp[bus]);
  }

  TEST_CASE("offer_lp_relaxes_lines_as_clp: every branch of case5 out, loads past the ratings") {
    int relaxed = 0, total = 0;
    for (int out = 0; out < 6; ++out) {
      CAPTURE(out);
      pz::grid::Case c = pz::test::bundled("case5");
      c.branch[out].status = 0;  // case5 has no bridge: one island
      const OfferMarket m(c, gencos_units(), 3);
      Clearing fast(m), slow(m);
      slow.set_fast_path(false);
      ClearingResult a, b;
      for (double total_mw : {300.0, 700.0, 1000.0, 1300.0}) {
        for (int shape = 0; shape < 3; ++shape) {
          std::vector<double> pd(5, 0.0);
          pd[1 + shape] = 0.6 * total_mw;  // most of the load at one bus: lines past ratings
          pd[1 + (shape + 1) % 3] = 0.4 * total_mw;
          fast.clear(pd, m.base_prices(), {}, {}, a);
          slow.clear(pd, m.base_prices(), {}, {}, b);
          CAPTURE(total_mw);
          CAPTURE(shape);
          ++total;
          REQUIRE(a.status == b.status);
          CHECK(a.lines_relaxed == b.lines_relaxed);
          relaxed += b.lines_relaxed;
          CHECK(std::abs(a.unserved_mw - b.unserved_mw) <= 1e-9);
          for (int u = 0; u < 5; ++u) CHECK(close(a.p_mw[u], b.p_mw[u]));
          for (int bus = 0; bus < 5; ++bus) CHECK(close(a.lmp[bus], b.lmp[bus]));
          for (int l = 0; l < 6; ++l) CHECK(close(a.flow_mw[l], b.flow_mw[l]));
        }
      }
      CHECK(fast.clp_clearings() == 0);
    }
    CHECK(total == 72);
    CHECK(relaxed > 5);  // the comparison covers relaxed clearings
  }
}
