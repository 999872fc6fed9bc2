// On-policy rollout buffer (time-major [T, N]) and the GAE recursion that reads it.
#pragma once

#include <cstdint>
#include <vector>

#include "powerzoo/rl/config.hpp"

namespace pz::rl {

/// One rollout of T steps over N envs, time-major. Filled by the trainer, read by update().
/// Observations are raw (un-normalized); actions are the raw Gaussian samples u (the env clips;
/// with Squash::kTanh the env received tanh(u)).
struct Rollout {
  int T = 0, N = 0, obs_dim = 0, act_dim = 0;
  std::vector<float> obs;          ///< [T, N, obs_dim] observation the action was taken on
  std::vector<float> actions;      ///< [T, N, act_dim]
  std::vector<float> logp;         ///< [T, N] log-likelihood at rollout time
  std::vector<float> values;       ///< [T, N] critic value at rollout time (clip_value_loss)
  std::vector<float> rewards;      ///< [T, N]
  std::vector<uint8_t> dones;      ///< [T, N] terminated OR truncated
  std::vector<uint8_t> truncated;  ///< [T, N] time-limit truncation (implies done)
  std::vector<float> final_obs;    ///< [T, N, obs_dim] pre-reset obs, valid where dones
  std::vector<float> next_obs;     ///< [N, obs_dim] obs after the last step (bootstrap)
  int n_costs = 0;                 ///< k cost channels (PPO-Lagrangian), 0 otherwise
  std::vector<float> costs;        ///< [T, N, k] per-step costs (already divided by cost_scale)
  void resize(int T, int N, int obs_dim, int act_dim, int n_costs = 0);
};

/// GAE for one env column (GAE, Schulman et al. 2015, arXiv:1506.02438, with PowerZooJax's seed PPO
/// trainer (nnx-ppo)'s done rules), exposed for tests. All arrays have length T except
/// `values_next` which holds V(s_{t+1}) as seen by step t: V(obs_{t+1}) for t < T−1, the
/// bootstrap value for t = T−1, and V(final_obs_t) at truncated steps (kBootstrap).
/// Writes advantages [T]. Returns nothing; targets are values + advantages.
void gae(int T, const float* rewards, const float* values, const float* values_next,
         const uint8_t* dones, const uint8_t* truncated, double gamma, double lambda,
         Truncation mode, float* advantages);

}  // namespace pz::rl
