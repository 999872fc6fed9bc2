// Per-env mechanics shared by every env: the episode and data keys.
#include "powerzoo/envs/episode.hpp"

#include <climits>

namespace pz::envs {

std::vector<core::ParamDef> episode_params() {
  return {
      core::int_param("horizon", 48, 1, INT_MAX, "steps per episode"),
      core::float_param(
          "dt_hours", 0.5, [](double x) { return x > 0 && x <= 24; }, "a number in (0, 24]",
          "step length (h)"),
      core::float_param(
          "load_scale", 1.0, [](double x) { return x > 0; }, "a number > 0",
          "multiplies every load"),
      core::float_param(
          "reward_scale", 0.01, [](double x) { return x > 0; }, "a number > 0",
          "reward = −reward_scale · cost ($/h)"),
  };
}

std::vector<core::ParamDef> data_params(const std::string& default_case,
                                        const std::string& default_profile) {
  return {
      core::str_param("case", default_case, "bundled MATPOWER case name or path to a .m file"),
      core::str_param("profile", default_profile,
                      "bundled demand profile name or path to a CSV (MW)"),
  };
}

std::vector<core::ParamDef> concat(std::vector<core::ParamDef> a,
                                   const std::vector<core::ParamDef>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace pz::envs
