// TransGrid AC modes: the reference's AC step on case5 (PowerZooJax trans.py, physics 1,
// recomputed in float64), costs from the AC solution, AC-OPF dispatch, collapse as an outcome,
// checkpoint round trips, spec validation.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "case_edits.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/grid/ac/acopf.hpp"
#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/case/case.hpp"

using namespace pz;
using Solver = envs::TransGridParams::Solver;

namespace {

envs::TransGridParams ac_params(const std::string& name, Solver solver) {
  envs::TransGridParams p;
  p.grid_case =
      grid::load_case(name.find('/') == std::string::npos ? grid::resolve_case_path(name) : name);
  p.solver = solver;
  p.horizon = 4;
  p.reward_scale = 0.01;
  return p;
}

struct Run {
  std::unique_ptr<envs::State> st;
  std::vector<float> obs, costs;
  envs::Info info;
  envs::Step step;
};

Run reset_and_step(const envs::TransGrid& env, const std::vector<float>& action) {
  Run r;
  r.st = env.make_state();
  core::Rng rng(0, 0);
  r.obs.assign(env.spec().obs_dim, 0.0f);
  r.costs.assign(4, 0.0f);
  env.reset(*r.st, rng, r.obs);
  r.step = env.step(*r.st, action, rng, r.obs, r.costs, &r.info);
  return r;
}

}  // namespace

