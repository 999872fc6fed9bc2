// Tests of trans_grid's OPF baselines: `dcopf` through the action reproduces the env's own OPF
// mode; `scopf`'s dispatch is grid::solve_scopf's on the step's loads, N-1 secure by brute-force
// re-solves, and the env realizes it from the action; infeasible steps fall back as documented.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/envs/counting_policy.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/envs/trans_grid/trans_grid_baselines.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/grid/dc/scopf.hpp"
#include "test_grid_util.hpp"
#include "test_scopf_util.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

std::shared_ptr<const envs::TransGrid> case5_env(const std::string& extra) {
  const auto spec = exp::parse_spec(
      "[env]\nid = \"trans_grid\"\ncase = \"case5\"\nhorizon = 48\n" + extra, "s.toml");
  auto env = std::dynamic_pointer_cast<const envs::TransGrid>(exp::make_env(spec, "iid"));
  REQUIRE(env);
  return env;
}

using test::brute_force_n1_overloads;
using test::max_abs_diff;

/// The unit outputs of a DC trans_grid state (slack-adjusted) as [n_gen].
std::vector<double> realized(const envs::TransGrid& env, const envs::State& st) {
  const auto& s = static_cast<const envs::TransGrid::GridState&>(st);
  std::vector<double> pg(env.params().grid_case.n_gen(), 0.0);
  for (int u = 0; u < env.n_units(); ++u) pg[env.unit_gen()[u]] = s.p_mw[u];
  return pg;
}

}  // namespace

