// Outages of the DC microgrid's components (docs/outages.md): an out component equals the same
// step of the microgrid without it (battery at 0 MW, diesel at 0, import cap 0, PV at 0), the
// status in the observation and the traces, the n1_component split's one outage of 72 steps, a
// checkpoint mid-outage, and the task's outage keys refused where they are bad.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/dc_microgrid.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "status_obs_util.hpp"
#include "test_dc_microgrid_util.hpp"
#include "test_util.hpp"

using namespace pz;
using envs::DcMicrogrid;
using envs::DcMicrogridParams;

namespace {

using test::step;
using test::tr;

// The plain island of test::flat with an import cap of 0.3 MW and a 1.2 MW diesel that balances
// the bus (dg_autobalance).
DcMicrogridParams flat(double cf, double price) {
  DcMicrogridParams p = test::flat(cf, price);
  p.grid_import_max_mw = 0.3;
  p.dg.p_max_mw = 1.2;
  p.dg_autobalance = true;
  return p;
}

// `from`'s state loaded into `to` (the microgrid part: a plain env reads the prefix it knows).
std::unique_ptr<envs::State> state_as(const envs::Env& from, const envs::State& s,
                                      const envs::Env& to) {
  std::vector<double> buf;
  from.save_state(s, buf);
  auto c = to.make_state();
  to.load_state(*c, buf);
  return c;
}

std::vector<float> status_of(const DcMicrogrid& env, const std::vector<float>& obs) {
  const int k = env.spec().obs_field("component_status").offset;
  return {obs.begin() + k, obs.begin() + k + 4};
}

exp::Spec dcmg_spec(const std::string& extra = "") {
  return exp::parse_spec("[env]\ntask = \"dc_microgrid\"\n" + extra, "d.toml");
}

}  // namespace

