// market::IslandClearing: every branch of case5 out leaves five islands, cleared each on its own
// (hand-computed: a bus without load spills its units' PMIN, a bus whose unit cannot meet its load
// sheds the rest, a bus without a unit is de-energized); the intact status equals one Clearing.
#include <doctest/doctest.h>

#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/market/clearing.hpp"
#include "powerzoo/market/island_clearing.hpp"

using namespace pz;

namespace {

// case5's five gens as units (linear costs 14, 15, 30, 40, 10 $/MWh; PMIN 5, 10, 20, 10, 20).
std::vector<market::OfferUnit> units(const grid::Case& c) {
  const double pmin[5] = {5, 10, 20, 10, 20}, cost[5] = {14, 15, 30, 40, 10};
  std::vector<market::OfferUnit> u(5);
  for (int i = 0; i < 5; ++i) {
    u[i].gen_row = i;
    u[i].pmin_mw = pmin[i];
    u[i].pmax_mw = c.gen[i].pmax_mw;
    u[i].mc_c = cost[i];
  }
  return u;
}

}  // namespace

TEST_SUITE("market_island_clearing") {
  TEST_CASE("all branches of case5 out: five islands, each balanced on its own") {
    const grid::Case c = grid::energize(grid::load_case(grid::resolve_case_path("case5")));
    const auto us = units(c);
    const std::vector<uint8_t> br(6, 0), gen(5, 1);
    market::IslandClearing ic(c, us, 3, br, gen);
    CHECK(ic.n_islands() == 4);  // buses 1, 3, 4, 5; bus 2 has no unit
    CHECK(!ic.bus_live(1));
    const std::vector<double> pd = {0, 300, 300, 400, 0};
    const market::OfferMarket m(c, us, 3);
    market::ClearingResult r;
    market::IslandLosses loss;
    ic.clear(pd, m.base_prices(), {}, {}, r, loss);
    CHECK(loss.dead_load_mw == 300.0);                // bus 2
    CHECK(r.p_mw[0] == doctest::Approx(5.0));         // bus 1: no load, PMIN spilled
    CHECK(r.p_mw[1] == doctest::Approx(10.0));        //
    CHECK(r.p_mw[2] == doctest::Approx(300.0));       // bus 3 served by its unit
    CHECK(r.p_mw[3] == doctest::Approx(200.0));       // bus 4: PMAX 200 of 400
    CHECK(r.p_mw[4] == doctest::Approx(20.0));        // bus 5: no load, PMIN spilled
    CHECK(loss.shed_mw == doctest::Approx(200.0));    // bus 4
    CHECK(loss.spilled_mw == doctest::Approx(35.0));  // 5 + 10 + 20
    CHECK(r.unserved_mw == doctest::Approx(200.0 - 35.0));
    CHECK(!r.feasible);
    for (double f : r.flow_mw) CHECK(f == 0.0);
    CHECK(r.lmp[1] == 0.0);
    CHECK(r.lmp[3] == doctest::Approx(market::Clearing::kVoll));  // shed at bus 4: VOLL
  }

  TEST_CASE("the intact status clears as one Clearing of the market") {
    const grid::Case c = grid::energize(grid::load_case(grid::resolve_case_path("case5")));
    const auto us = units(c);
    const std::vector<uint8_t> br(6, 1), gen(5, 1);
    market::IslandClearing ic(c, us, 3, br, gen);
    CHECK(ic.n_islands() == 1);
    const market::OfferMarket m(c, us, 3);
    market::Clearing one(m);
    const std::vector<double> pd = {0, 450, 550, 380, 0};
    market::ClearingResult a, b;
    market::IslandLosses loss;
    ic.clear(pd, m.base_prices(), {}, {}, a, loss);
    one.clear(pd, m.base_prices(), {}, {}, b);
    for (int u = 0; u < 5; ++u) CHECK(a.p_mw[u] == doctest::Approx(b.p_mw[u]).epsilon(1e-12));
    for (int k = 0; k < 5; ++k) CHECK(a.lmp[k] == doctest::Approx(b.lmp[k]).epsilon(1e-12));
    for (int l = 0; l < 6; ++l) CHECK(a.flow_mw[l] == doctest::Approx(b.flow_mw[l]).epsilon(1e-12));
    CHECK(loss.dead_load_mw == 0.0);
  }

  // Guards the GenCos env's planner clearing, which shares the market's island markets (twin)
  // instead of building a second IslandClearing per outage set.
  TEST_CASE("twin: the same clearings as a second IslandClearing of the same status") {
    const grid::Case c = grid::energize(grid::load_case(grid::resolve_case_path("case5")));
    const auto us = units(c);
    const std::vector<uint8_t> br = {0, 1, 1, 0, 1, 1}, gen = {1, 1, 1, 0, 1};
    market::IslandClearing a(c, us, 3, br, gen), b(c, us, 3, br, gen);
    const auto t = a.twin();
    CHECK(t->n_islands() == a.n_islands());
    const market::OfferMarket m(c, us, 3);
    std::vector<double> prices(m.base_prices().begin(), m.base_prices().end());
    for (int step = 0; step < 3; ++step) {  // warm starts of their own: clear in turn
      const std::vector<double> pd = {0, 300, 280.0 + 20 * step, 390.0 - 30 * step, 0};
      for (size_t k = 0; k < prices.size(); ++k) prices[k] *= 1.0 + 0.01 * ((k + step) % 3);
      market::ClearingResult ra, rb, rt;
      market::IslandLosses la, lb, lt;
      a.clear(pd, prices, {}, {}, ra, la);
      t->clear(pd, prices, {}, {}, rt, lt);
      b.clear(pd, prices, {}, {}, rb, lb);
      CHECK(rt.p_mw == rb.p_mw);
      CHECK(rt.lmp == rb.lmp);
      CHECK(rt.flow_mw == rb.flow_mw);
      CHECK(rt.offer_cost == rb.offer_cost);
      CHECK(lt.dead_load_mw == lb.dead_load_mw);
      CHECK(lt.dead_load_mw == 300.0);  // bus 2, cut off by rows 1 and 4
      CHECK(ra.p_mw == rb.p_mw);
    }
  }
}
