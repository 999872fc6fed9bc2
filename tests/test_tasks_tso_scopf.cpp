// Tests of the TSO task's scopf baseline: its dispatch is grid::solve_scopf's on the step's
// committed units, loads and ramp windows (those the env uses), N-1 secure by brute-force
// re-solves; through the env its action yields the DC-OPF dispatch of the same problem (the
// SCOPF's where no post-contingency limit binds); an infeasible step falls back as documented.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/envs/counting_policy.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/envs/unit_commitment.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/grid/dc/scopf.hpp"
#include "powerzoo/tasks/tso.hpp"
#include "powerzoo/tasks/tso_scopf.hpp"
#include "test_grid_util.hpp"
#include "test_scopf_util.hpp"

using namespace pz;

namespace {

using test::brute_force_n1_overloads;
using test::max_abs_diff;

std::shared_ptr<const envs::UnitCommitment> tso_env(const std::string& split) {
  const auto spec = exp::parse_spec("[env]\ntask = \"tso\"\n", "s.toml");
  auto env = std::dynamic_pointer_cast<const envs::UnitCommitment>(exp::make_env(spec, split));
  REQUIRE(env);
  return env;
}

/// The same env with every rating × scale.
std::shared_ptr<const envs::UnitCommitment> rescaled(const envs::UnitCommitment& env,
                                                     double scale) {
  envs::UnitCommitmentParams p = env.params();
  for (auto& br : p.grid_case.branch) br.rate_a_mva *= scale;
  return std::make_shared<const envs::UnitCommitment>(p);
}

/// The env of `split` with its ratings × the first scale of 1, 1.25, 1.5, 2, 3, 5 at which the
/// scopf baseline secures one of the first 8 steps of seed 3's episode (with the 8° ratings the
/// merit-order units inside their ramp windows are never N-1 secure: docs/tasks/tso.md).
std::shared_ptr<const envs::UnitCommitment> securable(const std::string& split) {
  const auto base = tso_env(split);
  for (double scale : {1.0, 1.25, 1.5, 2.0, 3.0, 5.0}) {
    auto env = scale == 1.0 ? base : rescaled(*base, scale);
    auto st = env->make_state();
    core::Rng rng(3, 0);
    std::vector<float> obs(env->spec().obs_dim), costs(3);
    env->reset(*st, rng, obs);
    const tasks::TsoScopf model(env);
    for (int t = 0; t < 8; ++t) {
      const tasks::TsoScopfDecision d = model.decide(obs);
      if (d.outcome == tasks::TsoScopfOutcome::kSecured) {
        MESSAGE(split << ": ratings x " << scale << " secure step " << t);
        return env;
      }
      env->step(*st, d.action, rng, obs, costs, nullptr);
    }
  }
  FAIL("no rating scale up to 5 secures one of the first 8 steps");
  return base;
}

}  // namespace

