// rl::check_action_box: the one check of the action box PPO and SAC take.
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/action_box.hpp"

using pz::rl::check_action_box;

namespace {
std::string message(const std::vector<float>& lo, const std::vector<float>& hi,
                    const std::string& bounded_for) {
  try {
    check_action_box("SAC", 2, lo, hi, bounded_for);
  } catch (const pz::core::ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_SUITE("rl_action_box") {
  TEST_CASE("a box of the wrong size is refused, naming the learner and both sizes") {
    CHECK(message({0}, {1, 1}, "") == "SAC action box: expected 2 bounds, found 1 and 2");
  }

  TEST_CASE("an unbounded or empty bound is refused only where the policy needs a bounded box") {
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(message({-inf, 0}, {inf, 1}, "") == "");
    CHECK(message({-inf, 0}, {inf, 1}, "sac").find("sac needs a bounded action box; action 0") ==
          0);
    CHECK(message({0, 1}, {1, 1}, "sac").find("action 1 is [1.000000, 1.000000]") !=
          std::string::npos);
    CHECK(message({-1, 0}, {1, 2}, "sac") == "");
  }
}
