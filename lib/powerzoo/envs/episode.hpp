// Per-env mechanics shared by every env: the episode's [env] keys (horizon, dt, load and reward
// scale) and the data keys (case, profile), declared once.
#pragma once

#include <string>
#include <vector>

#include "powerzoo/core/params.hpp"

namespace pz::envs {

/// [env] horizon (steps per episode, 48), dt_hours (step length in h, (0, 24], 0.5), load_scale
/// (multiplies every load, > 0, 1.0) and reward_scale (reward = −reward_scale · cost, > 0, 0.01).
std::vector<core::ParamDef> episode_params();

/// [env] case (bundled MATPOWER case name or path to a .m file) and profile (bundled demand
/// profile name or path to a CSV), with the given defaults.
std::vector<core::ParamDef> data_params(const std::string& default_case,
                                        const std::string& default_profile = "gb_demand");

/// Concatenation helper for parameter lists.
std::vector<core::ParamDef> concat(std::vector<core::ParamDef> a,
                                   const std::vector<core::ParamDef>& b);

}  // namespace pz::envs
