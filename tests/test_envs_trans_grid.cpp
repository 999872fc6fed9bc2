// TransGrid against the values of PowerZooJax's TransGridEnv (powerzoojax/envs/grid/trans.py) on
// its case5 table, recomputed in float64.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "case_edits.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dc.hpp"

using namespace pz;

namespace {
// The reference's case5: MATPOWER network, slack bus 1, unit limits p_min [5,10,20,10,20],
// default load row [0,250,300,200,0] MW.
envs::TransGrid reference_case5(double reward_scale = 0.01) {
  envs::TransGridParams p;
  p.grid_case = grid::load_case(grid::resolve_case_path("case5"));
  const double pd[5] = {0, 250, 300, 200, 0};
  for (int b = 0; b < 5; ++b) p.grid_case.bus[b].pd_mw = pd[b];
  p.slack_bus_idx = 0;
  p.pmin_override = {5, 10, 20, 10, 20};
  p.reward_scale = reward_scale;
  p.horizon = 3;
  return envs::TransGrid(std::move(p));
}

// One step of `params` (horizon 48) from a reset with stream (1, 0): the state, costs and info.
struct OneStep {
  std::unique_ptr<envs::State> state;
  std::vector<float> costs = std::vector<float>(4);
  envs::Info info;
  envs::Step step;
  const envs::TransGrid::GridState& grid() const {
    return static_cast<const envs::TransGrid::GridState&>(*state);
  }
};
OneStep step_once(envs::TransGridParams params, const std::vector<float>& action) {
  params.horizon = 48;
  const envs::TransGrid env(std::move(params));
  OneStep out;
  out.state = env.make_state();
  core::Rng rng(1, 0);
  std::vector<float> obs(env.spec().obs_dim);
  env.reset(*out.state, rng, obs);
  out.step = env.step(*out.state, action, rng, obs, out.costs, &out.info);
  return out;
}
}  // namespace

