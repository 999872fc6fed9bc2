// trans_grid under outages in the OPF and AC modes, and the per-outage-set solver cache: the AC
// power flow and AC-OPF of the env equal the AC solvers on the case with the rows out of service
// (what `powerzoo grid acpf|acopf CASE --out-of-service ...` solves), the DC-OPF dispatch equals
// the DC-OPF of the edited case (per island when the outage islands the network), and several
// branches out equal grid::run_dcpf of the edited case while the edited network is factored once.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dc.hpp"

using namespace pz;
using Solver = envs::TransGridParams::Solver;

namespace {

// Rows (1-based) out from step `step` on.
data::OutageSchedule sched(std::vector<int> branches, std::vector<int> gens = {}, int step = 0) {
  data::OutageSchedule s;
  s.path = "test.csv";
  for (int r : branches) s.events.push_back({step, data::OutageElement::kBranch, r, 0, 2});
  for (int r : gens) s.events.push_back({step, data::OutageElement::kGen, r, 0, 2});
  return s;
}

struct Run {
  std::vector<double> p, flow, qflow, vm;
  std::vector<float> costs;
  envs::Info info;
};

envs::TransGridParams params(const grid::Case& c, Solver solver, data::OutageSchedule s) {
  envs::TransGridParams p;
  p.grid_case = c;
  p.horizon = 4;
  p.solver = solver;
  p.outages.schedule = std::move(s);
  return p;
}

// A reset and `n` steps of the env, action a_u = 0.3·sin(u + 1).
Run run(const envs::TransGrid& env, int n = 1, envs::TransGrid::GridState** keep = nullptr,
        std::unique_ptr<envs::State>* holder = nullptr) {
  auto st = env.make_state();
  core::Rng rng(1, 0);
  std::vector<float> obs(env.spec().obs_dim);
  Run out;
  out.costs.resize(env.spec().cost_names.size());
  env.reset(*st, rng, obs);
  std::vector<float> a(env.spec().act_dim);
  for (size_t u = 0; u < a.size(); ++u) a[u] = static_cast<float>(0.3 * std::sin(u + 1.0));
  for (int i = 0; i < n; ++i) env.step(*st, a, rng, obs, out.costs, &out.info);
  auto& s = static_cast<envs::TransGrid::GridState&>(*st);
  out.p = s.p_mw;
  out.flow = s.flow_mw;
  out.qflow = s.qflow_mvar;
  out.vm = s.vm;
  if (keep) *keep = &s;
  if (holder) *holder = std::move(st);
  return out;
}

// The case with the env's dispatch as PG and the given rows out (1-based), as `--out-of-service`.
grid::Case edited(const envs::TransGrid& env, const std::vector<double>& p_units,
                  const std::vector<int>& branches, const std::vector<int>& gens = {}) {
  grid::Case c = env.params().grid_case;
  for (int u = 0; u < env.n_units(); ++u) c.gen[env.unit_gen()[u]].pg_mw = p_units[u];
  for (int k : branches) c.branch[k - 1].status = 0;
  for (int g : gens) c.gen[g - 1].status = 0;
  return c;
}

void check_acpf(const grid::Case& c, const std::vector<int>& branches) {
  const envs::TransGrid env(params(c, Solver::kAcPf, sched(branches)));
  const Run r = run(env);
  REQUIRE(r.info.status == envs::StepStatus::kOk);
  // The env's scheduled dispatch (its REF units replaced by the solution) and the case's loads.
  std::vector<double> p_sched(env.n_units());
  for (int u = 0; u < env.n_units(); ++u) {
    const double a = 0.3 * std::sin(u + 1.0);
    p_sched[u] = 0.5 * (env.pmin()[u] + env.pmax()[u]) + a * 0.5 * (env.pmax()[u] - env.pmin()[u]);
  }
  grid::AcPowerFlow pf(edited(env, p_sched, branches));
  grid::AcPfOptions o;
  o.enforce_q_lims = true;
  o.q_lims_at_ref = false;
  const grid::AcPfResult ref = pf.solve(o);
  REQUIRE(ref.success);
  // Both stop at a mismatch below 1e-8 p.u. (1e-6 MW on 100 MVA), the env warm-started from the
  // reset's voltages and the reference from MATPOWER's start: they agree to a few 1e-6 MW.
  constexpr double kMw = 5e-6, kPu = 1e-7;
  for (int l = 0; l < c.n_branch(); ++l) {
    CHECK(std::abs(r.flow[l] - ref.branch_pf_mw[l]) < kMw);
    CHECK(std::abs(r.qflow[l] - ref.branch_qf_mvar[l]) < kMw);
  }
  for (int b = 0; b < c.n_bus(); ++b) CHECK(std::abs(r.vm[b] - ref.bus_vm_pu[b]) < kPu);
  for (int u = 0; u < env.n_units(); ++u)
    CHECK(std::abs(r.p[u] - ref.gen_pg_mw[env.unit_gen()[u]]) < kMw);
  for (int k : branches) CHECK(r.flow[k - 1] == 0.0);
}

}  // namespace

