// gencos_market under outages: with any one branch of case5 out, or a unit out, the clearing
// equals the DC-OPF of the edited offer case (grid::DcOpf, the `grid dcopf --out-of-service`
// solve) on the same offers and windows; islands per MATPOWER (a load bus cut off without a unit
// is de-energized and its load unserved, a unit's bus cut off clears on its own); the
// observation, costs, traces and save/load carry the status; the n1 splits of the task.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/gencos_market.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/market/clearing.hpp"
#include "status_obs_util.hpp"
#include "trace_status_util.hpp"

using namespace pz;

namespace {

// The task's env on case5 with one load row (every step clears 450/550/380 MW at buses 2/3/4:
// 1380 MW, enough to congest branch 6 (4-5, 240 MW) once a path is out).
envs::GencosParams params(std::vector<data::OutageEvent> events) {
  auto env = std::dynamic_pointer_cast<const envs::GencosMarket>(
      exp::make_env(exp::parse_spec("[env]\ntask = \"gencos\"\nhorizon = 6\n", "s.toml"), "iid"));
  envs::GencosParams p = env->params();
  p.loads_mw = {450, 550, 380};
  p.outages = envs::OutageParams{};
  p.outages.schedule.path = "test.csv";
  for (auto& e : events) p.outages.schedule.events.push_back(e);
  return p;
}

data::OutageEvent out_at0(data::OutageElement el, int row1) { return {0, el, row1, 0, 2}; }

struct Stepped {
  std::vector<double> pd, prices, lo, hi;
  market::ClearingResult r;
  std::vector<float> obs, costs, trace;
};

// Reset, then one step with markups a = 0.6·sin(i + 1) (offers above cost, unequal).
Stepped step_once(const envs::GencosMarket& env) {
  auto st = env.make_state();
  core::Rng rng(3, 0);
  Stepped s;
  s.obs.resize(env.spec().obs_dim);
  s.costs.resize(env.spec().cost_names.size());
  env.reset(*st, rng, s.obs, {});
  const auto& p = env.params();
  const int nu = env.n_units(), k = p.segments;
  std::vector<float> a(env.spec().act_dim);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(0.6 * std::sin(i + 1.0));
  s.prices.resize(static_cast<size_t>(nu) * k);
  market::offer_prices(env.market().base_prices(), a, k, p.max_markup, s.prices);
  s.lo.resize(nu);
  s.hi.resize(nu);
  market::ramp_window(p.units, env.last_clearing(*st).p_mw, p.ramp_up_mw, p.ramp_down_mw, s.lo,
                      s.hi);
  s.pd.assign(p.grid_case.n_bus(), 0.0);
  for (size_t d = 0; d < p.load_bus_idx.size(); ++d) s.pd[p.load_bus_idx[d]] += p.loads_mw[d];
  envs::Info info;
  env.step(*st, a, rng, s.obs, s.costs, &info);
  s.r = env.last_clearing(*st);
  s.trace.resize(64);
  env.write_trace(*st, s.trace);
  return s;
}

// The DC-OPF of the market's offer case with branch rows (0-based) out, unit `gen_out` out
// (GEN_STATUS 0: the offer withdrawn) and bus `dead` de-energized (type 4, its load and units
// gone): the offers as piecewise-linear prices, the windows as unit bounds, shed/spill at VOLL.
grid::DcOpfResult reference(const envs::GencosMarket& env, const Stepped& s,
                            const std::vector<int>& branches_out, int gen_out = -1, int dead = -1) {
  grid::Case c = env.market().offer_case();
  for (int l : branches_out) c.branch[l].status = 0;
  std::vector<double> pd = s.pd;
  if (dead >= 0) {
    c.bus[dead].type = 4;
    pd[dead] = 0;
    for (auto& g : c.gen)
      if (g.bus == c.bus[dead].id) g.status = 0;
  }
  if (gen_out >= 0) c.gen[gen_out].status = 0;
  // Read as `grid dcopf --out-of-service` reads it: a reference bus left without a unit hands
  // the reference (and the balance slack) to the first PV bus with one.
  c.finalize();
  c = grid::energize(c);
  grid::DcOpf opf(c);
  grid::DcOpfOverrides o;
  o.balance_slack_cost = market::Clearing::kVoll;
  const int k = env.params().segments;
  for (int u = 0; u < env.n_units(); ++u) {
    const bool off = u == gen_out;
    o.pmin_mw.push_back(off ? 0.0 : s.lo[u]);
    o.pmax_mw.push_back(off ? 0.0 : s.hi[u]);
    if (c.gen[u].status > 0)
      o.pwl_prices.insert(o.pwl_prices.end(), s.prices.begin() + u * k,
                          s.prices.begin() + (u + 1) * k);
  }
  grid::DcOpfResult r = opf.solve(pd, o);
  if (r.status == grid::DcOpfStatus::kInfeasible) {  // as the clearing: ratings dropped
    o.line_limits = false;
    r = opf.solve(pd, o);
    CHECK(s.r.lines_relaxed);
  }
  return r;
}

void check_equal(const Stepped& s, const grid::DcOpfResult& ref, int dead = -1) {
  REQUIRE(ref.ok());
  for (size_t u = 0; u < s.r.p_mw.size(); ++u)
    CHECK(s.r.p_mw[u] == doctest::Approx(ref.gen_pg_mw[u]).epsilon(1e-9));
  for (size_t b = 0; b < s.r.lmp.size(); ++b)
    if (static_cast<int>(b) != dead)
      CHECK(s.r.lmp[b] == doctest::Approx(ref.bus_lam_p[b]).epsilon(1e-7));
  for (size_t l = 0; l < s.r.flow_mw.size(); ++l)
    CHECK(s.r.flow_mw[l] == doctest::Approx(ref.branch_pf_mw[l]).epsilon(1e-9));
}

}  // namespace