TEST_SUITE("envs_trans_grid") {
  TEST_CASE("reset and steps of the reference case5 (PowerZooJax TransGridEnv)") {
    const auto env = reference_case5();
    const auto& sp = env.spec();
    CHECK(sp.obs_dim == 6 + 3 + 5 + 2);  // loads are the 3 buses with PD != 0
    CHECK(sp.act_dim == 5);
    auto st = env.make_state();
    core::Rng rng(0, 0);
    std::vector<float> obs(sp.obs_dim), costs(4);
    env.reset(*st, rng, obs);
    auto& s = static_cast<envs::TransGrid::GridState&>(*st);
    const double p0[5] = {21.365188, 84.812287, 253.788396, 98.83959, 291.194539};
    const double f0[6] = {202.147222, 77.954435, -173.924183, -47.852778, -94.064382, -117.270356};
    for (int u = 0; u < 5; ++u) CHECK(s.p_mw[u] == doctest::Approx(p0[u]).epsilon(1e-6));
    for (int l = 0; l < 6; ++l) CHECK(s.flow_mw[l] == doctest::Approx(f0[l]).epsilon(1e-6));
    const float obs0[16] = {0.505368f, 7.8e-5f,   -1.74e-4f, -4.8e-5f, -9.4e-5f,  -0.488626f,
                            0.163399f, 0.196078f, 0.130719f, 0.53413f, 0.498896f, 0.488055f,
                            0.494198f, 0.485324f, 0.0f,      1.0f};
    // Reference values are rounded to 6 decimals (2 significant digits for the ~1e-5 ones).
    for (int i = 0; i < 16; ++i) CHECK(std::abs(obs[i] - obs0[i]) < 1e-6);

    std::vector<float> a(5, 0.0f);
    envs::Info info;
    auto step = env.step(*st, a, rng, obs, costs, &info);
    const double p1[5] = {-1.25, 66.25, 270, 105, 310};
    const double f1[6] = {191.504734, 69.777129, -196.281863, -58.495266, -88.495266, -113.718137};
    for (int u = 0; u < 5; ++u) CHECK(s.p_mw[u] == doctest::Approx(p1[u]).epsilon(1e-9));
    for (int l = 0; l < 6; ++l) CHECK(s.flow_mw[l] == doctest::Approx(f1[l]).epsilon(1e-6));
    CHECK(info.gen_cost == doctest::Approx(16376.25));
    CHECK(step.reward == doctest::Approx(-163.7625f));
    CHECK(costs[0] == 0.0f);
    CHECK(costs[1] == 0.0f);
    CHECK(costs[2] == doctest::Approx(6.25f));
    CHECK(costs[3] == 0.0f);
    // The reference calls this step safe (its is_safe is thermal-only); ours also requires the
    // unit limits (power_balance = 6.25 MW here), see docs/deviations.md.
    CHECK_FALSE(info.is_safe);
    CHECK(info.n_violations == 0);
    CHECK_FALSE(step.truncated);

    std::fill(a.begin(), a.end(), 1.0f);
    step = env.step(*st, a, rng, obs, costs, &info);
    const double p2[5] = {-350, -220, 520, 200, 600};
    for (int u = 0; u < 5; ++u) CHECK(s.p_mw[u] == doctest::Approx(p2[u]));
    CHECK(info.gen_cost == doctest::Approx(21400.0));
    CHECK(costs[2] == doctest::Approx(585.0f));
    CHECK(costs[0] == 0.0f);
    CHECK_FALSE(step.truncated);
    // Third step reaches the horizon: time limit is truncation, not termination.
    step = env.step(*st, a, rng, obs, costs, &info);
    CHECK(step.truncated);
    CHECK_FALSE(step.terminated);
  }

  TEST_CASE("thermal overload on the rated branch of MATPOWER case5") {
    envs::TransGridParams p;
    p.grid_case = grid::load_case(grid::resolve_case_path("case5"));
    // Cheap units at bus 1 and bus 5 at full output push flow over branch 1-2 (rate 400 MVA)
    // or 4-5 (240); the sum of overloads equals the thermal_overload cost.
    const OneStep r = step_once(std::move(p), {1, 1, -1, -1, 1});
    const auto& s = r.grid();
    const double over = std::max(std::abs(s.flow_mw[0]) - 400.0, 0.0) +
                        std::max(std::abs(s.flow_mw[5]) - 240.0, 0.0);
    CHECK(over > 0);
    CHECK(r.costs[0] == doctest::Approx(over).epsilon(1e-6));
    CHECK(r.info.n_violations >= 1);
    CHECK_FALSE(r.info.is_safe);
    // Flows balance: PTDF flows with the slack at bus 4 (MATPOWER ref) conserve power at bus 2.
    CHECK(s.flow_mw[0] - s.flow_mw[3] == doctest::Approx(300.0).epsilon(1e-9));
  }

  TEST_CASE("phase shifters move the env's flows as in the DC power flow") {
    // Regression: the env ignored SHIFT (grid dcpf showed branch 2-3 at 125 %, the env no
    // thermal cost). Whatever the dispatch, the env's flows equal run_dcpf's for its PG.
    envs::TransGridParams p;
    p.grid_case = grid::load_case(grid::resolve_case_path("case5"));
    p.grid_case.branch[3].shift_deg = 10;  // 2-3
    p.grid_case.branch[1].shift_deg = -4;  // 1-4
    grid::Case c = p.grid_case;
    const OneStep one = step_once(std::move(p), {0.5f, -0.2f, 0.1f, 0.3f, -0.7f});
    const auto& s = one.grid();
    for (int g = 0; g < c.n_gen(); ++g) c.gen[g].pg_mw = s.p_mw[g];
    const grid::DcPfResult r = grid::run_dcpf(c);
    REQUIRE(r.success);
    for (int l = 0; l < c.n_branch(); ++l) {
      CAPTURE(l);
      CHECK(s.flow_mw[l] == doctest::Approx(r.branch_pf_mw[l]).epsilon(1e-9));
    }
    CHECK(std::abs(r.branch_pf_mw[3]) > 1.0);
  }

  TEST_CASE("an infeasible OPF dispatch ends the episode as a solver failure, never as safe") {
    // Regression: with dispatch = "dcopf" an infeasible OPF step was counted feasible, so an
    // episode cut short after one step reported feasibility_rate 1.
    envs::TransGridParams p;
    p.grid_case = grid::load_case(grid::resolve_case_path("case5"));
    p.opf_dispatch = true;
    p.load_scale = 1.6;  // 1600 MW of load against 1530 MW of capacity
    const OneStep r = step_once(p, std::vector<float>(5, 0.0f));
    CHECK(r.step.terminated);
    CHECK(r.info.status == envs::StepStatus::kSolverFailed);
    CHECK_FALSE(r.info.is_safe);
    // Guards a fourth user trial: the failed step dispatched the policy's action, though the OPF
    // modes ignore it, so evaluations of two checkpoints differed on the same outages.
    const OneStep other = step_once(std::move(p), {1.0f, -1.0f, 0.5f, -0.3f, 0.9f});
    CHECK(other.step.terminated);
    CHECK(other.grid().p_mw == r.grid().p_mw);
    CHECK(other.step.reward == r.step.reward);
  }
}

