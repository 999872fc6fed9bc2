// The acting side of data collection: one vector step as a view of flat arrays, and the small
// abstract Actor that vec::RolloutCollector drives. Lives in core so that rl (which implements it)
// and vec (which calls it) need not know each other.
#pragma once

#include <cstdint>
#include <span>

#include "powerzoo/core/rng.hpp"

namespace pz::core {

/// An episode that ended during the step (env index and its sums; pointers valid during
/// Actor::observe only).
struct EpisodeEnd {
  int env = 0;
  double ret = 0;                    ///< Σ objective reward
  double shaped_ret = 0;             ///< Σ shaped reward
  int length = 0;                    ///< steps
  const double* cost_sum = nullptr;  ///< [n_costs] Σ cost per channel (raw units)
};

/// One step of N envs (row-major, every pointer valid during Actor::observe only). Rewards are
/// [N, n_agents]; n_agents = 1 for today's single-agent envs.
struct StepView {
  int n = 0, obs_dim = 0, act_dim = 0, n_costs = 0, n_agents = 1;
  int t = 0;                             ///< index of this step in the current collection (0-based)
  long long global_step = 0;             ///< env transitions before this step (N per vector step)
  const float* obs = nullptr;            ///< [N, obs_dim] observation the action was taken on
  const float* actions = nullptr;        ///< [N, act_dim] actions the env received
  const float* reward = nullptr;         ///< [N, n_agents] objective reward
  const float* shaped_reward = nullptr;  ///< [N, n_agents] reward − Σ_k w_k·cost_k
  const float* costs = nullptr;          ///< [N, n_costs] raw per-step costs
  const uint8_t* terminated = nullptr;   ///< [N]
  const uint8_t* truncated = nullptr;    ///< [N]
  const float* final_obs = nullptr;      ///< [N, obs_dim] pre-reset obs, valid where done
  const float* next_obs = nullptr;       ///< [N, obs_dim] obs after the step (after auto-reset)
  std::span<const EpisodeEnd> finished;  ///< episodes that ended in this step, env order
};

/// What a collector needs from a policy that learns from its own experience. Call order per
/// vector step: collect_act on the current observations, the env steps, observe on the outcome.
class Actor {
 public:
  virtual ~Actor() = default;
  /// Training-time actions for obs [n, obs_dim] → env actions [n, act_dim], exploration noise
  /// drawn from `rng`. May remember what observe() needs (PPO: log π, V, the raw sample).
  virtual void collect_act(const float* obs, int n, Rng& rng, float* actions) = 0;
  /// The outcome of the last collect_act (rewards, dones, costs, next observations).
  virtual void observe(const StepView& step) = 0;
};

}  // namespace pz::core