TEST_SUITE("envs_gencos_outages") {
  TEST_CASE(
      "every branch of case5 out: dispatch, LMPs and flows of the DC-OPF of the edited case") {
    bool congested = false;
    for (int l = 0; l < 6; ++l) {
      CAPTURE(l + 1);
      const envs::GencosMarket env(params({out_at0(data::OutageElement::kBranch, l + 1)}));
      const Stepped s = step_once(env);
      const grid::DcOpfResult ref = reference(env, s, {l});
      check_equal(s, ref);
      CHECK(s.r.flow_mw[l] == 0.0);
      // case5 has no bridge: nothing is cut off; the unserved load is the OPF's shed at VOLL.
      CHECK(s.costs[1] == doctest::Approx(std::max(ref.balance_slack_mw, 0.0)).epsilon(1e-6));
      congested = congested || !ref.binding_branches.empty();
    }
    CHECK(congested);  // some outage congests the network (the LMPs then differ by bus)
  }

  TEST_CASE("a unit out: its offer withdrawn (0 MW, profit 0), the rest as the DC-OPF") {
    for (int u = 0; u < 5; ++u) {
      CAPTURE(u);
      const envs::GencosMarket env(params({out_at0(data::OutageElement::kGen, u + 1)}));
      const Stepped s = step_once(env);
      check_equal(s, reference(env, s, {}, u));
      CHECK(s.r.p_mw[u] == 0.0);
      // gen_status in every agent's block (after the 8 + 4 features), 0 for the out unit.
      const int per = env.spec().obs_dim / 5;
      CHECK(per == 8 + 4 + 6 + 5);
      for (int a = 0; a < 5; ++a)
        for (int v = 0; v < 5; ++v) CHECK(s.obs[a * per + 18 + v] == (v == u ? 0.0f : 1.0f));
    }
  }

  TEST_CASE("bus 2 cut off (branches 1 and 4 out): de-energized, its 450 MW unserved") {
    const envs::GencosMarket env(params(
        {out_at0(data::OutageElement::kBranch, 1), out_at0(data::OutageElement::kBranch, 4)}));
    const Stepped s = step_once(env);
    check_equal(s, reference(env, s, {0, 3}, -1, 1), 1);
    CHECK(s.r.lmp[1] == 0.0);
    CHECK(s.costs[1] == doctest::Approx(450.0));
    REQUIRE(env.spec().cost_names.size() == 3);
    CHECK(env.spec().cost_names[1] == "unserved_load");
  }

  TEST_CASE("bus 3 cut off with its unit (branches 4 and 5 out): it clears on its own") {
    const envs::GencosMarket env(params(
        {out_at0(data::OutageElement::kBranch, 4), out_at0(data::OutageElement::kBranch, 5)}));
    const Stepped s = step_once(env);
    // Unit 2 (gen row 3, bus 3) serves bus 3's 550 MW alone within its window, the rest shed.
    const double p3 = std::clamp(550.0, s.lo[2], s.hi[2]);
    CHECK(s.r.p_mw[2] == doctest::Approx(p3).epsilon(1e-12));
    CHECK(s.costs[1] == doctest::Approx(550.0 - p3 + 0.0).epsilon(1e-9));
    // The main island is the DC-OPF of the case without bus 3.
    const grid::DcOpfResult ref = reference(env, s, {3, 4}, -1, 2);
    REQUIRE(ref.ok());
    for (int u : {0, 1, 3, 4})
      CHECK(s.r.p_mw[u] == doctest::Approx(ref.gen_pg_mw[u]).epsilon(1e-9));
    for (int b : {0, 1, 3, 4}) CHECK(s.r.lmp[b] == doctest::Approx(ref.bus_lam_p[b]).epsilon(1e-7));
    CHECK(s.r.flow_mw[3] == 0.0);
    CHECK(s.r.flow_mw[4] == 0.0);
  }

  TEST_CASE("traces carry the status; save/load mid-outage continues the episode exactly") {
    data::OutageEvent back{3, data::OutageElement::kBranch, 2, 1, 3};
    const envs::GencosMarket env(params({out_at0(data::OutageElement::kBranch, 2), back}));
    REQUIRE(env.spec().trace_vectors.size() == 5);
    CHECK(env.spec().trace_vectors[3].name == "branch_status");
    auto a = env.make_state(), b = env.make_state();
    core::Rng ra(5, 0);
    std::vector<float> obs(env.spec().obs_dim), obs_b(env.spec().obs_dim), c(3), cb(3);
    std::vector<float> act(env.spec().act_dim, 0.2f);
    env.reset(*a, ra, obs, {});
    env.step(*a, act, ra, obs, c, nullptr);
    std::vector<float> tr(5 + 5 + 6 + 6 + 5);
    env.write_trace(*a, tr);
    CHECK(tr[16 + 1] == 0.0f);  // branch 2 out at step 0
    CHECK(tr[16 + 0] == 1.0f);
    std::vector<double> saved;
    env.save_state(*a, saved);
    CHECK(env.load_state(*b, saved) == saved.size());
    core::Rng rb = ra;
    for (int t = 1; t < 6; ++t) {
      const auto sa = env.step(*a, act, ra, obs, c, nullptr);
      const auto sb = env.step(*b, act, rb, obs_b, cb, nullptr);
      CHECK(sa.reward == sb.reward);
      CHECK(obs == obs_b);
      CHECK(env.outage_state(*a).branch_on[1] == (t + 1 >= 3 ? 1 : 0));
    }
  }

  TEST_CASE("trace rows hold the status each step cleared with") {
    // A user trial read info/branch_status[t] next to the costs of step t and found the status of
    // step t + 1. Branches 1 and 4 out for steps 2 and 3 cut off bus 2 (450 MW, no unit), and unit
    // 1 is out for the same steps: their rows show them out, 0 MW on the branches and the unit and
    // bus 2's load unserved; the rows before and after show them in.
    using E = data::OutageElement;
    const envs::GencosMarket env(params({{2, E::kBranch, 1, 0, 2},
                                         {2, E::kBranch, 4, 0, 3},
                                         {2, E::kGen, 1, 0, 4},
                                         {4, E::kBranch, 1, 1, 5},
                                         {4, E::kBranch, 4, 1, 6},
                                         {4, E::kGen, 1, 1, 7}}));
    const test::TracedRun r = test::run_traced(env, 6);
    for (int l : {0, 3})
      test::check_status_rows(env, r, "branch_status", l, 2, 4, "genco_0/branch_status");
    test::check_status_rows(env, r, "gen_status", 0, 2, 4, "genco_0/gen_status");
    const envs::EnvSpec& sp = env.spec();
    for (int t = 0; t < 6; ++t) {
      CAPTURE(t);
      const bool out = t == 2 || t == 3;
      for (int l : {0, 3}) {
        const float flow = test::trace_value(sp, r.trace[t], "branch_p_mw", l);
        if (out)
          CHECK(flow == 0.0f);
        else
          CHECK(std::abs(flow) > 1.0f);
      }
      if (out) CHECK(test::trace_value(sp, r.trace[t], "unit_p_mw", 0) == 0.0f);
      const float unserved = test::cost_value(sp, r.costs[t], "unserved_load");
      if (out)
        CHECK(unserved >= 450.0f - 1e-3f);
      else
        CHECK(unserved < 1.0f);
    }
  }

  TEST_CASE("without outage keys nothing is added; the n1 splits add one outage per episode") {
    auto plain = std::dynamic_pointer_cast<const envs::GencosMarket>(
        exp::make_env(exp::parse_spec("[env]\ntask = \"gencos\"\n", "s.toml"), "iid"));
    CHECK(plain->spec().obs_dim == 5 * 12);
    CHECK(plain->spec().cost_names.size() == 1);
    CHECK(!plain->outages().active());
    for (const char* split : {"n1_branch", "n1_gen"}) {
      // Without outage keys the status stays out of the observation (outage_status_obs = auto),
      // so a policy trained without outages evaluates on the split; true shows it.
      CHECK(exp::make_env(exp::parse_spec("[env]\ntask = \"gencos\"\n", "s.toml"), split)
                ->spec()
                .obs_dim == 5 * 12);
      auto e = std::dynamic_pointer_cast<const envs::GencosMarket>(exp::make_env(
          exp::parse_spec("[env]\ntask = \"gencos\"\noutage_status_obs = true\n", "s.toml"),
          split));
      CHECK(e->spec().obs_dim == 5 * (12 + 6 + 5));
      CHECK(e->params().outages.n1_steps == 24);
      auto st = e->make_state();
      core::Rng rng(1, 0);
      std::vector<float> obs(e->spec().obs_dim);
      e->reset(*st, rng, obs, {});
      const envs::OutageState& o = e->outage_state(*st);
      CHECK(o.n1_row >= 0);
      CHECK(o.n1_start >= 0);
      CHECK(o.n1_start <= 48 - 24);
    }
    try {
      exp::make_env(exp::parse_spec("[env]\ntask = \"gencos\"\noutage_n1 = \"gen\"\n", "s.toml"),
                    "n1_branch");
      FAIL("expected a ConfigError");
    } catch (const core::ConfigError& err) {
      CHECK(std::string(err.what())
                .find("outage_n1: split \"n1_branch\" sets outage_n1 = "
                      "\"branch\" (expected \"none\" or \"branch\")") != std::string::npos);
    }
  }

  TEST_CASE("outage_status_obs = false: no status in any agent's block, the same steps") {
    const auto spec = [](const char* v) {
      return exp::parse_spec(std::string("[env]\ntask = \"gencos\"\noutage_rate = 0.05\n"
                                         "outage_elements = \"branch,gen\"\n"
                                         "outage_duration_steps = 3\noutage_status_obs = ") +
                                 v + "\n",
                             "s.toml");
    };
    const auto seeing = exp::make_env(spec("true"), "iid");
    const auto blind = exp::make_env(spec("false"), "iid");
    CHECK(blind->spec().obs_dim == 5 * 12);
    CHECK(seeing->spec().obs_dim == 5 * (12 + 6 + 5));
    CHECK(test::check_blind_steps_as_seeing(*blind, *seeing, 48) > 0);
  }
}