TEST_SUITE("tasks_tso_scopf") {
  TEST_CASE("the dispatch is grid::solve_scopf's on the env's commitment, loads and windows") {
    const auto env = securable("iid");
    const tasks::TsoScopf model(env);
    const auto merit = tasks::tso_baseline("merit_order", env);
    REQUIRE(merit);
    auto st = env->make_state();
    core::Rng rng(3, 0);
    const int nu = env->n_units(), act_dim = env->spec().act_dim;
    std::vector<float> obs(env->spec().obs_dim), costs(3), merit_a(act_dim);
    env->reset(*st, rng, obs);
    const auto& s = static_cast<const envs::UnitCommitment::UcState&>(*st);
    int secured = 0;
    for (int t = 0; t < 12; ++t) {
      const tasks::TsoScopfDecision d = model.decide(obs);
      // The commitment is merit_order's, the dispatch preferences 0.
      (*merit)(obs.data(), 1, merit_a.data());
      for (int i = 0; i < act_dim; ++i) CHECK(d.action[i] == merit_a[i]);
      // The step's loads are the env's (read back through a float: 1e-7 relative).
      double pd = 0;
      for (const auto& b : d.step_case.bus) pd += b.pd_mw;
      const double load = env->total_load(s.start + s.t);
      CHECK(std::abs(pd - load) <= 1e-6 * load);
      // The windows are the env's: [max(pmin, last − ramp down), min(pmax, last + ramp up)].
      for (int u = 0; u < nu; ++u) {
        const auto& un = env->params().units[u];
        const auto& g = d.step_case.gen[u];
        if (!d.on[u]) {
          CHECK(g.status == 0);
          continue;
        }
        CHECK(std::abs(g.pmax_mw - std::min(un.pmax, s.last[u] + un.ramp_up_mw)) <= 1e-4);
        CHECK(g.pmin_mw <= g.pmax_mw);
      }
      if (d.outcome == tasks::TsoScopfOutcome::kSecured) {
        ++secured;
        const grid::ScopfResult ref = grid::solve_scopf(d.step_case);
        REQUIRE(ref.ok());
        CHECK(max_abs_diff(d.dispatch, ref.gen_pg_mw) <= 1e-9);
        CHECK(ref.objective >= ref.dcopf_objective - 1e-9);
        if (t % 4 == 0) CHECK(brute_force_n1_overloads(d.step_case, d.dispatch, 1e-6) == 0);
        // The screen the baseline counts with agrees with grid::screen_n1 (no overloads).
        CHECK(model.screen(d.step_case, d.dispatch).overloads == 0);
      }
      envs::Info info;
      env->step(*st, d.action, rng, obs, costs, &info);
    }
    CHECK(secured > 0);
  }

  TEST_CASE("through the env the action yields the DC-OPF dispatch of the same problem") {
    // The TSO action carries a commitment and a linear cost bias, not a dispatch: the env
    // re-dispatches by its DC-OPF with base-case limits. That is the SCOPF's dispatch exactly
    // where no post-contingency limit binds, and the DC-OPF's where one does.
    for (const std::string split : {"iid", "line_tightening", "iid_securable"}) {
      CAPTURE(split);
      const auto env = split == "iid_securable" ? securable("iid") : tso_env(split);
      const tasks::TsoScopf model(env);
      auto st = env->make_state();
      core::Rng rng(1, 0);
      std::vector<float> obs(env->spec().obs_dim), costs(3);
      env->reset(*st, rng, obs);
      const auto& s = static_cast<const envs::UnitCommitment::UcState&>(*st);
      int same_as_scopf = 0, binds = 0, compared = 0;
      for (int t = 0; t < env->spec().horizon; ++t) {
        const tasks::TsoScopfDecision d = model.decide(obs);
        envs::Info info;
        env->step(*st, d.action, rng, obs, costs, &info);
        if (d.dcopf_pg.empty()) continue;
        ++compared;
        // Loads and windows come through float observations (~1e-4 MW on case118's units).
        CHECK(max_abs_diff(s.last, d.dcopf_pg) <= 1e-3);
        CHECK(costs[0] <= 1e-6);  // the DC-OPF meets the base-case ratings
        if (d.outcome == tasks::TsoScopfOutcome::kSecured && !d.security_binds) {
          ++same_as_scopf;
          CHECK(max_abs_diff(s.last, d.dispatch) <= 1e-3);
        }
        binds += d.security_binds;
      }
      CHECK(compared > 0);
      if (split == "iid_securable") CHECK(same_as_scopf > 0);
      MESSAGE(split << ": " << compared << " steps, " << same_as_scopf
                    << " reproduced the SCOPF, security bound on " << binds);
    }
  }

  TEST_CASE("an N-1 infeasible step falls back to the DC-OPF dispatch, an unservable one to none") {
    // With the 8° ratings × 0.85 the merit-order units cannot be N-1 secure: the first step
    // whose DC-OPF solves is an infeasible SCOPF.
    const auto tight_env = tso_env("line_tightening");
    const tasks::TsoScopf tight_model(tight_env);
    const auto& env = tight_env;
    const auto& model = tight_model;
    auto st = env->make_state();
    core::Rng rng(2, 0);
    std::vector<float> obs(env->spec().obs_dim), costs(3);
    env->reset(*st, rng, obs);
    tasks::TsoScopfDecision f;
    for (int t = 0; t < env->spec().horizon; ++t) {
      f = model.decide(obs);
      if (!f.dcopf_pg.empty()) break;
      env->step(*st, f.action, rng, obs, costs, nullptr);
    }
    REQUIRE(!f.dcopf_pg.empty());
    CHECK(f.outcome == tasks::TsoScopfOutcome::kInfeasible);
    CHECK(f.scopf.status == grid::DcOpfStatus::kInfeasible);
    CHECK(max_abs_diff(f.dispatch, f.dcopf_pg) == 0.0);
    CHECK(tight_model.screen(f.step_case, f.dispatch).overloads > 0);
    // The policy counts it.
    const auto fn = tasks::tso_scopf_baseline(tight_env);
    REQUIRE(fn);
    std::vector<float> a(env->spec().act_dim);
    (*fn)(obs.data(), 1, a.data());
    const auto counts = envs::policy_counts(*fn);
    CHECK(counts.at("steps") == 1);
    CHECK(counts.at("infeasible_steps") == 1);
    CHECK(counts.at("secured_steps") == 0);
    CHECK(counts.at("n1_insecure_steps/baseline_dispatch") == 1);
    // A load beyond every committed unit's window: no DC-OPF either, no dispatch.
    std::vector<float> heavy = obs;
    heavy[env->spec().obs_field("total_load").offset] *= 3.0f;
    const tasks::TsoScopfDecision h = model.decide(heavy);
    CHECK(h.outcome == tasks::TsoScopfOutcome::kNoDispatch);
    CHECK(h.dispatch.empty());
    CHECK(h.dcopf_pg.empty());
  }
}
