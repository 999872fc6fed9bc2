// Tests of pz::grid::MeritOrder: a hand-computed 3-bus dispatch (optimal, congested, spill,
// unserved, inverted window, unusable costs) and agreement with the DC-OPF on case14/case118.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"
#include "powerzoo/grid/uc/merit_order.hpp"
#include "test_dispatch_util.hpp"
#include "test_grid_util.hpp"

namespace {

using pz::grid::Case;
using pz::grid::DcOpf;
using pz::grid::DcOpfResult;
using pz::grid::MeritOrder;
using pz::grid::MeritOrderResult;
using pz::grid::MeritOrderStatus;
using pz::grid::PtdfFlow;

constexpr double kVoll = 1000.0;

using pz::test::bus_pd;
using pz::test::ratings;

/// The dispatch triangle (test_dispatch_util.hpp) with 1-2 and 2-3 rated 100 MW.
Case triangle(double rate13) { return pz::test::dispatch_triangle(rate13, 100); }

MeritOrder make(const Case& c) {
  return MeritOrder(PtdfFlow(c, c.ref_bus_idx), c.gen_bus_idx, bus_pd(c), ratings(c), kVoll);
}

/// A bundled case with linear costs (the case's linear term + 0.013·(g+1) $/MWh, so no two
/// units tie), no shunts and no flow limits.
Case linear_case(const std::string& name) {
  Case c = pz::test::bundled(name);
  for (int g = 0; g < c.n_gen(); ++g) {
    auto& k = c.gencost[g].coeffs;
    const double b = k.size() >= 2 ? k[k.size() - 2] : 0.0;
    c.gencost[g].model = 2;
    c.gencost[g].coeffs = {b + 0.013 * (g + 1), 0.0};
  }
  for (auto& b : c.bus) b.gs_mw = 0;
  for (auto& br : c.branch) {
    REQUIRE(br.shift_deg == 0.0);
    br.rate_a_mva = br.rate_b_mva = br.rate_c_mva = 0;
  }
  return c;
}

struct Units {
  std::vector<double> lo, hi, cost;
};

Units units_of(const Case& c) {
  Units u;
  for (int g = 0; g < c.n_gen(); ++g) {
    const bool on = c.gen[g].status > 0;
    u.lo.push_back(on ? c.gen[g].pmin_mw : 0.0);
    u.hi.push_back(on ? c.gen[g].pmax_mw : 0.0);
    u.cost.push_back(c.gencost[g].coeffs[0]);
  }
  return u;
}

std::vector<double> scaled(std::vector<double> v, double f) {
  for (double& x : v) x *= f;
  return v;
}

/// Merit order and DC-OPF give the same dispatch, flows and cost.
void check_agree(const MeritOrderResult& m, const DcOpfResult& r) {
  REQUIRE(r.ok());
  REQUIRE(m.p_mw.size() == r.gen_pg_mw.size());
  REQUIRE(m.flow_mw.size() == r.branch_pf_mw.size());
  for (size_t u = 0; u < m.p_mw.size(); ++u)
    CHECK(m.p_mw[u] == doctest::Approx(r.gen_pg_mw[u]).epsilon(1e-9).scale(1e-6));
  for (size_t l = 0; l < m.flow_mw.size(); ++l)
    CHECK(m.flow_mw[l] == doctest::Approx(r.branch_pf_mw[l]).epsilon(1e-9).scale(1e-6));
  CHECK(m.cost_usd_per_h == doctest::Approx(r.objective).epsilon(1e-9));
}

}  // namespace