TEST_SUITE("envs_gencos_outages") {
  // Issue 36 (a user trial): every unit out is an outcome, as in trans_grid: no market clears,
  // every bus is de-energized and all 1380 MW are unserved; the episode runs on and clears again
  // once unit 1 is back (climbing from 0 MW, the rest shed at VOLL).
  TEST_CASE("regression: every unit out runs to the horizon with all load unserved") {
    std::vector<data::OutageEvent> ev;
    for (int g = 1; g <= 5; ++g) ev.push_back({1, data::OutageElement::kGen, g, 0, g});
    ev.push_back({3, data::OutageElement::kGen, 1, 1, 6});
    const envs::GencosMarket env(params(ev));
    auto st = env.make_state();
    core::Rng rng(3, 0);
    std::vector<float> obs(env.spec().obs_dim), costs(env.spec().cost_names.size());
    std::vector<float> a(env.spec().act_dim, 0.1f);
    env.reset(*st, rng, obs, {});
    REQUIRE(env.spec().cost_names[1] == "unserved_load");
    for (int t = 0; t < 6; ++t) {
      CAPTURE(t);
      envs::Info info;
      const envs::Step r = env.step(*st, a, rng, obs, costs, &info);
      CHECK(info.status == envs::StepStatus::kOk);
      CHECK(!r.terminated);
      CHECK(r.truncated == (t == 5));
      for (float v : obs) CHECK(std::isfinite(v));
      const auto& p = env.last_clearing(*st).p_mw;
      double pg = 0;
      for (double v : p) pg += v;
      if (t == 1 || t == 2) {
        CHECK(pg == 0.0);
        CHECK(costs[1] == doctest::Approx(1380.0));
        CHECK(!info.is_safe);
      } else if (t >= 3) {
        CHECK(p[0] > 0.0);  // unit 1 serves what its ramp window allows
        CHECK(pg == doctest::Approx(p[0]));
        CHECK(costs[1] == doctest::Approx(1380.0 - p[0]).epsilon(1e-9));
      }
    }
  }
}