TEST_SUITE("envs_dc_microgrid_outages") {
  TEST_CASE("without outage keys: no status field, no trace vector, no outage state") {
    const DcMicrogrid env(flat(0.5, 80));
    CHECK(env.spec().obs_dim == DcMicrogrid::kObsDim);
    CHECK(env.spec().trace_vectors.empty());
    for (const auto& f : env.spec().obs_fields) CHECK(f.name != "component_status");
    const auto task = exp::make_env(dcmg_spec(), "iid");
    CHECK(task->spec().obs_dim == 24);
    CHECK(task->spec().cost_names == std::vector<std::string>{"sla", "overtemp", "power_deficit"});
  }

  TEST_CASE("each scheduled component outage equals the microgrid without that component") {
    const auto d = test::tmp_dir("pz_dcmg_out", "sched");
    DcMicrogridParams p = flat(0.5, 80);
    const std::vector<std::string> names(DcMicrogrid::kComponents.begin(),
                                         DcMicrogrid::kComponents.end());
    p.outages.schedule = data::read_outage_schedule(
        test::write(d / "s.csv",
                    "step,element,index,status\n1,pv,1,0\n2,pv,1,1\n2,battery,1,0\n"
                    "3,battery,1,1\n3,diesel,1,0\n4,diesel,1,1\n4,grid,1,0\n5,grid,1,1\n"),
        names);
    const DcMicrogrid env(p);
    REQUIRE(env.spec().obs_dim == 28);
    CHECK(env.spec().obs_field("component_status").offset == 24);
    REQUIRE(env.spec().trace_vectors.size() == 1);
    CHECK(env.spec().trace_vectors[0].name == "component_status");
    // The microgrid without each component: a plain env, and a plain env with one parameter
    // changed (PV scale 0; no autobalance so the action's diesel 0 is run; import cap 0).
    DcMicrogridParams q = flat(0.5, 80), no_pv = q, no_dg = q, no_grid = q;
    no_pv.solar_scale = 0;
    no_dg.dg_autobalance = false;
    no_grid.grid_import_max_mw = 0;
    const DcMicrogrid plain(q), plain_no_pv(no_pv), plain_no_dg(no_dg), plain_no_grid(no_grid);

    auto s = env.make_state();
    core::Rng rng(3, 0);
    std::vector<float> o(28), trace(4);
    env.reset(*s, rng, o, {});
    CHECK(status_of(env, o) == std::vector<float>{1, 1, 1, 1});
    const std::vector<float> a = {0.6f, 0.4f, 0.5f, -1.0f, 0.2f};  // the battery charges
    const std::vector<std::vector<float>> status_after = {{0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 1},
                                                          {1, 1, 1, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    for (int t = 0; t < 6; ++t) {
      CAPTURE(t);
      const DcMicrogrid& twin = t == 1   ? plain_no_pv
                                : t == 3 ? plain_no_dg
                                : t == 4 ? plain_no_grid
                                         : plain;
      std::vector<float> at = a;
      if (t == 2) at[3] = 0;  // battery out: idles
      if (t == 3) at[4] = 0;  // diesel out: command 0
      auto ts = state_as(env, *s, twin);
      core::Rng rng_t = rng;
      const double soc_before = DcMicrogrid::soc(*s);
      const auto got = step(env, *s, rng, a);
      const auto want = step(twin, *ts, rng_t, at);
      CHECK(rng == rng_t);  // a schedule draws nothing
      CHECK(got.costs == want.costs);
      CHECK(got.step.reward == want.step.reward);
      for (int i = 0; i < envs::Info::kMaxTrace && i < 18; ++i) {
        CAPTURE(i);
        CHECK(got.info.trace[i] == want.info.trace[i]);
      }
      for (int i = 0; i < 24; ++i)
        // The PV resource (solar_cf) stays what it is; last_action shows the battery command the
        // agent gave (the diesel's is the command it ran, as without outages).
        if (!(t == 1 && i == 8) && !(t == 2 && i == 20)) {
          CAPTURE(i);
          CHECK(got.obs[i] == want.obs[i]);
        }
      CHECK(status_of(env, got.obs) == status_after[t]);  // the status of step t + 1
      // The trace row is the status step t ran with (a user trial found step t + 1's there), so
      // it lines up with this step's outputs below: PV out in the row where p_pv_mw is 0, etc.
      env.write_trace(*s, trace);
      CHECK(trace == (t == 0 ? std::vector<float>{1, 1, 1, 1} : status_after[t - 1]));
      const double* q_tr = got.info.trace;
      const double supply = q_tr[tr(env, "p_pv_mw")] + q_tr[tr(env, "p_batt_mw")] +
                            q_tr[tr(env, "p_dg_mw")] + q_tr[tr(env, "p_grid_import_mw")];
      // Balanced to the env's rounding tolerance of the autobalanced diesel command (1e-6 MW).
      CHECK(std::abs(supply + q_tr[tr(env, "power_deficit_mw")] - q_tr[tr(env, "power_spill_mw")] -
                     q_tr[tr(env, "p_dc_mw")]) < 1e-6);
      if (t == 1) CHECK(q_tr[tr(env, "p_pv_mw")] == 0.0);
      if (t == 2) {
        CHECK(q_tr[tr(env, "p_batt_mw")] == 0.0);
        CHECK(DcMicrogrid::soc(*s) == soc_before);
      }
      if (t == 3) {
        CHECK(q_tr[tr(env, "p_dg_mw")] == 0.0);
        CHECK(q_tr[tr(env, "dg_command")] == 0.0);
        CHECK(q_tr[tr(env, "fuel_cost")] == 0.0);
        // Charging 0.5 MW from 0.2 MW of PV and 0.3 MW of import: the load is a shortfall.
        CHECK(q_tr[tr(env, "p_batt_mw")] == -0.5);
        CHECK(q_tr[tr(env, "power_deficit_mw")] ==
              doctest::Approx(q_tr[tr(env, "p_dc_mw")]).epsilon(1e-12));
        CHECK(got.costs[2] == doctest::Approx(1.0));
      }
      if (t == 4) CHECK(q_tr[tr(env, "p_grid_import_mw")] == 0.0);
      if (t == 0 || t == 5) CHECK(q_tr[tr(env, "p_pv_mw")] == doctest::Approx(0.2));
    }
  }

  TEST_CASE("random outages: a checkpoint mid-episode continues exactly, outages included") {
    DcMicrogridParams p = flat(0.3, 60);
    p.outages.rate = 0.01;
    p.outages.duration_steps = 12;
    const DcMicrogrid env(p);
    auto s = env.make_state();
    core::Rng rng(9, 0);
    std::vector<float> o(28);
    env.reset(*s, rng, o, {});
    int out_steps = 0;
    const auto count = [&](const std::vector<float>& obs) {
      for (float x : status_of(env, obs)) out_steps += x == 0;
    };
    for (int k = 0; k < 100; ++k) count(step(env, *s, rng, {0.5f, 0.5f, 0.2f, 0.1f, 0}).obs);
    std::vector<double> buf;
    env.save_state(*s, buf);
    auto c = env.make_state();
    CHECK(env.load_state(*c, buf) == buf.size());
    core::Rng rng_c = rng;
    for (int k = 0; k < 150; ++k) {
      const std::vector<float> a = {0.9f, 0.1f, 0.6f, k % 2 ? -1.0f : 1.0f, 0.3f};
      const auto x = step(env, *s, rng, a);
      const auto y = step(env, *c, rng_c, a);
      REQUIRE(x.obs == y.obs);
      REQUIRE(x.step.reward == y.step.reward);
      count(x.obs);
    }
    CHECK(rng == rng_c);
    CHECK(out_steps >= 24);  // 4 components × 250 steps × 0.01: several 12-step outages
    buf.back() = 0.5;        // a damaged outage counter
    CHECK_THROWS_AS(env.load_state(*c, buf), core::ConfigError);
  }

  TEST_CASE("n1_component: one component out for exactly 72 steps per episode, observed") {
    const auto iid = exp::make_env(dcmg_spec(), "iid");
    // Without outage keys the split keeps the training observation (outage_status_obs = auto).
    CHECK(exp::make_env(dcmg_spec(), "n1_component")->spec().obs_dim == 24);
    const auto base = exp::make_env(dcmg_spec("outage_status_obs = true\n"), "n1_component");
    const auto* env = dynamic_cast<const DcMicrogrid*>(base.get());
    REQUIRE(env);
    REQUIRE(env->spec().obs_dim == 28);
    for (int i = 0; i < 24; ++i)
      CHECK(env->spec().obs_feature_names()[i] == iid->spec().obs_feature_names()[i]);
    std::vector<int> seen(4, 0);
    for (int ep = 0; ep < 40; ++ep) {
      CAPTURE(ep);
      auto s = env->make_state();
      core::Rng rng(21, static_cast<uint64_t>(ep)), act(5, static_cast<uint64_t>(ep));
      std::vector<float> o(28), c(3), a(5);
      env->reset(*s, rng, o, {ep % 10, 10});
      std::vector<int> out_steps(4, 0);
      int first = -1, last = -1, comp = -1;
      envs::Step st;
      for (int t = 0; !st.truncated; ++t) {
        const auto status = status_of(*env, o);  // the status step t runs with
        for (int k = 0; k < 4; ++k)
          if (status[k] == 0) {
            ++out_steps[k];
            comp = k;
            if (first < 0) first = t;
            last = t;
          }
        for (int j = 0; j < 5; ++j) a[j] = static_cast<float>(act.uniform() * 2 - (j == 3));
        envs::Info info;
        st = env->step(*s, a, rng, o, c, &info);
        if (comp >= 0 && t >= first && t == last) {
          const char* zero[4] = {"p_pv_mw", "p_batt_mw", "p_dg_mw", "p_grid_import_mw"};
          CHECK(info.trace[tr(*env, zero[comp])] == 0.0);
        }
      }
      REQUIRE(comp >= 0);
      CHECK(out_steps[comp] == 72);
      CHECK(last - first == 71);
      for (int k = 0; k < 4; ++k)
        if (k != comp) CHECK(out_steps[k] == 0);
      ++seen[comp];
    }
    for (int n : seen) CHECK(n > 0);  // every component is drawn in 40 episodes
  }

  TEST_CASE("outage_status_obs = false: no component_status, the same steps as with it") {
    const std::string keys = "outage_rate = 0.01\noutage_duration_steps = 12\n";
    const auto seeing = exp::make_env(dcmg_spec(keys + "outage_status_obs = true\n"), "iid");
    const auto blind = exp::make_env(dcmg_spec(keys + "outage_status_obs = false\n"), "iid");
    CHECK(blind->spec().obs_dim == 24);
    CHECK(seeing->spec().obs_dim == 28);
    CHECK(test::check_blind_steps_as_seeing(*blind, *seeing, 288) > 0);
  }

  TEST_CASE("the task's outage keys: bad values and scenario files are named") {
    const auto d = test::tmp_dir("pz_dcmg_out", "keys");
    const auto make = [&](const std::string& extra, const std::string& split = "iid") {
      return exp::make_env(
          exp::parse_spec("[env]\ntask = \"dc_microgrid\"\n" + extra, (d / "d.toml").string()),
          split);
    };
    test::write(d / "branch.csv", "step,element,index,status\n0,pv,1,0\n4,branch,1,0\n");
    CHECK_THROWS_WITH_AS(make("outages = \"" + (d / "branch.csv").string() + "\"\n"),
                         doctest::Contains("d.toml:3: [env] outages: "), core::ConfigError);
    CHECK_THROWS_WITH_AS(make("outages = \"" + (d / "branch.csv").string() + "\"\n"),
                         doctest::Contains("branch.csv:3: expected element 'pv', 'battery', "
                                           "'diesel' or 'grid', found 'branch'"),
                         core::ConfigError);
    test::write(d / "late.csv", "step,element,index,status\n288,grid,1,0\n");
    CHECK_THROWS_WITH_AS(make("outages = \"" + (d / "late.csv").string() + "\"\n"),
                         doctest::Contains("late.csv:2: expected a step within the episode "
                                           "(0..287"),
                         core::ConfigError);
    test::write(d / "unit2.csv", "step,element,index,status\n3,battery,2,0\n");
    CHECK_THROWS_WITH_AS(make("outages = \"" + (d / "unit2.csv").string() + "\"\n"),
                         doctest::Contains("unit2.csv:2: expected a battery unit (1..1), found "
                                           "index 2"),
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(make("outage_n1 = \"branch\"\n"), doctest::Contains("d.toml:3:"),
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(make("outage_n1_steps = 10\n", "n1_component"),
                         doctest::Contains("d.toml:3: [env] outage_n1_steps"), core::ConfigError);
    CHECK_THROWS_WITH_AS(make("outage_n1 = \"component\"\noutage_n1_steps = 300\n"),
                         doctest::Contains("d.toml:4: [env] outage_n1_steps: expected at most the "
                                           "horizon (288 steps), found 300"),
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(make("outage_elements = \"pv\"\n"),
                         doctest::Contains("d.toml:3: [env] outage_elements"), core::ConfigError);
    // The spec's own N-1 length on the n1_component split; random outages of one kind only.
    const auto e = make("outage_n1 = \"component\"\noutage_n1_steps = 10\n", "n1_component");
    CHECK(e->spec().obs_dim == 28);
    const auto r = make("outage_rate = 0.01\noutage_elements = \"grid\"\n");
    CHECK(r->spec().obs_dim == 28);
  }
}
