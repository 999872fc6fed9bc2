// Shared env fixtures of the tests: trans_grid on case5 with the bundled GB demand, and one
// zero-action step of any env.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "powerzoo/data/profile.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::test {

/// TransGridParams of MATPOWER case5 driven by gb_demand: windows of `horizon` steps of `split`,
/// the profile scaled by its train-split mean (as the task presets scale it).
inline envs::TransGridParams gb_case5_params(int horizon, const std::string& split = "train") {
  envs::TransGridParams p;
  p.grid_case = grid::load_case(grid::resolve_case_path("case5"));
  const auto prof = data::load_profile("gb_demand");
  p.profile = prof.values;
  p.profile_mean = data::split_mean(prof, data::split_by_name("train"));
  p.episode_starts = data::episode_starts(prof, data::split_by_name(split), horizon);
  p.horizon = horizon;
  return p;
}

/// TransGrid on MATPOWER case5 driven by gb_demand, train-split windows of `horizon` steps.
inline std::shared_ptr<const envs::Env> gb_case5(int horizon) {
  return std::make_shared<envs::TransGrid>(gb_case5_params(horizon));
}

/// What zero_action_step returns: the state after the step, its observation, costs and info.
struct OneStep {
  std::unique_ptr<envs::State> state;
  std::vector<float> obs, costs;
  envs::Info info;
};

/// `env` reset with Rng(3, 0) and stepped once with an all-zero action.
inline OneStep zero_action_step(const envs::Env& env) {
  OneStep r;
  r.state = env.make_state();
  core::Rng rng(3, 0);
  r.obs.resize(env.spec().obs_dim);
  r.costs.resize(env.spec().cost_names.size());
  env.reset(*r.state, rng, r.obs);
  env.step(*r.state, std::vector<float>(env.spec().act_dim, 0.0f), rng, r.obs, r.costs, &r.info);
  return r;
}

}  // namespace pz::test
