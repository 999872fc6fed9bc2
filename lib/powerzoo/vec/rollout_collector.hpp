// Rollout collection on a VectorEnv for any core::Actor (a learner), with the env-side statistics
// of the collected steps and, optionally, a record of the latest collection.
//
// Design: vec must not know rl. The collector drives the abstract core::Actor (core/acting.hpp):
// per vector step actor.collect_act(obs) → VectorEnv::step_all → actor.observe(StepView). What
// the learner keeps (a PPO rollout, a SAC replay buffer, per-agent slices) is its own business;
// the collector keeps only what every learner's trainer logs (rewards, costs, episode returns).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "powerzoo/core/acting.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::vec {

/// Env-side sums over the steps of one collect() call.
struct CollectStats {
  int steps = 0;                                   ///< vector steps (each N transitions)
  double reward_sum = 0;                           ///< Σ objective reward over steps and envs
  std::vector<double> cost_sum;                    ///< [n_costs] Σ cost over steps and envs
  std::vector<double> episode_returns;             ///< objective return of each episode that ended
  std::vector<std::vector<double>> episode_costs;  ///< [episodes][n_costs] their cost sums
  double episode_shaped_sum = 0;                   ///< Σ shaped return of those episodes
  double seconds = 0;                              ///< wall time of the collection
  /// Parts of it (`seconds` holds act and env; the `between` calls are outside it): wall time in
  /// the actor's collect_act, in VectorEnv::step_all, and in the `between` calls (the learner's
  /// updates). The rest of `seconds` is the checks, observe() and these sums.
  double act_seconds = 0, env_seconds = 0, between_seconds = 0;
};

/// What the envs saw during the latest collect() (time-major), for output.trajectories =
/// "train-sample".
struct CollectRecord {
  int T = 0, N = 0, obs_dim = 0, act_dim = 0, n_costs = 0;
  std::vector<float> obs;                      ///< [T, N, obs_dim] observation acted on
  std::vector<float> action;                   ///< [T, N, act_dim] action the env received
  std::vector<float> reward;                   ///< [T, N] (multi-agent [T, N, n_agents]) shaped
  std::vector<float> costs;                    ///< [T, N, n_costs]
  std::vector<uint8_t> terminated, truncated;  ///< [T, N]
  /// Evaluation only: per-step env quantities (EnvSpec::trace_names, Info::trace) [T, N, n],
  /// 0 after a row's episode ended.
  std::vector<std::string> trace_names;
  std::vector<float> trace;
  /// Evaluation only: the env's vector quantities (EnvSpec::trace_vectors, Env::write_trace)
  /// [T, N, Σ sizes], 0 after a row's episode ended.
  std::vector<envs::TraceVector> trace_vectors;
  std::vector<float> trace_vec;
  /// Evaluation only: [N, obs_dim] the observation after each episode's last step (the state
  /// the episode ended in, which obs, recorded before each action, never shows).
  std::vector<float> final_obs;
};

class RolloutCollector {
 public:
  /// record: keep a CollectRecord of the latest collection. The VectorEnv must outlive this.
  explicit RolloutCollector(VectorEnv& venv, bool record = false);

  /// `steps` vector steps from the env's current state (no reset). Exploration noise comes from
  /// `rng` (passed to collect_act). global_step = env transitions before this call (error
  /// messages, StepView::global_step). With `between` set, calls it after every `every` vector
  /// steps (an off-policy learner's update; `every` must divide `steps`); its time is not part
  /// of CollectStats::seconds. Throws core::RunError on a non-finite observation or shaped
  /// reward, naming the env and the global step; core::ConfigError if `every` does not divide.
  CollectStats collect(core::Actor& actor, core::Rng& rng, int steps, long long global_step,
                       int every = 0, const std::function<void()>& between = {});

  /// The latest collection (empty before the first; only with record = true).
  const CollectRecord& record() const { return record_; }
  bool has_record() const { return record_.T > 0; }

 private:
  VectorEnv& venv_;
  bool keep_record_;
  CollectRecord record_;
  std::vector<float> obs_before_;        // [N, obs_dim] observation of the current step
  std::vector<float> actions_;           // [N, act_dim]
  std::vector<core::EpisodeEnd> ended_;  // episodes of the current step
};

}  // namespace pz::vec