// Issue 32: the env reads a case as `grid dcpf` does. On every edit of case5, case14 and case118
// the env's dispatch and flows at a step equal run_dcpf's on the same file with that dispatch,
// the dispatch balances the served load, and the policy is never cheaper than the exact DC-OPF.
TEST_SUITE("envs_trans_grid") {
  TEST_CASE("edited cases: env flows and dispatch equal grid dcpf's, step by step") {
    for (const std::string name : {"case5", "case14", "case118"}) {
      for (const auto& edit : test::case_edits(name)) {
        CAPTURE(name);
        CAPTURE(edit.what);
        for (const bool opf : {false, true}) {
          CAPTURE(opf);
          envs::TransGridParams p;
          p.grid_case = edit.c;
          p.horizon = 4;
          p.report_opf_gap = !opf;
          p.opf_dispatch = opf;
          const envs::TransGrid env(std::move(p));
          const grid::Case e = grid::energize(edit.c);
          std::vector<int> unit_gen;
          for (int g = 0; g < e.n_gen(); ++g)
            if (e.gen[g].status > 0) unit_gen.push_back(g);
          REQUIRE(env.n_units() == static_cast<int>(unit_gen.size()));
          double served = 0;
          for (const auto& b : e.bus) served += b.type == 4 ? 0.0 : b.pd_mw;
          auto st = env.make_state();
          core::Rng rng(3, 0), act_rng(11, 0);
          std::vector<float> obs(env.spec().obs_dim), costs(4), a(env.n_units());
          env.reset(*st, rng, obs);
          for (int t = 0; t < 4; ++t) {
            for (float& x : a) x = static_cast<float>(2 * act_rng.uniform() - 1);
            envs::Info info;
            env.step(*st, a, rng, obs, costs, &info);
            double cap = 0;
            for (double v : env.pmax()) cap += v;
            if (opf && cap < served) {  // case5 without gen 5: 930 MW for 1000 MW of load
              CHECK(info.status == envs::StepStatus::kSolverFailed);
              CHECK_FALSE(info.is_safe);
              break;
            }
            REQUIRE(info.status == envs::StepStatus::kOk);
            const auto& s = static_cast<const envs::TransGrid::GridState&>(*st);
            grid::Case at = edit.c;  // the file with the env's dispatch as PG
            for (int u = 0; u < env.n_units(); ++u) at.gen[unit_gen[u]].pg_mw = s.p_mw[u];
            const grid::DcPfResult r = grid::run_dcpf(at);
            REQUIRE(r.success);
            double total = 0;
            for (int u = 0; u < env.n_units(); ++u) {
              CHECK(std::abs(r.gen_pg_mw[unit_gen[u]] - s.p_mw[u]) < 1e-9);
              total += s.p_mw[u];
            }
            CHECK(std::abs(total - served) < 1e-9 * std::max(1.0, served));  // power balance
            for (int l = 0; l < e.n_branch(); ++l)
              CHECK(std::abs(r.branch_pf_mw[l] - s.flow_mw[l]) < 1e-9);
            if (!opf && info.is_safe && info.sums[1] > 0)  // a feasible policy: gap >= 0
              CHECK(info.sums[0] >= info.sums[1] * (1 - 1e-9));
            if (opf) CHECK(info.is_safe);
          }
        }
      }
    }
  }

  TEST_CASE("case5 with gen 4 out: the reference moves to bus 1, its units carry the load") {
    grid::Case c = grid::load_case(grid::resolve_case_path("case5"));
    c.gen[3].status = 0;  // the only gen at bus 4, the type-3 bus
    const grid::Case e = grid::energize(c);
    CHECK(e.bus[3].type == 1);
    CHECK(e.ref_bus_idx == 0);  // bus 1, the first PV bus with an in-service gen
    envs::TransGridParams p;
    p.grid_case = c;
    p.horizon = 2;
    const envs::TransGrid env(std::move(p));
    auto st = env.make_state();
    core::Rng rng(1, 0);
    std::vector<float> obs(env.spec().obs_dim), costs(4), a(4, -1.0f);
    env.reset(*st, rng, obs);
    env.step(*st, a, rng, obs, costs, nullptr);
    const auto& s = static_cast<const envs::TransGrid::GridState&>(*st);
    // PD = 300 + 300 + 400 MW, every unit at PMIN = 0: bus 1's two units share the 1000 MW
    // (before, bus 4's off unit was the slack and nobody served the load).
    CHECK(s.p_mw[0] == doctest::Approx(500.0).epsilon(1e-12));
    CHECK(s.p_mw[1] == doctest::Approx(500.0).epsilon(1e-12));
    CHECK(s.p_mw[2] == 0.0);
    CHECK(s.p_mw[3] == 0.0);
    CHECK(costs[2] == doctest::Approx((500.0 - 40.0) + (500.0 - 170.0)));  // above their PMAX
  }
}