TEST_SUITE("envs_trans_grid_ac") {
  TEST_CASE("reference AC step on its case5 table, action 0") {
    auto p = ac_params(std::string(PZ_SOURCE_DIR) + "/tests/data/case5_reference_table.m",
                       Solver::kAcPf);
    const double pd[5] = {0, 250, 300, 200, 0};
    for (int b = 0; b < 5; ++b) p.grid_case.bus[b].pd_mw = pd[b];
    const envs::TransGrid env(std::move(p));
    CHECK(env.spec().obs_dim == 6 + 5 + 3 + 5 + 2);
    CHECK(env.spec().obs_field("bus_vm").size == 5);
    const Run r = reset_and_step(env, std::vector<float>(5, 0.0f));
    REQUIRE(r.info.status == envs::StepStatus::kOk);
    const auto& s = static_cast<const envs::TransGrid::GridState&>(*r.st);
    const double vm[5] = {1.06, 1.009657, 1.01, 1.01, 1.033229};
    const double pf[6] = {198.8088, 73.3880, -192.2081, -55.8390, -85.9578, -110.8818};
    const double qf[6] = {125.4282, 148.7577, 509.9656, 15.1952, 28.8558, -41.8245};
    const int vm_at = env.spec().obs_field("bus_vm").offset;
    for (int b = 0; b < 5; ++b) {
      CHECK(std::abs(s.vm[b] - vm[b]) < 1e-6);
      CHECK(r.obs[vm_at + b] == doctest::Approx(vm[b]).epsilon(1e-6));
    }
    for (int l = 0; l < 6; ++l) {
      CHECK(std::abs(s.flow_mw[l] - pf[l]) < 1e-3);
      CHECK(std::abs(s.qflow_mvar[l] - qf[l]) < 1e-3);
      CHECK(r.obs[l] == doctest::Approx(std::hypot(pf[l], qf[l]) / std::max(l == 0   ? 400.0
                                                                            : l == 5 ? 240.0
                                                                                     : 1e6,
                                                                            1.0))
                            .epsilon(1e-4));
    }
    // The slack bus injects 79.99 MW (its two units: midpoints 22.5 + 90 less the DC surplus,
    // plus ~15 MW of losses); the first unit there takes the whole adjustment.
    CHECK(s.p_mw[0] + s.p_mw[1] == doctest::Approx(79.99).epsilon(1e-4));
    CHECK(s.p_mw[1] == 90.0);
    CHECK(r.costs[0] == 0.0f);  // no overload, no voltage violation in the 0.94-1.06 band
    CHECK(r.costs[1] == 0.0f);
    CHECK(r.info.is_safe == (r.costs[2] == 0.0f));
  }

  TEST_CASE("AC costs: apparent-power overloads and voltage-band violations") {
    auto p = ac_params("case5", Solver::kAcPf);
    p.vm_min = 0.995;  // bus 2 sits at ~0.99 p.u.
    const envs::TransGrid env(std::move(p));
    const Run r = reset_and_step(env, std::vector<float>(5, 0.0f));
    REQUIRE(r.info.status == envs::StepStatus::kOk);
    const auto& s = static_cast<const envs::TransGrid::GridState&>(*r.st);
    double volt = 0;
    for (double v : s.vm) volt += std::max(0.995 - v, 0.0) + std::max(v - 1.1, 0.0);
    CHECK(volt > 1e-3);
    CHECK(r.costs[1] == doctest::Approx(volt).epsilon(1e-6));
    double th = 0;
    for (int l = 0; l < 6; ++l) {
      const double cap = l == 0 ? 400 : l == 5 ? 240 : 1e6;
      const double sf = std::hypot(s.ac.branch_pf_mw[l], s.ac.branch_qf_mvar[l]);
      const double st = std::hypot(s.ac.branch_pt_mw[l], s.ac.branch_qt_mvar[l]);
      th += std::max(std::max(sf, st) - cap, 0.0);
    }
    CHECK(r.costs[0] == doctest::Approx(th).epsilon(1e-6));
    CHECK(r.info.n_violations >= 1);
    CHECK_FALSE(r.info.is_safe);
    // Generation cost of the AC outputs (the slack unit covers the losses).
    CHECK(r.info.gen_cost == doctest::Approx(env.generation_cost(s.p_mw)));
    CHECK(r.step.reward == doctest::Approx(-0.01 * r.info.gen_cost));
  }

  TEST_CASE("acopf mode dispatches the AC-OPF of the step's loads") {
    const envs::TransGrid env(ac_params("case5", Solver::kAcOpf));
    const Run r = reset_and_step(env, std::vector<float>(5, 1.0f));  // ignored
    REQUIRE(r.info.status == envs::StepStatus::kOk);
    const grid::AcOpfResult opf =
        grid::AcOpf(grid::load_case(grid::resolve_case_path("case5"))).solve();
    REQUIRE(opf.ok());
    CHECK(r.info.gen_cost == doctest::Approx(opf.objective).epsilon(1e-7));
    CHECK(r.costs[0] < 1e-4f);  // the OPF holds line 6 at its rating
    CHECK(r.costs[1] == 0.0f);
  }

  TEST_CASE("acpf with report_opf_gap reports the AC-OPF's cost beside the policy's") {
    auto p = ac_params("case5", Solver::kAcPf);
    p.report_opf_gap = true;
    const envs::TransGrid env(std::move(p));
    REQUIRE(env.spec().episode_sum_names.size() == 2);
    const Run r = reset_and_step(env, std::vector<float>(5, 0.2f));
    REQUIRE(r.info.status == envs::StepStatus::kOk);
    const grid::AcOpfResult opf =
        grid::AcOpf(grid::load_case(grid::resolve_case_path("case5"))).solve();
    REQUIRE(opf.ok());
    CHECK(r.info.sums[0] == doctest::Approx(r.info.gen_cost * 0.5));
    CHECK(r.info.sums[1] == doctest::Approx(opf.objective * 0.5).epsilon(1e-7));
  }

  TEST_CASE("a collapsing power flow ends the episode as a solver failure, not a crash") {
    auto p = ac_params("case118", Solver::kAcPf);
    p.load_scale = 5;
    const envs::TransGrid env(std::move(p));
    const Run r = reset_and_step(env, std::vector<float>(54, 0.0f));
    CHECK(r.info.status == envs::StepStatus::kSolverFailed);
    CHECK(r.step.terminated);
    CHECK(r.costs[1] > 100.0f);  // 118 buses counted at Vm = 0 (Σ VMIN = 118 · 0.94)
  }

  TEST_CASE("checkpoint round trip: the warm start is part of the state") {
    auto p = ac_params("case30", Solver::kAcPf);
    p.horizon = 10;
    p.load_scale = 1.2;
    const envs::TransGrid env(std::move(p));
    auto a = env.make_state(), b = env.make_state();
    core::Rng rng(1, 1);
    std::vector<float> obs(env.spec().obs_dim), costs(4), act(env.spec().act_dim, 0.3f);
    env.reset(*a, rng, obs);
    for (int i = 0; i < 3; ++i) env.step(*a, act, rng, obs, costs, nullptr);
    std::vector<double> saved;
    env.save_state(*a, saved);
    CHECK(env.load_state(*b, saved) == saved.size());
    std::vector<float> obs_a(obs.size()), obs_b(obs.size()), ca(4), cb(4);
    act.assign(act.size(), -0.4f);
    env.step(*a, act, rng, obs_a, ca, nullptr);
    env.step(*b, act, rng, obs_b, cb, nullptr);
    CHECK(obs_a == obs_b);
    CHECK(ca == cb);
  }

  TEST_CASE("spec validation: an unknown solver names the key with a did-you-mean") {
    const std::string text = "[env]\nid = \"trans_grid\"\nsolver = \"acpff\"\n";
    try {
      exp::parse_spec(text, "ac.toml");
      FAIL("expected a ConfigError");
    } catch (const core::ConfigError& e) {
      const std::string m = e.what();
      CHECK(m.find("ac.toml:3") != std::string::npos);
      CHECK(m.find("[env] solver") != std::string::npos);
      CHECK(m.find("did you mean 'acpf'") != std::string::npos);
    }
    const std::string both =
        "[env]\nid = \"trans_grid\"\nsolver = \"acopf\"\ndispatch = \"dcopf\"\n";
    // dispatch has no effect when the AC-OPF dispatches: refused as the spec is read.
    CHECK_THROWS_WITH_AS(exp::make_env(exp::parse_spec(both, "ac.toml"), "train"),
                         doctest::Contains("ac.toml:4: [env] dispatch: has no effect here"),
                         core::ConfigError);
  }
}