TEST_SUITE("envs_trans_grid_outage_net") {
  TEST_CASE("AC power flow after branch outages of case5 and case14 equals acpf of the edit") {
    const grid::Case c5 = grid::load_case(grid::resolve_case_path("case5"));
    for (int k : {1, 2, 4, 6}) {
      CAPTURE(k);
      check_acpf(c5, {k});
    }
    check_acpf(c5, {2, 5});
    const grid::Case c14 = grid::load_case(grid::resolve_case_path("case14"));
    // 14 is 7-8: bus 8 and its condenser form an island with its own reference.
    for (int k : {1, 3, 7, 10, 14, 20}) {
      CAPTURE(k);
      check_acpf(c14, {k});
    }
    check_acpf(c14, {1, 10});
  }

  TEST_CASE("AC power flow: an island without a generator is de-energized, its load unserved") {
    grid::Case c = grid::load_case(grid::resolve_case_path("case14"));
    for (int g = 0; g < c.n_gen(); ++g)
      if (c.bus[c.gen_bus_idx[g]].id == 8) c.gen[g].status = 0;
    for (auto& b : c.bus)
      if (b.id == 8) b.pd_mw = 12.5, b.qd_mvar = 3, b.type = 1;
    const envs::TransGrid env(params(c, Solver::kAcPf, sched({14})));
    const Run r = run(env);
    REQUIRE(r.info.status == envs::StepStatus::kOk);
    CHECK(r.costs.back() == doctest::Approx(12.5));  // unserved_load (MW)
    CHECK_FALSE(r.info.is_safe);
    int bus8 = -1;
    for (int b = 0; b < c.n_bus(); ++b)
      if (c.bus[b].id == 8) bus8 = b;
    CHECK(r.vm[bus8] == 0.0);
    CHECK(r.costs[1] >= 0.0f);  // the dead bus is not a voltage violation
    CHECK(r.costs[1] < 0.5f);
  }

  TEST_CASE("AC-OPF dispatch after a branch outage equals the AC-OPF of the edited case") {
    const grid::Case c = grid::load_case(grid::resolve_case_path("case14"));
    for (int k : {3, 14}) {
      CAPTURE(k);
      const envs::TransGrid env(params(c, Solver::kAcOpf, sched({k})));
      const Run r = run(env);
      REQUIRE(r.info.status == envs::StepStatus::kOk);
      grid::AcOpf opf(edited(env, r.p, {k}));
      const grid::AcOpfResult ref = opf.solve();
      REQUIRE(ref.ok());
      CHECK(r.info.gen_cost == doctest::Approx(ref.objective).epsilon(1e-7));
      for (int u = 0; u < env.n_units(); ++u)
        CHECK(std::abs(r.p[u] - ref.gen_pg_mw[env.unit_gen()[u]]) < 1e-4);
    }
  }

  TEST_CASE("DC-OPF dispatch after outages equals the DC-OPF of the edited case, per island") {
    const grid::Case c = grid::load_case(grid::resolve_case_path("case14"));
    for (std::vector<int> out : {std::vector<int>{3}, {1, 10}, {14}}) {
      CAPTURE(out[0]);
      envs::TransGridParams p = params(c, Solver::kDc, sched(out));
      p.opf_dispatch = true;
      const envs::TransGrid env(std::move(p));
      const Run r = run(env);
      REQUIRE(r.info.status == envs::StepStatus::kOk);
      // Branch 14 cuts off bus 8 and its condenser (no load there): its island dispatches it at 0
      // (PMIN) and the rest is the OPF of the case without bus 8.
      grid::Case e = edited(env, r.p, out);
      if (out[0] == 14)
        for (int g = 0; g < e.n_gen(); ++g)
          if (e.bus[e.gen_bus_idx[g]].id == 8) e.gen[g].status = 0;
      grid::DcOpf opf(grid::energize(e));
      std::vector<double> load(c.n_bus());
      for (int b = 0; b < c.n_bus(); ++b) load[b] = c.bus[b].pd_mw;
      const grid::DcOpfResult ref = opf.solve(load);
      REQUIRE(ref.ok());
      CHECK(r.info.gen_cost == doctest::Approx(ref.objective).epsilon(1e-8));
      for (int l = 0; l < c.n_branch(); ++l)
        CHECK(std::abs(r.flow[l] - ref.branch_pf_mw[l]) < 1e-6);
      CHECK(r.costs.back() == 0.0f);
    }
  }

  TEST_CASE("DC-OPF mode, a new single branch out each step, equals the edited case's DC-OPF") {
    // Regression guard of the LODF-updated OPF model (grid::DcOpf::set_branch_outage), which
    // replaced a model build per new outage set: case5 branches 2 and 5 alternate every step.
    const grid::Case c = grid::load_case(grid::resolve_case_path("case5"));
    data::OutageSchedule s = sched({2});
    for (int t = 1; t < 4; ++t) {
      const int now = t % 2 ? 5 : 2, before = t % 2 ? 2 : 5;
      s.events.push_back({t, data::OutageElement::kBranch, before, 1, 2 * t + 1});
      s.events.push_back({t, data::OutageElement::kBranch, now, 0, 2 * t + 2});
    }
    envs::TransGridParams p = params(c, Solver::kDc, s);
    p.opf_dispatch = true;
    const envs::TransGrid env(std::move(p));
    std::vector<double> load(c.n_bus());
    for (int b = 0; b < c.n_bus(); ++b) load[b] = c.bus[b].pd_mw;
    for (int n = 1; n <= 4; ++n) {
      CAPTURE(n);
      const Run r = run(env, n);  // step n − 1 has branch 2 (even) or 5 (odd) out
      REQUIRE(r.info.status == envs::StepStatus::kOk);
      const int out = (n - 1) % 2 ? 5 : 2;
      grid::Case e = edited(env, r.p, {out});
      grid::DcOpf opf(grid::energize(e));
      const grid::DcOpfResult ref = opf.solve(load);
      REQUIRE(ref.ok());
      CHECK(r.info.gen_cost == doctest::Approx(ref.objective).epsilon(1e-10));
      for (int u = 0; u < env.n_units(); ++u)
        CHECK(std::abs(r.p[u] - ref.gen_pg_mw[env.unit_gen()[u]]) < 1e-9);
      for (int l = 0; l < c.n_branch(); ++l)
        CHECK(std::abs(r.flow[l] - ref.branch_pf_mw[l]) < 1e-9);
      CHECK(r.flow[out - 1] == 0.0);
    }
  }

  TEST_CASE(
      "DC-OPF mode with random branch outages: a saved and loaded state continues as the run") {
    // Regression guard of resume exactness with the LODF-updated model: the run's model carries
    // a warm basis and the coefficients of every set it took out and put back, the loaded state a
    // fresh model that starts cold; both take single-branch sets by LODF and the rest by the
    // edited case's models. The optimum is unique on case5 (distinct costs), so they agree.
    const grid::Case c = grid::load_case(grid::resolve_case_path("case5"));
    envs::TransGridParams p = params(c, Solver::kDc, {});
    p.opf_dispatch = true;
    p.horizon = 48;
    p.outages.rate = 0.08;
    p.outages.duration_steps = 2;
    p.outages.random_branch = true;
    const envs::TransGrid env(std::move(p));
    auto a_st = env.make_state();
    core::Rng rng(11, 0);
    std::vector<float> obs(env.spec().obs_dim), costs(env.spec().cost_names.size());
    std::vector<float> act(env.spec().act_dim, 0.0f);
    env.reset(*a_st, rng, obs);
    auto* a = static_cast<envs::TransGrid::GridState*>(a_st.get());
    int lodf_steps = 0, net_steps = 0;
    auto count = [&] {
      const int k = a->opf->branch_outage();
      lodf_steps += k >= 0;
      net_steps += a->net != nullptr && k < 0;
    };
    for (int t = 0; t < 16; ++t) {
      env.step(*a_st, act, rng, obs, costs, nullptr);
      count();
    }
    std::vector<double> saved;
    env.save_state(*a_st, saved);
    core::Rng rng_b = rng;
    auto b_st = env.make_state();
    CHECK(env.load_state(*b_st, saved) == saved.size());
    std::vector<float> obs_b(obs.size()), costs_b(costs.size());
    for (int t = 16; t < 48; ++t) {
      CAPTURE(t);
      env.step(*a_st, act, rng, obs, costs, nullptr);
      env.step(*b_st, act, rng_b, obs_b, costs_b, nullptr);
      count();
      for (size_t i = 0; i < obs.size(); ++i) CHECK(std::abs(obs[i] - obs_b[i]) < 1e-5);
      for (size_t i = 0; i < costs.size(); ++i)
        CHECK(std::abs(costs[i] - costs_b[i]) < 1e-6 * (1 + std::abs(costs[i])));
    }
    CHECK(lodf_steps > 0);  // the seed exercises both paths
    CHECK(net_steps > 0);
  }

  TEST_CASE("several branches out: flows equal run_dcpf, the edited network factored once") {
    const grid::Case c = grid::load_case(grid::resolve_case_path("case14"));
    data::OutageSchedule s = sched({1, 10});
    s.events.push_back({2, data::OutageElement::kBranch, 10, 1, 3});  // back at step 2
    s.events.push_back({2, data::OutageElement::kBranch, 7, 0, 4});   // 1 and 7 out from step 2
    const envs::TransGrid env(params(c, Solver::kDc, s));
    envs::TransGrid::GridState* st = nullptr;
    std::unique_ptr<envs::State> hold;
    std::vector<float> obs(env.spec().obs_dim), costs(env.spec().cost_names.size());
    Run r0 = run(env, 1, &st, &hold);
    core::Rng rng(2, 0);
    const envs::OutageNet* first = st->net.get();
    REQUIRE(first != nullptr);
    std::vector<float> a(env.spec().act_dim, 0.1f);
    for (int t = 1; t < 3; ++t) {
      env.step(*st, a, rng, obs, costs, nullptr);
      if (t == 1) CHECK(st->net.get() == first);  // same set: the same factorization
    }
    CHECK(st->net.get() != first);  // step 2 solved a new set
    grid::Case e = grid::energize(c);
    for (int u = 0; u < env.n_units(); ++u) e.gen[env.unit_gen()[u]].pg_mw = st->p_mw[u];
    e.branch[0].status = 0;
    e.branch[6].status = 0;
    for (auto& b : e.bus) b.gs_mw = 0;
    // Step 2's dispatch with its REF unit as solved: run_dcpf balances it again (no change).
    const grid::DcPfResult ref = grid::run_dcpf(e);
    REQUIRE(ref.success);
    for (int l = 0; l < c.n_branch(); ++l)
      CHECK(std::abs(st->flow_mw[l] - ref.branch_pf_mw[l]) < 1e-9);
    (void)r0;
  }

  TEST_CASE("AC modes with random outages: a saved and loaded state continues as the run") {
    const grid::Case c = grid::load_case(grid::resolve_case_path("case14"));
    for (Solver solver : {Solver::kAcPf, Solver::kAcOpf}) {
      envs::TransGridParams p = params(c, solver, {});
      p.horizon = 24;
      p.outages.rate = 0.05;
      p.outages.duration_steps = 3;
      p.outages.random_branch = p.outages.random_gen = true;
      const envs::TransGrid env(std::move(p));
      auto a_st = env.make_state();
      core::Rng rng(7, 0);
      std::vector<float> obs(env.spec().obs_dim), costs(env.spec().cost_names.size());
      std::vector<float> act(env.spec().act_dim, 0.2f);
      env.reset(*a_st, rng, obs);
      for (int t = 0; t < 8; ++t) env.step(*a_st, act, rng, obs, costs, nullptr);
      std::vector<double> saved;
      env.save_state(*a_st, saved);
      core::Rng rng_b = rng;
      auto b_st = env.make_state();
      CHECK(env.load_state(*b_st, saved) == saved.size());
      std::vector<float> obs_b(obs.size()), costs_b(costs.size());
      float unserved = 0;
      for (int t = 8; t < 24; ++t) {
        env.step(*a_st, act, rng, obs, costs, nullptr);
        env.step(*b_st, act, rng_b, obs_b, costs_b, nullptr);
        if (solver == Solver::kAcPf) {  // warm start from the saved voltages: bit for bit
          CHECK(obs == obs_b);
          CHECK(costs == costs_b);
        } else {  // the AC-OPF resumes cold (as without outages): the same optimum to 1e-4
          for (size_t i = 0; i < obs.size(); ++i) CHECK(std::abs(obs[i] - obs_b[i]) < 1e-4);
          for (size_t i = 0; i < costs.size(); ++i)
            CHECK(std::abs(costs[i] - costs_b[i]) < 1e-4 * (1 + std::abs(costs[i])));
        }
        unserved += costs.back();
      }
      CHECK(unserved >= 0.0f);
    }
  }
}
