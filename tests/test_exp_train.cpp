// exp/train/train: the checks run before a run directory exists (validate_train) and the warning
// for settings a learner ignores.
#include <doctest/doctest.h>

#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/train.hpp"

namespace {

// The catalogue's fast valid spec (case5, 4 envs, 96 steps).
const std::string kTinyPath = std::string(PZ_SOURCE_DIR) + "/tests/bad_inputs/specs/tiny.toml";

pz::exp::Spec spec_of(const std::vector<std::string>& overrides) {
  return pz::exp::load_spec(kTinyPath, overrides);
}

std::string validate_error(const std::vector<std::string>& overrides) {
  try {
    pz::exp::validate_train(spec_of(overrides));
  } catch (const pz::core::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("exp_train") {
  TEST_CASE("validate_train passes a good spec and names what train would refuse") {
    CHECK(validate_error({}) == "");
    // Each of these parses; only building the env or the learner finds the fault.
    CHECK(validate_error({"env.case=/nonexistent/case.m"}).find("/nonexistent/case.m") !=
          std::string::npos);
    const std::string split = validate_error({"eval.splits=[\"no_such_split\"]"});
    CHECK(split.find("no_such_split") != std::string::npos);
    const std::string channel =
        validate_error({"learner.algo=ppo_lagrangian", "safety.constraints=[\"no_such_cost\"]"});
    CHECK(channel.find("[safety] constraints") != std::string::npos);
    CHECK(channel.find("no_such_cost") != std::string::npos);
  }

  // Guards the warning a fresh user missed: [safety] constraints with plain PPO did nothing.
  TEST_CASE("unused_settings_warning: constraints without a constrained learner") {
    const std::string w =
        pz::exp::unused_settings_warning(spec_of({"safety.constraints=[\"power_balance\"]"}));
    CHECK(w.find("[safety] constraints") != std::string::npos);
    CHECK(w.find("\"ppo\" does not use it") != std::string::npos);
    CHECK(pz::exp::unused_settings_warning(spec_of(
              {"learner.algo=ppo_lagrangian", "safety.constraints=[\"power_balance\"]"})) == "");
    CHECK(pz::exp::unused_settings_warning(spec_of({})) == "");
  }
}
