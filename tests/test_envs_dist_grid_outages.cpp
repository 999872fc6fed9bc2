// dist_grid and dist_grid_marl under branch outages: after every single-line outage of case33bw
// (and two at once) the energized part's power flow equals the radial power flow of the case with
// the cut-off buses and their branches deleted, the cut-off demand is the unserved_load channel,
// devices there are idle, the observation and traces carry branch_status, the state restores
// exactly, gen outages are refused, and the n1_branch splits take one line out for 12 steps.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/dist_grid.hpp"
#include "powerzoo/envs/dist_grid_marl.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dist/distflow.hpp"
#include "status_obs_util.hpp"
#include "test_env_util.hpp"
#include "test_util.hpp"
#include "trace_status_util.hpp"

using namespace pz;

namespace {

grid::Case case33() { return grid::load_case(grid::resolve_case_path("case33bw")); }

data::OutageSchedule at_step0(data::OutageElement el, const std::vector<int>& rows) {
  data::OutageSchedule s;
  s.path = "test.csv";
  for (int r : rows) s.events.push_back({0, el, r, 0, 2});
  return s;
}

envs::DistGridParams plain_params(data::OutageSchedule sched) {
  envs::DistGridParams p;
  p.grid_case = case33();
  p.horizon = 4;
  p.include_der = false;
  p.v_slack = 1.045;
  p.outages.schedule = std::move(sched);
  return p;
}

// The case with branch rows `out` (1-based) deleted, and every bus they cut off from the
// substation (bus id 1) deleted with its branches; keep[b] = position in the result or −1.
grid::Case cut_case(const grid::Case& c, const std::vector<int>& out, std::vector<int>& keep) {
  const int nb = c.n_bus();
  std::vector<char> reach(nb, 0), off(c.n_branch(), 0);
  for (int k : out) off[k - 1] = 1;
  std::vector<int> stack = {c.bus_index(1)};
  reach[stack[0]] = 1;
  while (!stack.empty()) {
    const int u = stack.back();
    stack.pop_back();
    for (int k = 0; k < c.n_branch(); ++k) {
      if (off[k] || c.branch[k].status <= 0) continue;
      const int f = c.branch_from_idx[k], t = c.branch_to_idx[k];
      const int v = f == u ? t : (t == u ? f : -1);
      if (v >= 0 && !reach[v]) reach[v] = 1, stack.push_back(v);
    }
  }
  grid::Case r = c;
  r.bus.clear();
  r.branch.clear();
  keep.assign(nb, -1);
  for (int b = 0; b < nb; ++b)
    if (reach[b]) keep[b] = r.n_bus(), r.bus.push_back(c.bus[b]);
  for (int k = 0; k < c.n_branch(); ++k)
    if (!off[k] && keep[c.branch_from_idx[k]] >= 0 && keep[c.branch_to_idx[k]] >= 0)
      r.branch.push_back(c.branch[k]);
  r.finalize();
  return r;
}

// One step of the plain feeder with rows `out` out from step 0 against the power flow of the
// case with the cut-off part deleted; returns the unserved_load of the step.
double check_cut(const std::vector<int>& out) {
  const envs::DistGrid env(plain_params(at_step0(data::OutageElement::kBranch, out)));
  const grid::Case c = case33();
  const auto [st, obs, costs, info] = test::zero_action_step(env);
  const auto& s = static_cast<const envs::DistGrid::GridState&>(*st);
  std::vector<int> keep;
  const grid::Case r = cut_case(c, out, keep);
  std::vector<double> p, q;
  for (const auto& b : r.bus) p.push_back(b.pd_mw), q.push_back(b.qd_mvar);
  const grid::DistFlowResult ref = grid::RadialNetwork(r).solve(p, q, 1.045);
  REQUIRE(ref.converged);
  double dead_pd = 0;
  for (int b = 0; b < c.n_bus(); ++b) {
    if (keep[b] < 0) {
      CHECK(s.v[b] == 0.0);
      CHECK(s.live[b] == 0);
      dead_pd += c.bus[b].pd_mw;
    } else {
      CHECK(std::abs(s.v[b] - ref.bus_vm_pu[keep[b]]) < 1e-9);
    }
  }
  // Branch flows by row: the deleted rows carry nothing, the others the reference's flow.
  int kr = 0;
  for (int k = 0; k < c.n_branch(); ++k) {
    const bool kept = std::find(out.begin(), out.end(), k + 1) == out.end() &&
                      keep[c.branch_from_idx[k]] >= 0 && keep[c.branch_to_idx[k]] >= 0;
    if (!kept) {
      CHECK(s.flow.branch_pf_mw[k] == 0.0);
      continue;
    }
    CHECK(std::abs(s.flow.branch_pf_mw[k] - ref.branch_pf_mw[kr]) < 1e-8);
    CHECK(std::abs(s.flow.branch_qt_mvar[k] - ref.branch_qt_mvar[kr]) < 1e-8);
    ++kr;
  }
  CHECK(std::abs(s.loss_mw - ref.total_losses_mw) < 1e-9);
  CHECK(std::abs(costs[3] - dead_pd) < 1e-5);  // unserved_load (float)
  CHECK(info.is_safe == (dead_pd == 0.0 && info.n_violations == 0));
  // branch_status: 0 exactly at the rows out.
  const envs::Slice f = env.spec().obs_field("branch_status");
  for (int i = 0; i < f.size; ++i) {
    const int row = env.line_rows()[i] + 1;
    const bool is_out = std::find(out.begin(), out.end(), row) != out.end();
    CHECK(obs[f.offset + i] == (is_out ? 0.0f : 1.0f));
  }
  return dead_pd;
}

envs::DistGrid::GridState& grid_state(envs::State& s) {
  return static_cast<envs::DistGrid::GridState&>(s);
}

}  // namespace

