// exp/spec/build + spec: env-level errors name where the key was set; splits, presets and paths.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

std::string build_error(const std::string& text, const std::vector<std::string>& ov,
                        const std::string& split = "train") {
  try {
    exp::make_env(exp::parse_spec(text, "s.toml", ov), split);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string parse_error(const std::string& text, const std::vector<std::string>& ov = {}) {
  try {
    exp::parse_spec(text, "s.toml", ov);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("exp_build") {
  // Guards the bundled specs: every experiments/*.toml parses and builds its env on every split
  // it evaluates, so a renamed key or a new check never leaves a shipped spec broken.
  TEST_CASE("every bundled experiment spec loads and builds its env on its splits") {
    namespace fs = std::filesystem;
    int n = 0;
    for (const auto& f : fs::directory_iterator(fs::path(PZ_SOURCE_DIR) / "experiments")) {
      if (f.path().extension() != ".toml") continue;
      CAPTURE(f.path().string());
      const exp::Spec spec = exp::load_spec(f.path().string());
      CHECK(exp::make_env(spec, spec.env.split) != nullptr);
      for (const auto& split : spec.eval.splits) CHECK(exp::make_env(spec, split) != nullptr);
      ++n;
    }
    CHECK(n >= 14);
  }

  TEST_CASE("factory errors name the override or the line that set the key, once") {
    CHECK(build_error("", {"env.case=case55"})
              .starts_with("command line override 'env.case=case55': [env] case: expected a "
                           "bundled case name ("));
    CHECK(build_error("[env]\ncase = \"case55\"\n", {})
              .starts_with("s.toml:2: [env] case: expected"));
    CHECK(build_error("[env]\n\nprofile = \"gb_demandd\"\n", {})
              .starts_with("s.toml:3: [env] profile: expected a bundled profile name"));
    CHECK(build_error("", {"env.dt_hours=1.0"}) ==
          "command line override 'env.dt_hours=1.0': [env] dt_hours: expected the profile's step "
          "of 0.5 h, found 1");
  }

  TEST_CASE("splits are checked against the entry's splits at parse time, with the key") {
    CHECK(parse_error("[env]\nsplit = \"bogus\"\n") ==
          "s.toml:2: [env] split: expected one of train, iid (the splits of trans_grid), found "
          "'bogus'");
    CHECK(parse_error("", {"eval.splits=[\"iidd\"]"}) ==
          "command line override 'eval.splits=[\"iidd\"]': [eval] splits: expected one of train, "
          "iid (the splits of trans_grid), found 'iidd' (did you mean 'iid'?)");
    CHECK_NOTHROW(
        exp::parse_spec("[env]\ntask = \"tso\"\n[eval]\nsplits = [\"load_stress\"]\n", "s.toml"));
  }

  TEST_CASE("the dso preset accepts only its own horizon and step; tso defaults to 1e-4") {
    CHECK(parse_error("[env]\ntask = \"dso\"\nhorizon = 24\n") ==
          "s.toml:3: [env] horizon: expected 48 (the dso task fixes a day of half-hour steps), "
          "found 24");
    CHECK(parse_error("[env]\ntask = \"dso\"\n", {"env.dt_hours=1"}) ==
          "command line override 'env.dt_hours=1': [env] dt_hours: expected 0.5 (the dso task "
          "fixes a day of half-hour steps), found 1");
    CHECK(exp::parse_spec("[env]\ntask = \"tso\"\n", "s.toml").env.params.number("reward_scale") ==
          1e-4);
    CHECK(parse_error("", {"env.load_scale=1e300"}) ==
          "command line override 'env.load_scale=1e300': [env] load_scale: expected a number in "
          "(0, 1000], found 1e+300");
  }

  TEST_CASE("override typos: valid keys of the section, bare seed, empty key") {
    CHECK(parse_error("[env]\ntask = \"dso\"\n", {"env.case=case33bw"}) ==
          "command line override 'env.case=case33bw': unknown key env.case (valid keys of [env]: "
          "id, task, split, outages, outage_rate, outage_duration_steps, outage_elements, "
          "outage_n1, outage_n1_steps, outage_status_obs, horizon, dt_hours, train_windows, "
          "forecast_horizon, forecast_noise)");
    CHECK(parse_error("", {"seeds=1"}) ==
          "command line override 'seeds=1': unknown key seeds (did you mean 'seed'?)");
    CHECK(parse_error("", {"=3"}) ==
          "command line override '=3': expected key=value, found no key");
  }

  TEST_CASE("a relative profile path in a spec file is found next to the spec") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("pz_rel_" + std::to_string(::getpid()));
    fs::create_directories(dir / "sub");
    fs::copy_file(fs::path(PZ_SOURCE_DIR) / "data/profiles/gb_demand_30min.csv", dir / "sub/my.csv",
                  fs::copy_options::overwrite_existing);
    const fs::path spec = dir / "sub/rel.toml";
    std::ofstream(spec) << "[env]\nprofile = \"my.csv\"\n";
    const auto s = exp::load_spec(spec.string());
    CHECK(s.env.params.str("profile") == (dir / "sub/my.csv").string());
    CHECK_NOTHROW(exp::make_env(s, "train"));
    // On the command line a relative path stays relative to the working directory.
    CHECK(exp::load_spec(spec.string(), {"env.profile=my.csv"}).env.params.str("profile") ==
          "my.csv");
    fs::remove_all(dir);
  }

  TEST_CASE("CLI: baseline --episodes 0, a baseline of another task, run --help typo") {
    const std::string bin = PZ_BINARY,
                      dso = std::string(PZ_SOURCE_DIR) + "/experiments/dso_ppo.toml";
    auto r = test::sh(bin + " baseline " + dso + " --policy tou --episodes 0");
    CHECK(r.code == 2);
    CHECK(r.out.find("--episodes: expected an integer in [1, 100000], found 0") !=
          std::string::npos);
    r = test::sh(bin + " baseline " + std::string(PZ_SOURCE_DIR) +
                 "/experiments/quickstart.toml --policy merit_order");
    CHECK(r.code == 2);
    CHECK(r.out.find("found 'merit_order' (a baseline of tso)") != std::string::npos);
    r = test::sh(bin + " run --help trans_gird");
    CHECK(r.code == 2);
    CHECK(r.out.find("found 'trans_gird' (did you mean 'trans_grid'?)") != std::string::npos);
  }
}
