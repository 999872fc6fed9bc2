// DcOpf with lazy line limits (set_lazy_line_limits) against the full LP on congested case118
// unit-commitment problems: re-solves after bound, cost and load changes equal cold solves.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "powerzoo/envs/unit_commitment.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"
#include "powerzoo/tasks/tso.hpp"

using namespace pz;

namespace {

/// case118 as the tso task builds it (8° ratings, UC units as gens), linear costs mc_c.
grid::Case uc_case118(std::vector<envs::UcUnit>& units) {
  const std::string path = grid::resolve_case_path("case118");
  grid::Case c = grid::load_case(path);
  tasks::apply_tso_line_ratings(c, 1.0);
  units = tasks::load_uc_units(path.substr(0, path.size() - 2) + "_unit_commitment.csv", c, 0.5);
  for (size_t u = 0; u < units.size(); ++u) {
    c.gen[u].status = 1;
    c.gen[u].pmin_mw = units[u].pmin;
    c.gen[u].pmax_mw = units[u].pmax;
    c.gencost[u].model = 2;
    c.gencost[u].coeffs = {units[u].mc_c, 0.0};
  }
  c.finalize();
  return c;
}

}  // namespace

TEST_SUITE("grid_dcopf_lazy") {
  TEST_CASE("lazy line limits: warm re-solves equal full cold solves on congested case118") {
    std::vector<envs::UcUnit> units;
    const grid::Case c = uc_case118(units);
    const int ng = c.n_gen(), nb = c.n_bus(), nl = c.n_branch();
    grid::DcOpf lazy(c), full(c);
    lazy.set_lazy_line_limits(true);
    std::mt19937 g(5);
    std::uniform_real_distribution<double> U(0, 1);
    int congested = 0, infeasible = 0, optimal = 0;
    grid::DcOpfResult a;
    for (int it = 0; it < 120; ++it) {
      CAPTURE(it);
      grid::DcOpfOverrides o;
      o.balance_slack_cost = it % 3 == 0 ? 0.0 : 1000.0;
      o.line_limits = it % 7 != 3;
      std::vector<double> pd(nb);
      const double f = 0.9 + 0.8 * U(g);
      for (int b = 0; b < nb; ++b) pd[b] = c.bus[b].pd_mw * f;
      for (int u = 0; u < ng; ++u) {
        const bool on = U(g) < 0.7;
        const double lo = units[u].pmin + (units[u].pmax - units[u].pmin) * 0.5 * U(g);
        const double hi = lo + (units[u].pmax - lo) * U(g);
        o.pmin_mw.push_back(on ? lo : 0.0);
        o.pmax_mw.push_back(on ? hi : 0.0);
        o.linear_cost_delta.push_back(-0.01 * 0.5 * (lo + hi) * U(g));
      }
      lazy.solve_into(pd, o, a);
      grid::DcOpf cold(c);
      const auto b = cold.solve(pd, o);
      const auto w = full.solve(pd, o);
      REQUIRE(a.status == b.status);
      REQUIRE(w.status == b.status);
      if (!a.ok()) {
        ++infeasible;
        continue;
      }
      ++optimal;
      congested += !b.binding_branches.empty();
      CHECK(a.objective == doctest::Approx(b.objective).epsilon(1e-9));
      CHECK(a.balance_slack_mw == doctest::Approx(b.balance_slack_mw).epsilon(1e-9).scale(1e-6));
      for (int u = 0; u < ng; ++u)
        CHECK(a.gen_pg_mw[u] == doctest::Approx(b.gen_pg_mw[u]).epsilon(1e-9).scale(1e-6));
      for (int l = 0; l < nl; ++l)
        CHECK(a.branch_pf_mw[l] == doctest::Approx(b.branch_pf_mw[l]).epsilon(1e-9).scale(1e-6));
      for (int k = 0; k < nb; ++k)
        CHECK(a.bus_lam_p[k] == doctest::Approx(b.bus_lam_p[k]).epsilon(1e-7).scale(1e-6));
      // Shadow prices can split differently between parallel lines (the same PTDF row): the
      // LMPs they add up to are compared above, not the binding sets.
    }
    MESSAGE(optimal << " optimal (" << congested << " congested), " << infeasible << " infeasible");
    CHECK(congested > 10);
    CHECK(infeasible > 0);
  }

  TEST_CASE("solve_scaled_into equals solve_into at the scaled loads") {
    std::vector<envs::UcUnit> units;
    const grid::Case c = uc_case118(units);
    std::vector<double> ref(c.n_bus());
    for (int b = 0; b < c.n_bus(); ++b) ref[b] = c.bus[b].pd_mw;
    grid::DcOpf scaled(c), plain(c);
    grid::DcOpfOverrides o;
    o.balance_slack_cost = 1000.0;
    grid::DcOpfResult a, b;
    scaled.solve_scaled_into(1.0, o, a);
    CHECK(a.status == grid::DcOpfStatus::kFailed);  // no reference loads yet
    scaled.set_reference_loads(ref);
    for (double f : {0.8, 1.0, 1.3, 1.6}) {
      CAPTURE(f);
      std::vector<double> pd(ref);
      for (double& v : pd) v *= f;
      scaled.solve_scaled_into(f, o, a);
      plain.solve_into(pd, o, b);
      REQUIRE(a.status == b.status);
      if (!a.ok()) continue;
      CHECK(a.objective == doctest::Approx(b.objective).epsilon(1e-9));
      for (int l = 0; l < c.n_branch(); ++l)
        CHECK(a.branch_pf_mw[l] ==
              doctest::Approx(b.branch_pf_mw[l]).epsilon(1e-9).scale(1.0));  // MW
    }
  }

  // Guards the hang of a cycling dual simplex: a solve that hits the cap is an outcome (kFailed
  // naming the limit), and the model answers exactly once the cap is lifted.
  TEST_CASE("dcopf_iteration_cap_is_an_outcome") {
    std::vector<envs::UcUnit> units;
    const grid::Case c = uc_case118(units);
    for (bool lazy_on : {false, true}) {
      CAPTURE(lazy_on);
      grid::DcOpf capped(c), ref(c);
      capped.set_lazy_line_limits(lazy_on);
      capped.set_iteration_limit(1);
      const auto r = ref.solve();
      REQUIRE(r.ok());
      const auto a = capped.solve();
      CHECK(a.status == grid::DcOpfStatus::kFailed);
      CHECK(a.message.find("iteration limit (1,") != std::string::npos);
      capped.set_iteration_limit(0);
      const auto b = capped.solve();
      REQUIRE(b.ok());
      CHECK(b.objective == doctest::Approx(r.objective).epsilon(1e-9));
    }
  }
  TEST_CASE("dispatch-only solves equal full solves bit for bit (soft limits, congested case118)") {
    // The unit-commitment env's path: lazy rows, soft limits, a warm model solved 1000 times
    // with changing windows, costs and loads. dispatch_only skips the LMPs and angles and takes
    // the flows from the last lazy screen; the CLP calls are the same, so every number the env
    // reads must be identical, and the flows must be the PTDF flows of the dispatch.
    std::vector<envs::UcUnit> units;
    grid::Case c = uc_case118(units);
    for (auto& bus : c.bus) bus.gs_mw = 0;  // as the env: flows of generation and load only
    const int ng = c.n_gen(), nb = c.n_bus(), nl = c.n_branch();
    grid::DcOpf fast(c), slow(c);
    for (grid::DcOpf* m : {&fast, &slow}) {
      m->set_lazy_line_limits(true);
      m->set_reference_loads([&] {
        std::vector<double> pd(nb);
        for (int b = 0; b < nb; ++b) pd[b] = c.bus[b].pd_mw;
        return pd;
      }());
    }
    fast.set_dispatch_only(true);
    const grid::PtdfFlow ptdf(c, c.ref_bus_idx);
    std::mt19937 g(11);
    std::uniform_real_distribution<double> U(0, 1);
    grid::DcOpfResult a, b;
    int overloaded = 0, solved = 0;
    std::vector<double> inj(nb), flow(nl);
    for (int it = 0; it < 1000; ++it) {
      CAPTURE(it);
      grid::DcOpfOverrides o;
      o.balance_slack_cost = 1000.0;
      o.line_overload_cost = 1e5;
      const double f = 0.8 + 0.9 * U(g);
      for (int u = 0; u < ng; ++u) {
        const bool on = U(g) < 0.6;
        const double lo = units[u].pmin + (units[u].pmax - units[u].pmin) * 0.5 * U(g);
        const double hi = lo + (units[u].pmax - lo) * U(g);
        o.pmin_mw.push_back(on ? lo : 0.0);
        o.pmax_mw.push_back(on ? hi : 0.0);
        o.linear_cost_delta.push_back(-0.01 * 0.5 * (lo + hi) * U(g) + 1e-4 * u);
      }
      fast.solve_scaled_into(f, o, a);
      slow.solve_scaled_into(f, o, b);
      REQUIRE(a.status == b.status);
      if (!a.ok()) continue;
      ++solved;
      overloaded += a.line_overload_mw > 1e-6;
      CHECK(a.bus_lam_p.empty());
      CHECK(a.bus_va_deg.empty());
      CHECK(a.branch_mu_sf.empty());
      CHECK(a.objective == b.objective);
      CHECK(a.balance_slack_mw == b.balance_slack_mw);
      CHECK(a.line_overload_mw == b.line_overload_mw);
      CHECK(a.iterations == b.iterations);
      for (int u = 0; u < ng; ++u) CHECK(a.gen_pg_mw[u] == b.gen_pg_mw[u]);
      for (int l = 0; l < nl; ++l) CHECK(a.branch_pf_mw[l] == b.branch_pf_mw[l]);
      // The flows are the DC flows of the dispatch (slack at the reference bus).
      for (int k = 0; k < nb; ++k) inj[k] = -c.bus[k].pd_mw * f;
      for (int u = 0; u < ng; ++u) inj[c.gen_bus_idx[u]] += a.gen_pg_mw[u];
      ptdf.flows(inj, flow);
      for (int l = 0; l < nl; ++l) CHECK(std::abs(a.branch_pf_mw[l] - flow[l]) <= 1e-9);
    }
    MESSAGE(solved << " solved, " << overloaded << " with overload");
    CHECK(solved == 1000);  // soft limits and the balance slack: never infeasible
    CHECK(overloaded > 50);
  }
}