TEST_SUITE("envs_dist_grid_outages") {
  TEST_CASE("every line of case33bw out: the energized part's flow is that of the cut case") {
    const grid::Case c = case33();
    int n_lines = 0;
    double max_unserved = 0;
    for (int k = 1; k <= c.n_branch(); ++k) {
      if (c.branch[k - 1].status <= 0) continue;  // tie lines stay out (no reconfiguration)
      CAPTURE(k);
      max_unserved = std::max(max_unserved, check_cut({k}));
      ++n_lines;
    }
    CHECK(n_lines == 32);
    // Line 1 (bus 1–2) feeds the whole feeder: everything but the substation is cut off.
    double total = 0;
    for (const auto& b : c.bus) total += b.pd_mw;
    CHECK(std::abs(max_unserved - total) < 1e-9);
    CHECK(std::abs(total - 3.715) < 1e-9);
  }

  TEST_CASE("two lines out at once, one downstream of the other and one on another lateral") {
    // Rows 14 (bus 14–15) and 16 (16–17) on the main feeder, 22 (3–23) a lateral's head.
    CHECK(check_cut({14, 16}) > 0);
    CHECK(check_cut({16, 22}) > 0);
    CHECK(check_cut({14, 16, 22}) > 0);
  }

  TEST_CASE("devices on a cut-off bus are idle; the others act") {
    envs::DistGridParams p = plain_params(at_step0(data::OutageElement::kBranch, {17}));
    const grid::Case& c = p.grid_case;
    for (int id : {18, 6}) {  // row 17 is bus 17–18: bus 18 is cut off
      devices::FlexLoadDevice d;
      d.bus = c.bus_index(id);
      d.curtail_cap_mw = 0.1;
      d.shift_cap_mw = 0.1;
      p.flexloads.push_back(d);
    }
    const envs::DistGrid env(std::move(p));
    auto st = env.make_state();
    core::Rng rng(1, 0);
    std::vector<float> obs(env.spec().obs_dim), costs(env.spec().cost_names.size());
    env.reset(*st, rng, obs);
    env.step(*st, std::vector<float>(env.spec().act_dim, 1.0f), rng, obs, costs, nullptr);
    const auto& s = grid_state(*st);
    CHECK(s.flex.curtailed[0] == 0.0);
    CHECK(s.flex.shift_out[0] == 0.0);
    CHECK(s.flex.curtailed[1] == doctest::Approx(0.1));
    // Bus 18's 0.09 MW is unserved, whatever its device was asked to do.
    CHECK(costs[3] == doctest::Approx(0.09));
  }

  TEST_CASE("trace rows hold the status each step was solved with") {
    // A user trial read info/branch_status[t] next to the costs of step t and found the status of
    // step t + 1. Row 17 (bus 17-18) out for steps 2 and 3 cuts off bus 18 (0.09 MW): those rows
    // show the line out, 0 MW on it and 0.09 MW unserved; the rows before and after show it in.
    data::OutageSchedule sched;
    sched.path = "test.csv";
    sched.events = {{2, data::OutageElement::kBranch, 17, 0, 2},
                    {4, data::OutageElement::kBranch, 17, 1, 3}};
    envs::DistGridParams p = plain_params(sched);
    p.horizon = 6;
    const envs::DistGrid env(std::move(p));
    const test::TracedRun r = test::run_traced(env, 6);
    const int line = 16;  // case33bw's 32 lines are rows 1..32: row 17 is line 16
    REQUIRE(env.line_rows()[line] == 16);
    test::check_status_rows(env, r, "branch_status", line, 2, 4, "branch_status");
    for (int t = 0; t < 6; ++t) {
      CAPTURE(t);
      const bool out = t == 2 || t == 3;
      const float flow = test::trace_value(env.spec(), r.trace[t], "branch_p_mw", line);
      if (out)
        CHECK(flow == 0.0f);
      else
        CHECK(flow > 0.05f);  // bus 18's 0.09 MW and its share of the losses
      CHECK(test::cost_value(env.spec(), r.costs[t], "unserved_load") ==
            doctest::Approx(out ? 0.09 : 0.0));
    }
  }

  TEST_CASE("dist_grid_marl (ders): trace rows hold the status each step was solved with") {
    // The multi-agent env traces and advances through its DistGrid: row 2 of case141 out for
    // steps 2 and 3 cuts off the buses downstream of it; their rows show it out, 0 MW on it and
    // load unserved, the rows before and after none.
    const auto d = test::tmp_dir("pz_dist_trace", "ders");
    const std::string csv =
        test::write(d / "o.csv", "step,element,index,status\n2,branch,2,0\n4,branch,2,1\n");
    const auto env =
        exp::make_env(exp::parse_spec("[env]\ntask = \"ders\"\noutages = \"" + csv + "\"\n",
                                      (d / "ders.toml").string()),
                      "iid");
    REQUIRE(dynamic_cast<const envs::DistGridMarl*>(env.get()) != nullptr);
    const envs::EnvSpec& sp = env->spec();
    const int line = 1;  // case141's 140 rows are all lines
    std::string obs_status;
    for (const auto& f : sp.obs_fields)
      if (obs_status.empty() && f.name.size() > 14 &&
          f.name.compare(f.name.size() - 14, 14, "/branch_status") == 0)
        obs_status = f.name;
    REQUIRE_FALSE(obs_status.empty());
    const test::TracedRun r = test::run_traced(*env, 6);
    test::check_status_rows(*env, r, "branch_status", line, 2, 4, obs_status);
    for (int t = 0; t < 6; ++t) {
      CAPTURE(t);
      const bool out = t == 2 || t == 3;
      const float flow = test::trace_value(sp, r.trace[t], "branch_p_mw", line);
      const float unserved = test::cost_value(sp, r.costs[t], "unserved_load");
      if (out) {
        CHECK(flow == 0.0f);
        CHECK(unserved > 0.01f);
      } else {
        CHECK(std::abs(flow) > 0.01f);
        CHECK(unserved == 0.0f);
      }
    }
  }

  TEST_CASE("without outage keys the spec is unchanged; with them it gains status and a channel") {
    const envs::DistGrid plain(plain_params({}));
    CHECK(plain.spec().cost_names.size() == 3);
    CHECK(plain.spec().obs_dim == 3 * 33 + 2 * 32 + 2);
    const envs::DistGrid out(plain_params(at_step0(data::OutageElement::kBranch, {5})));
    CHECK(out.spec().cost_names.back() == "unserved_load");
    CHECK(out.spec().obs_dim == plain.spec().obs_dim + 32);
    CHECK(out.spec().obs_field("branch_status").size == 32);
    CHECK(out.spec().trace_vectors.back().name == "branch_status");
  }

  TEST_CASE("gen outages are refused: the feeder's generator is the substation") {
    CHECK_THROWS_WITH_AS(envs::DistGrid(plain_params(at_step0(data::OutageElement::kGen, {1}))),
                         doctest::Contains("test.csv:2"), core::ConfigError);
    envs::DistGridParams p = plain_params({});
    p.outages.rate = 0.1;
    p.outages.random_gen = true;
    CHECK_THROWS_WITH_AS(envs::DistGrid{p}, doctest::Contains("outage_elements"),
                         core::ConfigError);
    p.outages.random_gen = false;
    p.outages.rate = 0;
    p.outages.n1 = envs::OutageParams::N1::kGen;
    CHECK_THROWS_WITH_AS(envs::DistGrid{p}, doctest::Contains("outage_n1"), core::ConfigError);
  }

  TEST_CASE("random outages: save and load continue the episode exactly") {
    const auto env = exp::make_env(
        exp::parse_spec("[env]\ntask = \"dso\"\noutage_rate = 0.01\noutage_duration_steps = 5\n",
                        "dso.toml"),
        "train");
    const int nc = static_cast<int>(env->spec().cost_names.size());
    REQUIRE(nc == 4);
    auto a = env->make_state(), b = env->make_state();
    core::Rng rng(11, 2);
    std::vector<float> obs(env->spec().obs_dim), obs2(obs.size()), costs(nc), costs2(nc);
    env->reset(*a, rng, obs);
    const std::vector<float> act(env->spec().act_dim, 0.3f);
    for (int t = 0; t < 20; ++t) env->step(*a, act, rng, obs, costs, nullptr);
    std::vector<double> saved;
    env->save_state(*a, saved);
    CHECK(env->load_state(*b, saved) == saved.size());
    core::Rng rng2 = rng;
    double unserved = 0;
    int outs = 0;
    for (int t = 20; t < 48; ++t) {
      env->step(*a, act, rng, obs, costs, nullptr);
      env->step(*b, act, rng2, obs2, costs2, nullptr);
      CHECK(obs == obs2);
      CHECK(costs == costs2);
      unserved += costs[3];
      const auto& s = grid_state(*a);
      for (int k : dynamic_cast<const envs::DistGrid&>(*env).line_rows())
        outs += !s.out.branch_on[k];
    }
    CHECK(outs > 0);  // line-steps out (about 0.01 · 32 lines · 48 steps fail)
    CHECK(unserved >= 0);
  }

  TEST_CASE("outage_status_obs = false: no branch_status, the same steps as with it") {
    for (const char* task : {"dso", "ders"}) {
      CAPTURE(task);
      const auto spec = [&](const char* v) {
        return exp::parse_spec(std::string("[env]\ntask = \"") + task +
                                   "\"\noutage_rate = 0.02\noutage_duration_steps = 4\n"
                                   "outage_status_obs = " +
                                   v + "\n",
                               "t.toml");
      };
      const auto seeing = exp::make_env(spec("true"), "iid");
      const auto blind = exp::make_env(spec("false"), "iid");
      const auto plain = exp::make_env(
          exp::parse_spec(std::string("[env]\ntask = \"") + task + "\"\n", "t.toml"), "iid");
      CHECK(blind->spec().obs_dim == plain->spec().obs_dim);
      CHECK(blind->spec().obs_feature_names() == plain->spec().obs_feature_names());
      CHECK(seeing->spec().obs_dim > blind->spec().obs_dim);
      CHECK(test::check_blind_steps_as_seeing(*blind, *seeing, 48) > 0);
    }
  }

  TEST_CASE("n1_branch without outage keys keeps the training observation (status_obs auto)") {
    for (const char* task : {"dso", "ders"}) {
      CAPTURE(task);
      const auto spec = exp::parse_spec(std::string("[env]\ntask = \"") + task + "\"\n", "t.toml");
      const auto train = exp::make_env(spec, "train");
      const auto n1 = exp::make_env(spec, "n1_branch");
      CHECK(n1->spec().obs_dim == train->spec().obs_dim);
      CHECK(n1->spec().obs_feature_names() == train->spec().obs_feature_names());
      CHECK(n1->spec().cost_names.back() == "unserved_load");  // the outage is there, unseen
      CHECK(exp::to_toml(spec).find("outage_status_obs = \"false\"") != std::string::npos);
    }
  }

  TEST_CASE("n1_branch splits: exactly one line out for 12 consecutive steps") {
    for (const char* task : {"dso", "ders"}) {
      CAPTURE(task);
      const auto env = exp::make_env(
          exp::parse_spec(std::string("[env]\ntask = \"") + task + "\"\noutage_status_obs = true\n",
                          "t.toml"),
          "n1_branch");
      const envs::EnvSpec& sp = env->spec();
      REQUIRE(sp.cost_names.back() == "unserved_load");
      const auto* marl = dynamic_cast<const envs::DistGridMarl*>(env.get());
      const envs::DistGrid& g = marl ? marl->grid() : dynamic_cast<const envs::DistGrid&>(*env);
      const envs::Slice f = sp.obs_field(marl ? sp.agents.back().name + "/branch_status"
                                              : std::string("branch_status"));
      CHECK(f.size == g.n_lines());
      auto st = env->make_state();
      core::Rng rng(5, 1);
      std::vector<float> obs(sp.obs_dim), costs(sp.cost_names.size());
      envs::ResetOptions opt;
      opt.episode = 0;
      env->reset(*st, rng, obs, opt);
      int steps_out = 0, first = -1, last = -1;
      double unserved = 0;
      const std::vector<float> act(sp.act_dim, 0.0f);
      for (int t = 0; t < 48; ++t) {
        const float n_on =
            std::accumulate(obs.begin() + f.offset, obs.begin() + f.offset + f.size, 0.0f);
        if (n_on == static_cast<float>(f.size - 1)) {
          ++steps_out;
          if (first < 0) first = t;
          last = t;
        } else {
          CHECK(n_on == static_cast<float>(f.size));
        }
        env->step(*st, act, rng, obs, costs, nullptr);
        unserved += costs.back();
      }
      CHECK(steps_out == 12);
      CHECK(last - first == 11);
      CHECK(unserved > 0);  // every line of a radial feeder cuts off some load
    }
  }

  TEST_CASE("n1_branch: a spec's own outage_n1 = branch keeps its length, gen is refused") {
    // The split settings every task shares (tasks/split_settings): the split's kind, the spec's
    // outage_n1_steps when it set outage_n1 to that kind.
    const auto own = exp::make_env(
        exp::parse_spec("[env]\ntask = \"dso\"\noutage_n1 = \"branch\"\noutage_n1_steps = 5\n",
                        "d.toml"),
        "n1_branch");
    const auto& o = dynamic_cast<const envs::DistGrid&>(*own).params().outages;
    CHECK(o.n1 == envs::OutageParams::N1::kBranch);
    CHECK(o.n1_steps == 5);
    CHECK_THROWS_WITH_AS(
        exp::make_env(exp::parse_spec("[env]\ntask = \"dso\"\noutage_n1 = \"gen\"\n", "d.toml"),
                      "n1_branch"),
        doctest::Contains("split \"n1_branch\" sets outage_n1 = \"branch\""), core::ConfigError);
  }
}
