// The env's action box as a learner takes it: one check for every learner.
#pragma once

#include <string>
#include <vector>

namespace pz::rl {

/// Checks the action box [low, high] that `learner` ("PPO", "SAC") gets for `act_dim` actions.
/// Throws core::ConfigError unless low and high hold act_dim bounds each and, when
/// `bounded_for` is not empty (the policy that maps to the box, e.g. "sac" or "policy =
/// \"beta\""), every bound is finite and high > low.
void check_action_box(const std::string& learner, int act_dim, const std::vector<float>& low,
                      const std::vector<float>& high, const std::string& bounded_for);

}  // namespace pz::rl
