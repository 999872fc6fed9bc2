// Registry: every registered env and task builds from its defaults; resolution of [env] id/task;
// observation fields tile the observation and mean what their names say.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

/// The spec text that selects a registry entry with all its defaults.
std::string spec_of(const envs::EnvEntry& e) {
  return e.is_task() ? "[env]\ntask = \"" + e.task + "\"\n" : "[env]\nid = \"" + e.id + "\"\n";
}

std::vector<const envs::EnvEntry*> all_entries() {
  auto out = envs::registered_envs();
  for (const auto* t : envs::registered_tasks()) out.push_back(t);
  return out;
}

/// The ConfigError message of `fn`, or "" if it did not throw one.
template <class F>
std::string error_of(F&& fn) {
  try {
    fn();
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("envs_registry") {
  TEST_CASE("every entry builds from its defaults; fields tile the observation") {
    for (const envs::EnvEntry* e : all_entries()) {
      CAPTURE(e->name());
      const auto spec = exp::parse_spec(spec_of(*e), "x.toml");
      const auto env = exp::make_env(spec, "train");
      const auto& sp = env->spec();
      int offset = 0;
      for (const auto& f : sp.obs_fields) {
        CAPTURE(f.name);
        CHECK(f.slice.offset == offset);
        CHECK(f.slice.size >= 1);
        offset += f.slice.size;
      }
      CHECK(offset == sp.obs_dim);
      // Agents' action blocks tile the action vector in agent order; obs blocks lie inside it.
      int act_offset = 0;
      for (const auto& a : sp.agent_list()) {
        CAPTURE(a.name);
        CHECK(a.act.offset == act_offset);
        act_offset += a.act.size;
        CHECK(a.obs.offset >= 0);
        CHECK(a.obs.offset + a.obs.size <= sp.obs_dim);
      }
      CHECK(act_offset == sp.act_dim);
    }
  }

  TEST_CASE("time_of_day holds sin/cos of the step's phase in every env") {
    for (const envs::EnvEntry* e : all_entries()) {
      CAPTURE(e->name());
      const auto env = exp::make_env(exp::parse_spec(spec_of(*e), "x.toml"), "train");
      const auto& sp = env->spec();
      if (e->id.rfind("test_", 0) == 0) continue;  // test-only envs have no clock
      // A multi-agent env's fields are per agent ("genco_0/time_of_day"): the first agent's.
      const envs::Slice tod =
          sp.obs_field(sp.agents.empty() ? "time_of_day" : sp.agents[0].name + "/time_of_day");
      REQUIRE(tod.size == 2);
      auto st = env->make_state();
      core::Rng rng(3, 0);
      std::vector<float> obs(sp.obs_dim), costs(sp.cost_names.size()), act(sp.act_dim, 0.0f);
      env->reset(*st, rng, obs);
      CHECK(obs[tod.offset] == doctest::Approx(0.0));
      CHECK(obs[tod.offset + 1] == doctest::Approx(1.0));
      envs::Info info;
      env->step(*st, act, rng, obs, costs, &info);
      const double phase = 2 * std::numbers::pi / std::lround(24.0 / sp.dt_hours);
      CHECK(obs[tod.offset] == doctest::Approx(std::sin(phase)).epsilon(1e-6));
      CHECK(obs[tod.offset + 1] == doctest::Approx(std::cos(phase)).epsilon(1e-6));
    }
  }

  TEST_CASE("an unknown field name is an error naming the env and its fields") {
    const auto env = exp::make_env(exp::parse_spec("", "x.toml"), "train");
    CHECK_THROWS_WITH_AS(env->spec().obs_field("voltage"),
                         "env trans_grid: no observation field 'voltage' (fields: branch_flow, "
                         "load, unit_output, time_of_day)",
                         core::ConfigError);
  }

  TEST_CASE("[env] id and task resolve through the registry, with did-you-mean errors") {
    CHECK(exp::parse_spec("[env]\nid = \"dist_grid\"\n", "x.toml").env.task == "dso");
    CHECK(exp::env_entry(exp::parse_spec("[env]\nid = \"dist_grid\"\n", "x.toml")).name() == "dso");
    CHECK(exp::parse_spec("[env]\ntask = \"tso\"\n", "x.toml").env.id == "unit_commitment");
    CHECK_THROWS_WITH_AS(exp::parse_spec("[env]\nid = \"trans_grd\"\n", "x.toml"),
                         doctest::Contains("x.toml:2: [env] id: expected one of "),
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(exp::parse_spec("[env]\nid = \"trans_grd\"\n", "x.toml"),
                         doctest::Contains("(did you mean 'trans_grid'?)"), core::ConfigError);
    CHECK_THROWS_WITH_AS(exp::parse_spec("[env]\ntask = \"tsoo\"\n", "x.toml"),
                         doctest::Contains("x.toml:2: [env] task: expected no task preset or one "
                                           "of dc_microgrid, ders, dso, "),
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(
        exp::parse_spec("[env]\nid = \"trans_grid\"\ntask = \"tso\"\n", "x.toml"),
        "x.toml:2: [env] id: task \"tso\" builds env 'unit_commitment', found 'trans_grid' "
        "(drop id or set id = \"unit_commitment\")",
        core::ConfigError);
    CHECK_THROWS_WITH_AS(exp::parse_spec("", "x.toml", {"env.id=nope"}),
                         doctest::Contains("command line override 'env.id=nope': [env] id:"),
                         core::ConfigError);
    // A key of another env is unknown for this one, with the valid keys listed.
    CHECK_THROWS_WITH_AS(
        exp::parse_spec("[env]\ntask = \"dso\"\ncase = \"case5\"\n", "x.toml"),
        "x.toml:3: unknown key [env] case (valid keys: id, task, split, "
        "outages, outage_rate, outage_duration_steps, outage_elements, "
        "outage_n1, outage_n1_steps, outage_status_obs, horizon, dt_hours, train_windows, "
        "forecast_horizon, forecast_noise)",
        core::ConfigError);
  }

  TEST_CASE(
      "one kind of entry: presets apply to registered envs; an env without a factory "
      "names a preset of its own") {
    CHECK(envs::unattached_tasks().empty());
    for (const envs::EnvEntry* e : envs::registered_envs()) {
      CAPTURE(e->id);
      CHECK_FALSE(e->is_task());
      if (e->make) continue;
      const envs::EnvEntry* t = envs::find_task(e->default_task);
      REQUIRE(t != nullptr);
      CHECK(t->id == e->id);
      // `[env] id` alone selects the default preset and records it.
      CHECK(exp::parse_spec("[env]\nid = \"" + e->id + "\"\n", "x.toml").env.task ==
            e->default_task);
    }
    for (const envs::EnvEntry* t : envs::registered_tasks()) {
      CAPTURE(t->name());
      CHECK(t->is_task());
      CHECK(envs::find_env(t->id) != nullptr);
      CHECK(t->make);  // its own factory, or its env's
    }
    // The default env is the one entry that says so; a spec without [env] builds it.
    CHECK(envs::find_env(envs::default_env_id())->default_env);
    CHECK(exp::parse_spec("[vec]\nn_envs = 8\n", "x.toml").env.id == envs::default_env_id());
  }

  TEST_CASE("each bench spec an entry lists exists and selects that entry") {
    int n = 0;
    for (const auto& list : {envs::registered_envs(), envs::registered_tasks()})
      for (const envs::EnvEntry* e : list)
        for (const auto& rel : e->bench_specs) {
          CAPTURE(rel);
          const exp::Spec spec = exp::load_spec(std::string(PZ_SOURCE_DIR) + "/" + rel);
          CHECK(exp::env_entry(spec).name() == e->name());
          ++n;
        }
    CHECK(n >= 7);  // the quickstart, SAC on case5 and one per shipped task
  }

  TEST_CASE("the binary's registry holds the shipped envs, not the test-only one") {
    const auto r = test::sh(std::string(PZ_BINARY) + " envs");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("trans_grid") != std::string::npos);
    CHECK(r.out.find("tso") != std::string::npos);
    CHECK(r.out.find("test_target") == std::string::npos);
    CHECK(envs::find_env("test_target") != nullptr);  // registered in this test binary
  }

  // Issue 36 (a user trial): an error raised while building names where its value came from.
  TEST_CASE("rethrow_blamed: the key a message names, a scenario row, else the fallback key") {
    core::ParamTable t;
    t.set("case", std::string("case5"));
    t.set("outage_n1_steps", int64_t{100});
    t.set("outages", std::string("/d/s.csv"));
    const envs::BuildContext ctx{t, "train", "spec.toml: ", [](const std::string& k) {
                                   return k == "outage_n1_steps"
                                              ? std::string("command line override 'x': ")
                                              : "spec.toml:" + std::to_string(k.size()) + ": ";
                                 }};
    auto blamed = [&](const std::string& key, const std::string& msg) {
      try {
        envs::rethrow_blamed(ctx, key, core::ConfigError(msg));
      } catch (const core::ConfigError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(blamed("case",
                 "[env] outage_n1_steps: expected at most the horizon (48 steps), found "
                 "100") ==
          "command line override 'x': [env] outage_n1_steps: expected at most the horizon (48 "
          "steps), found 100");
    CHECK(blamed("", "/d/s.csv:3: expected a branch") ==
          "spec.toml:7: [env] outages: /d/s.csv:3: expected a branch");
    CHECK(blamed("case", "case: expected a bus") == "spec.toml:4: [env] case: expected a bus");
    CHECK(blamed("case", "[env] case: expected a bus") ==
          "spec.toml:4: [env] case: expected a bus");
    CHECK(blamed("", "[env] battery: x") == "spec.toml: [env] battery: x");  // not a key of t
    CHECK(blamed("", "no gen") == "spec.toml: [env]: no gen");
  }

  TEST_CASE("outage errors of every task name the override or the spec line that set the value") {
    const std::string where = "command line override 'env.outage_n1_steps=100': ";
    for (const char* task : {"", "tso", "gencos"}) {
      CAPTURE(task);
      std::string head = "[env]\n";
      if (*task) head += "task = \"" + std::string(task) + "\"\n";
      if (std::string(task) == "tso") head += "case = \"case14\"\n";
      const auto spec = exp::parse_spec(head + "horizon = 12\n", "x.toml",
                                        {"env.outage_n1=gen", "env.outage_n1_steps=100"});
      const std::string e = error_of([&] { exp::make_env(spec, "train"); });
      CHECK(e == where +
                     "[env] outage_n1_steps: expected at most the horizon (12 steps), found "
                     "100");
    }
    const auto file = exp::parse_spec(
        "[env]\nhorizon = 12\noutage_n1 = \"branch\"\noutage_n1_steps = 13\n", "x.toml");
    CHECK(error_of([&] { exp::make_env(file, "train"); }) ==
          "x.toml:4: [env] outage_n1_steps: expected at most the horizon (12 steps), found 13");
    for (const char* task : {"dso", "ders"}) {
      CAPTURE(task);
      const auto spec = exp::parse_spec("[env]\ntask = \"" + std::string(task) + "\"\n", "x.toml",
                                        {"env.outage_n1=gen"});
      CHECK(error_of([&] { exp::make_env(spec, "train"); }) ==
            "command line override 'env.outage_n1=gen': [env] outage_n1: expected \"none\" or "
            "\"branch\" (a distribution feeder models branch outages only: its generator is the "
            "substation, its DERs are devices), found \"gen\"");
    }
  }
}
