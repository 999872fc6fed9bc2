// The scan-style rollout of the Python module: a fixed action sequence [T, N, act_dim] stepped
// through a VecSession, every per-step buffer recorded time-major (no Python types here).
#pragma once

#include <cstdint>
#include <vector>

#include "vec_session.hpp"

namespace pz::py {

struct RolloutRecord {
  int T = 0;                         ///< steps taken (evaluation mode: until every episode ended)
  std::vector<float> obs;            ///< [T, N, obs_dim] the observation each action was taken in
  std::vector<float> final_obs;      ///< [T, N, obs_dim] the observation each step ended in
  std::vector<float> reward;         ///< [T, N] objective (team) reward
  std::vector<float> shaped_reward;  ///< [T, N, A] learner reward (penalty / Sauté)
  std::vector<float> agent_reward;   ///< [T, N, A] per-agent objective reward
  std::vector<float> costs;          ///< [T, N, n_costs]
  std::vector<uint8_t> terminated, truncated;  ///< [T, N]
  std::vector<double> episode_return;          ///< [T, N] NaN where no episode ended
  std::vector<int32_t> episode_length;         ///< [T, N] 0 where no episode ended
  std::vector<double> episode_cost;            ///< [T, N, n_costs] NaN where no episode ended
  std::vector<float> trace;      ///< [T, N, n_trace] EnvSpec::trace_names (0 where not stepped)
  std::vector<float> trace_vec;  ///< [T, N, width] EnvSpec::trace_vectors (0 where not stepped)
};

/// Steps `s` (reset, open) with actions [T, N, act_dim] (finite, checked by the caller). In
/// evaluation mode the rollout stops when every episode has ended, as evaluate() does, and rows
/// of ended episodes are zero; in training mode trace vectors of a step that ended an episode are
/// zero (the state was already reset). trace_vectors = false skips Env::write_trace (the
/// per-step vectors cost the DSO env about 4x its step), leaving `trace_vec` empty.
RolloutRecord run_rollout(VecSession& s, const float* actions, int T, bool trace_vectors);

}  // namespace pz::py