TEST_SUITE("grid_merit_order") {
  TEST_CASE("3-bus triangle by hand: within ratings, the DC-OPF optimum") {
    const Case c = triangle(100);
    const MeritOrder mo = make(c);
    REQUIRE(mo.n_units() == 3);
    REQUIRE(mo.n_branch() == 3);
    const Units u = units_of(c);
    MeritOrderResult r;
    // 120 MW: floors (0, 10, 0), then bus 2 up to 50 (10 $/MWh), bus 1 takes the other 70.
    REQUIRE(mo.solve(1.2, u.lo, u.hi, u.cost, r) == MeritOrderStatus::kOptimal);
    CHECK(r.status == MeritOrderStatus::kOptimal);
    CHECK(r.p_mw == std::vector<double>{70, 50, 0});
    CHECK(r.slack_mw == 0.0);
    CHECK(r.cost_usd_per_h == doctest::Approx(1900));
    // Injections (70, 50, −120): 1→2 = −100/3 + 40, 2→3 = 50/3 + 40, 1→3 = −50/3 + 80.
    CHECK(r.flow_mw[0] == doctest::Approx(20.0 / 3));
    CHECK(r.flow_mw[1] == doctest::Approx(170.0 / 3));
    CHECK(r.flow_mw[2] == doctest::Approx(190.0 / 3));
    DcOpf opf(c);
    check_agree(r, opf.solve(scaled(bus_pd(c), 1.2)));
  }

  TEST_CASE("3-bus triangle by hand: 1-3 rated 60 MW needs the OPF (65, 50, 5) at 1950 $/h") {
    const Case c = triangle(60);
    const MeritOrder mo = make(c);
    const Units u = units_of(c);
    MeritOrderResult r;
    REQUIRE(mo.solve(1.2, u.lo, u.hi, u.cost, r) == MeritOrderStatus::kNeedsOpf);
    CHECK(r.p_mw == std::vector<double>{70, 50, 0});  // still the optimum without limits
    CHECK(r.flow_mw[2] == doctest::Approx(190.0 / 3));
    // With the limit, 1→3 = 80 − p_bus2/3 − 2·p_bus3/3 binds at 60 MW: p_bus3 = 5, bus 2 stays
    // at 50 MW (cheapest), bus 1 takes 65 MW: 1300 + 500 + 150 $/h.
    DcOpf opf(c);
    const DcOpfResult lim = opf.solve(scaled(bus_pd(c), 1.2));
    REQUIRE(lim.ok());
    CHECK(lim.gen_pg_mw[0] == doctest::Approx(65));
    CHECK(lim.gen_pg_mw[1] == doctest::Approx(50));
    CHECK(lim.gen_pg_mw[2] == doctest::Approx(5));
    CHECK(lim.objective == doctest::Approx(1950));
    CHECK(lim.branch_pf_mw[2] == doctest::Approx(60));
    CHECK(lim.binding_branches == std::vector<int>{2});
    pz::grid::DcOpfOverrides o;
    o.line_limits = false;
    check_agree(r, opf.solve(scaled(bus_pd(c), 1.2), o));
  }

  TEST_CASE("spill, unserved load, an inverted window and unusable costs") {
    const Case c = triangle(100);
    const MeritOrder mo = make(c);
    const Units u = units_of(c);
    MeritOrderResult r;
    // 5 MW below the 10 MW floor of bus 2: 5 MW spilled at VOLL.
    REQUIRE(mo.solve(0.05, u.lo, u.hi, u.cost, r) == MeritOrderStatus::kOptimal);
    CHECK(r.p_mw == std::vector<double>{0, 10, 0});
    CHECK(r.slack_mw == doctest::Approx(-5));
    CHECK(r.cost_usd_per_h == doctest::Approx(100 + 5 * kVoll));
    // 300 MW against 250 MW of capacity: 50 MW unserved.
    mo.solve(3.0, u.lo, u.hi, u.cost, r);
    CHECK(r.p_mw == std::vector<double>{100, 50, 100});
    CHECK(r.slack_mw == doctest::Approx(50));
    CHECK(r.cost_usd_per_h == doctest::Approx(2000 + 500 + 3000 + 50 * kVoll));
    // Inverted window on bus 2 (lo 45 > hi 40): pinned to 40.
    const std::vector<double> lo = {0, 45, 0}, hi = {100, 40, 100};
    mo.solve(1.2, lo, hi, u.cost, r);
    CHECK(r.p_mw == std::vector<double>{80, 40, 0});
    // A cost at or beyond ±VOLL (or NaN) makes the balance slack a cheaper "unit".
    for (double bad : {kVoll, -kVoll, 5e3, std::nan("")}) {
      CAPTURE(bad);
      const std::vector<double> cost = {20, bad, 30};
      CHECK(mo.solve(1.2, u.lo, u.hi, cost, r) == MeritOrderStatus::kUnusable);
      CHECK(r.status == MeritOrderStatus::kUnusable);
    }
    CHECK(std::string(pz::grid::to_string(MeritOrderStatus::kNeedsOpf)) == "needs_opf");
  }

  TEST_CASE("wrong sizes are rejected at construction") {
    const Case c = triangle(100);
    const PtdfFlow pf(c, 0);
    CHECK_THROWS_AS(MeritOrder(pf, {0, 1, 2}, {0, 0}, ratings(c), kVoll), pz::core::ConfigError);
    CHECK_THROWS_AS(MeritOrder(pf, {0, 1, 2}, bus_pd(c), {100}, kVoll), pz::core::ConfigError);
    CHECK_THROWS_AS(MeritOrder(pf, {0, 3}, bus_pd(c), ratings(c), kVoll), pz::core::ConfigError);
  }

  TEST_CASE("MATPOWER case5: the free merit order overloads 4-5, as the golden OPF binds it") {
    const Case c = pz::test::bundled("case5");
    const nlohmann::json j = pz::test::golden("case5_dcopf.json");
    const MeritOrder mo = make(c);
    const Units u = units_of(c);
    MeritOrderResult r;
    // 1000 MW: bus 5 (10 $/MWh) 600, bus 1 (14, 15) 40 + 170, bus 3 (30) the last 190 MW.
    REQUIRE(mo.solve(1.0, u.lo, u.hi, u.cost, r) == MeritOrderStatus::kNeedsOpf);
    CHECK(r.p_mw == std::vector<double>{40, 170, 190, 0, 600});
    CHECK(r.cost_usd_per_h == doctest::Approx(14810));
    CHECK(std::abs(r.flow_mw[5]) > c.branch[5].rate_a_mva);  // 4-5, rated 240 MVA
    // The golden: 4-5 (row 6) is the binding branch and congestion raises the cost.
    CHECK(j.at("binding_branches").get<std::vector<int>>() == std::vector<int>{6});
    CHECK(j.at("objective").get<double>() > r.cost_usd_per_h);
    DcOpf opf(c);
    const DcOpfResult lim = opf.solve();
    REQUIRE(lim.ok());
    CHECK(lim.objective == doctest::Approx(j.at("objective").get<double>()).epsilon(1e-9));
    pz::grid::DcOpfOverrides o;
    o.line_limits = false;
    check_agree(r, opf.solve(bus_pd(c), o));
  }

  TEST_CASE("agrees with the DC-OPF on case14 and case118, free and congested") {
    for (const char* name : {"case14", "case118"}) {
      CAPTURE(name);
      const Case c = linear_case(name);
      const Units u = units_of(c);
      const std::vector<double> pd = bus_pd(c);
      MeritOrderResult r;
      // No ratings: merit order is the OPF optimum at every load level.
      {
        const MeritOrder mo = make(c);
        DcOpf opf(c);
        for (double f : {0.6, 1.0, 1.3}) {
          CAPTURE(f);
          REQUIRE(mo.solve(f, u.lo, u.hi, u.cost, r) == MeritOrderStatus::kOptimal);
          CHECK(r.slack_mw == 0.0);
          check_agree(r, opf.solve(scaled(pd, f)));
        }
      }
      // Most loaded branch of the free dispatch at 1.3 × load rated at 80 % of its flow.
      make(c).solve(1.3, u.lo, u.hi, u.cost, r);
      const MeritOrderResult free = r;
      int worst = 0;
      for (int l = 0; l < c.n_branch(); ++l)
        if (std::abs(free.flow_mw[l]) > std::abs(free.flow_mw[worst])) worst = l;
      Case cc = c;
      const double rate = 0.8 * std::abs(free.flow_mw[worst]);
      cc.branch[worst].rate_a_mva = cc.branch[worst].rate_b_mva = rate;
      const MeritOrder mo = make(cc);
      DcOpf opf(cc);
      REQUIRE(mo.solve(1.3, u.lo, u.hi, u.cost, r) == MeritOrderStatus::kNeedsOpf);
      const DcOpfResult lim = opf.solve(scaled(pd, 1.3));
      REQUIRE_MESSAGE(lim.ok(), lim.message);
      CHECK(lim.objective > r.cost_usd_per_h + 1e-3);  // congestion costs something
      CHECK(std::abs(lim.branch_pf_mw[worst]) == doctest::Approx(rate));
      CHECK(std::find(lim.binding_branches.begin(), lim.binding_branches.end(), worst) !=
            lim.binding_branches.end());
      pz::grid::DcOpfOverrides o;
      o.line_limits = false;
      check_agree(r, opf.solve(scaled(pd, 1.3), o));  // without limits: the same optimum
      // The branch rated just above its free flow: the screen accepts the merit-order point.
      Case ok_case = c;
      ok_case.branch[worst].rate_a_mva = 1.01 * std::abs(free.flow_mw[worst]);
      const MeritOrder mo_ok = make(ok_case);
      DcOpf opf_ok(ok_case);
      REQUIRE(mo_ok.solve(1.3, u.lo, u.hi, u.cost, r) == MeritOrderStatus::kOptimal);
      check_agree(r, opf_ok.solve(scaled(pd, 1.3)));
    }
  }
  TEST_CASE("sorting only the units with headroom gives the full sort's dispatch bit for bit") {
    // The raise of a unit without headroom (off, or pinned at its ceiling) is exactly 0, so
    // MeritOrder::solve leaves those units out of its sort; here a full sort over every unit
    // (the loop as first written) must give the same bits, on case118 with random windows.
    const Case c = linear_case("case118");
    const MeritOrder mo = make(c);
    const PtdfFlow ptdf(c, c.ref_bus_idx);
    const int nu = c.n_gen(), nl = c.n_branch();
    const std::vector<double> pd = bus_pd(c);
    std::vector<double> base_flow(nl);
    ptdf.flows(pd, base_flow);
    double sum_pd = 0;
    for (double v : pd) sum_pd += v;
    const std::vector<double> cols = ptdf.columns(c.gen_bus_idx);  // [nl x nu]
    std::mt19937 g(7);
    std::uniform_real_distribution<double> U(0, 1);
    MeritOrderResult r;
    int spilled = 0, unserved = 0;
    for (int it = 0; it < 400; ++it) {
      CAPTURE(it);
      std::vector<double> lo(nu), hi(nu), cost(nu);
      for (int u = 0; u < nu; ++u) {
        const double pmax = c.gen[u].pmax_mw, x = U(g);
        lo[u] = x < 0.4 ? 0.0 : 0.3 * pmax * U(g);
        hi[u] = x < 0.4 ? 0.0 : x < 0.5 ? lo[u] : x < 0.55 ? 0.5 * lo[u] : lo[u] + pmax * U(g);
        cost[u] = std::floor(40 * U(g)) + 1e-4 * (u % 5);  // ties, broken by index
      }
      const double f = it % 8 == 0 ? 0.05 * U(g) : 0.3 + 1.2 * U(g);  // spill at low load
      mo.solve(f, lo, hi, cost, r);
      std::vector<double> p(nu);
      std::vector<int> order(nu);
      double rest = sum_pd * f;
      for (int u = 0; u < nu; ++u) {
        p[u] = std::min(lo[u], hi[u]);
        rest -= p[u];
        order[u] = u;
      }
      std::sort(order.begin(), order.end(),
                [&](int a, int b) { return cost[a] < cost[b] || (cost[a] == cost[b] && a < b); });
      for (int k = 0; k < nu && rest > 0; ++k) {
        const int u = order[k];
        const double add = std::min(std::max(hi[u] - p[u], 0.0), rest);
        p[u] += add;
        rest -= add;
      }
      spilled += rest < 0;
      unserved += rest > 0;
      CHECK(r.slack_mw == rest);
      for (int u = 0; u < nu; ++u) CHECK(r.p_mw[u] == p[u]);
      for (int l = 0; l < nl; ++l) {
        double flow = -f * base_flow[l];
        for (int u = 0; u < nu; ++u)
          if (p[u] != 0.0) flow += cols[static_cast<size_t>(l) * nu + u] * p[u];
        CHECK(r.flow_mw[l] == flow);
      }
    }
    MESSAGE(spilled << " spilled, " << unserved << " unserved of 400");
    CHECK(spilled > 0);
    CHECK(unserved > 0);
  }
}