TEST_SUITE("envs_trans_grid_baselines") {
  TEST_CASE("dcopf through the action reproduces the env's OPF mode") {
    const auto agent = case5_env("load_scale = 0.8\n");
    const auto opf = case5_env("load_scale = 0.8\ndispatch = \"dcopf\"\n");
    const envs::EnvEntry& entry = *envs::find_env("trans_grid");
    const envs::PolicyFn fn = envs::make_baseline(entry, "dcopf", agent);
    auto sa = agent->make_state(), so = opf->make_state();
    core::Rng ra(4, 0), ro(4, 0);
    const int nu = agent->n_units();
    std::vector<float> oa(agent->spec().obs_dim), oo(oa.size()), ca(4), co(4), a(nu), zero(nu);
    agent->reset(*sa, ra, oa);
    opf->reset(*so, ro, oo);
    for (int t = 0; t < 48; ++t) {
      fn(oa.data(), 1, a.data());
      envs::Info ia, io;
      const envs::Step xa = agent->step(*sa, a, ra, oa, ca, &ia);
      const envs::Step xo = opf->step(*so, zero, ro, oo, co, &io);
      REQUIRE(io.status == envs::StepStatus::kOk);
      // The baseline keeps 1e-3 MW inside the ratings and the slack unit's limits (room for
      // the float action), so the env meets every limit exactly and the OPF's dispatch to 0.05 MW.
      CHECK(max_abs_diff(realized(*agent, *sa), realized(*opf, *so)) <= 0.05);
      CHECK(std::abs(ia.gen_cost - io.gen_cost) <= 1e-5 * io.gen_cost);
      CHECK(ca[0] == 0.0f);
      CHECK(ca[2] == 0.0f);
      CHECK(xa.truncated == xo.truncated);
    }
    const auto counts = envs::policy_counts(fn);
    CHECK(counts.at("steps") == 48);
    CHECK(counts.at("solved_steps") == 48);
  }

  // Guards against the baselines solving the intact case under outages (a user trial found the
  // dcopf baseline's dispatch unchanged by a held branch outage).
  TEST_CASE("regression: dcopf under outages reproduces the env's OPF mode on the edited network") {
    const std::string out = "load_scale = 0.8\noutages = \"" + std::string(PZ_SOURCE_DIR) +
                            "/examples/outages/case5_branch2.csv\"\n";
    const auto agent = case5_env(out);
    const auto opf = case5_env(out + "dispatch = \"dcopf\"\n");
    const envs::PolicyFn fn = envs::make_baseline(*envs::find_env("trans_grid"), "dcopf", agent);
    auto sa = agent->make_state(), so = opf->make_state();
    core::Rng ra(4, 0), ro(4, 0);
    const int nu = agent->n_units();
    const size_t nc = agent->spec().cost_names.size();
    std::vector<float> oa(agent->spec().obs_dim), oo(oa.size()), ca(nc), co(nc), a(nu), zero(nu);
    agent->reset(*sa, ra, oa);
    opf->reset(*so, ro, oo);
    int out_steps = 0;
    for (int t = 0; t < 48; ++t) {
      const auto& st = static_cast<const envs::TransGrid::GridState&>(*sa);
      for (uint8_t on : st.out.branch_on) out_steps += !on;
      fn(oa.data(), 1, a.data());
      envs::Info ia, io;
      agent->step(*sa, a, ra, oa, ca, &ia);
      opf->step(*so, zero, ro, oo, co, &io);
      REQUIRE(io.status == envs::StepStatus::kOk);
      CHECK(max_abs_diff(realized(*agent, *sa), realized(*opf, *so)) <= 0.05);
      CHECK(std::abs(ia.gen_cost - io.gen_cost) <= 1e-5 * io.gen_cost);
      CHECK(ca[0] == 0.0f);  // no overload on the edited network
    }
    CHECK(out_steps == 48);  // branch 2 (1-4) out all episode
    CHECK(envs::policy_counts(fn).count("outage_fallback_steps") == 0);
  }

  TEST_CASE("regression: dcopf with the reference bus's unit out meets the balance") {
    // Gen row 4, bus 4's only unit, out all episode: the reference moves to bus 1, whose units
    // then take the env's rounding (a user trial: 3e-5 MW of power_balance on 22 steps).
    const std::string csv = test::write(test::tmp_dir("pz_tg_baselines", "ref") / "ref.csv",
                                        "step,element,index,status\n0,gen,4,0\n");
    const auto env = case5_env("load_scale = 0.7\noutages = \"" + csv + "\"\n");
    const envs::PolicyFn fn = envs::make_baseline(*envs::find_env("trans_grid"), "dcopf", env);
    auto st = env->make_state();
    core::Rng rng(5, 0);
    const auto& names = env->spec().cost_names;
    const size_t balance = std::find(names.begin(), names.end(), "power_balance") - names.begin();
    REQUIRE(balance < names.size());
    std::vector<float> obs(env->spec().obs_dim), costs(names.size()), a(env->n_units());
    env->reset(*st, rng, obs);
    int solved = 0;
    for (int t = 0; t < 48; ++t) {
      CAPTURE(t);
      fn(obs.data(), 1, a.data());
      envs::Info info;
      env->step(*st, a, rng, obs, costs, &info);
      CHECK(costs[balance] == 0.0f);
      solved += envs::policy_counts(fn).count("outage_fallback_steps") == 0;
    }
    CHECK(solved == 48);
  }

  TEST_CASE("scopf: grid::solve_scopf's dispatch of the step's loads, realized by the env") {
    const auto env = case5_env("load_scale = 0.6\n");
    auto st = env->make_state();
    core::Rng rng(7, 0);
    std::vector<float> obs(env->spec().obs_dim), costs(4);
    env->reset(*st, rng, obs);
    const auto& s = static_cast<const envs::TransGrid::GridState&>(*st);
    std::vector<double> load;
    int secured = 0, binds = 0;
    for (int t = 0; t < 48; ++t) {
      const envs::OpfBaselineDecision d = envs::decide_opf_baseline(*env, obs, true);
      // The step's loads are the env's (through a float observation).
      env->bus_load(s.start + s.t, load);
      for (int b = 0; b < d.step_case.n_bus(); ++b)
        CHECK(std::abs(d.step_case.bus[b].pd_mw - load[b]) <= 1e-6 * std::max(1.0, load[b]));
      envs::Info info;
      env->step(*st, d.action, rng, obs, costs, &info);
      if (d.outcome != envs::OpfBaselineOutcome::kSolved) continue;
      ++secured;
      binds += d.security_binds;
      const grid::ScopfResult ref = grid::solve_scopf(d.step_case);
      REQUIRE(ref.ok());
      CHECK(max_abs_diff(d.dispatch, ref.gen_pg_mw) <= 1e-9);
      CHECK(ref.objective >= ref.dcopf_objective - 1e-9);
      if (t % 6 == 0) CHECK(brute_force_n1_overloads(d.step_case, d.dispatch, 1e-6) == 0);
      CHECK(max_abs_diff(realized(*env, *st), d.dispatch) <= 1e-3);
      CHECK(costs[0] == 0.0f);
      CHECK(costs[2] == 0.0f);
    }
    CHECK(secured > 0);
    MESSAGE("case5 at load_scale 0.6: " << secured << " of 48 steps secured, security bound on "
                                        << binds);
  }

  TEST_CASE("scopf falls back to the DC-OPF where N-1 is infeasible, to p_max without a DC-OPF") {
    const auto env = case5_env("load_scale = 0.6\n");
    auto st = env->make_state();
    core::Rng rng(7, 0);
    std::vector<float> obs(env->spec().obs_dim);
    env->reset(*st, rng, obs);
    // Scale the observed loads until the SCOPF is infeasible while the DC-OPF is not.
    const int i_load = env->spec().obs_field("load").offset;
    const int n_load = env->spec().obs_field("load").size;
    bool found = false;
    envs::OpfBaselineDecision d;
    std::vector<float> o = obs;
    for (double scale = 1.0; scale < 4.0 && !found; scale *= 1.05) {
      for (int i = 0; i < n_load; ++i) o[i_load + i] = static_cast<float>(obs[i_load + i] * scale);
      d = envs::decide_opf_baseline(*env, o, true);
      found = d.outcome == envs::OpfBaselineOutcome::kFallback;
    }
    REQUIRE(found);
    CHECK(d.scopf.status == grid::DcOpfStatus::kInfeasible);
    CHECK(max_abs_diff(d.dispatch, d.dcopf_pg) == 0.0);
    CHECK(d.action == envs::action_for_dispatch(*env, d.dcopf_pg));
    const envs::EnvEntry& entry = *envs::find_env("trans_grid");
    const envs::PolicyFn fn = envs::make_baseline(entry, "scopf", env);
    std::vector<float> a(env->n_units());
    fn(o.data(), 1, a.data());
    CHECK(a == d.action);
    const auto counts = envs::policy_counts(fn);
    CHECK(counts.at("infeasible_steps") == 1);
    CHECK(counts.at("secured_steps") == 0);
    CHECK(counts.at("n1_insecure_steps/baseline_dispatch") == 1);
    // Beyond the units' capacity: no DC-OPF, every unit at p_max (action +1).
    for (int i = 0; i < n_load; ++i) o[i_load + i] = obs[i_load + i] * 10.0f;
    const envs::OpfBaselineDecision h = envs::decide_opf_baseline(*env, o, true);
    CHECK(h.outcome == envs::OpfBaselineOutcome::kNoDispatch);
    for (float v : h.action) CHECK(v == 1.0f);
  }

  TEST_CASE("the OPF baselines refuse an env that ignores the action") {
    const auto opf = case5_env("dispatch = \"dcopf\"\n");
    const envs::EnvEntry& entry = *envs::find_env("trans_grid");
    std::string msg;
    try {
      envs::make_baseline(entry, "scopf", opf);
    } catch (const core::ConfigError& e) {
      msg = e.what();
    }
    CHECK(msg.find("--policy scopf: expected [env] dispatch = \"agent\"") != std::string::npos);
    CHECK(msg.find("found dispatch = \"dcopf\"") != std::string::npos);
  }
}