// Issue 32: the AC mode reads an edited case as `grid acpf` does. Each step's flows and unit
// outputs equal grid acpf's (cold start, same Q-limit rule) on the same file at the step's
// scheduled dispatch (Newton's tolerance 1e-8 p.u. apart: the env warm-starts).
TEST_SUITE("envs_trans_grid_ac") {
  TEST_CASE("edited cases: env flows and dispatch equal grid acpf's, step by step") {
    for (const std::string name : {"case5", "case14", "case118"}) {
      for (const auto& edit : test::case_edits(name)) {
        CAPTURE(name);
        CAPTURE(edit.what);
        envs::TransGridParams p;
        p.grid_case = edit.c;
        p.solver = Solver::kAcPf;
        p.horizon = 3;
        const envs::TransGrid env(std::move(p));
        const grid::Case e = grid::energize(edit.c);
        std::vector<int> unit_gen;
        for (int g = 0; g < e.n_gen(); ++g)
          if (e.gen[g].status > 0) unit_gen.push_back(g);
        REQUIRE(env.n_units() == static_cast<int>(unit_gen.size()));
        grid::AcPowerFlow pf(edit.c);
        auto st = env.make_state();
        core::Rng rng(3, 0), act_rng(11, 0);
        std::vector<float> obs(env.spec().obs_dim), costs(4), a(env.n_units());
        env.reset(*st, rng, obs);
        for (int t = 0; t < 3; ++t) {
          for (float& x : a) x = static_cast<float>(0.5 * (2 * act_rng.uniform() - 1));
          envs::Info info;
          env.step(*st, a, rng, obs, costs, &info);
          std::vector<double> pg(edit.c.n_gen(), 0.0);
          for (int u = 0; u < env.n_units(); ++u) {
            const double lo = env.pmin()[u], hi = env.pmax()[u];
            pg[unit_gen[u]] = 0.5 * (lo + hi) + static_cast<double>(a[u]) * 0.5 * (hi - lo);
          }
          grid::AcPfInput in;
          in.gen_pg_mw = pg;
          grid::AcPfOptions o;
          o.enforce_q_lims = true;
          o.q_lims_at_ref = false;
          const grid::AcPfResult r = [&] {
            grid::AcPfResult out;
            pf.solve_into(in, o, out);
            return out;
          }();
          CHECK(r.success == (info.status == envs::StepStatus::kOk));
          if (!r.success || info.status != envs::StepStatus::kOk) continue;
          const auto& s = static_cast<const envs::TransGrid::GridState&>(*st);
          for (int u = 0; u < env.n_units(); ++u)
            CHECK(std::abs(r.gen_pg_mw[unit_gen[u]] - s.p_mw[u]) < 1e-5);
          for (int l = 0; l < edit.c.n_branch(); ++l)
            CHECK(std::abs(r.branch_pf_mw[l] - s.flow_mw[l]) < 1e-5);
        }
      }
    }
  }
}
