// The Learner interface every algorithm implements (act, collect/observe, update, save/load), the
// context it is built from (the registry of learners is rl/learner_registry.hpp).
//
// Split (after SB3's BaseAlgorithm / OnPolicyAlgorithm / OffPolicyAlgorithm, CleanRL's loops):
// the trainer (exp/train/train.cpp) owns the cadence (eval, checkpoints, logging);
// vec::RolloutCollector owns the env side of collection (steps, episode statistics); the learner
// owns everything that depends on the algorithm: what it stores per step (on-policy rollout, replay
// buffer, per-agent slices), when it is ready to learn, and how it learns.
//  - On-policy (PPO): collect_steps() = T; observe() fills the rollout; update() runs the epochs.
//  - Off-policy (SAC): collect_steps() = the vector steps of one train row; update_every() = 1, so
//    the trainer calls update() after every vector step; observe() pushes transitions into a
//    replay buffer; update() takes the gradient steps (none before learning_starts).
//  - Multi-agent (IPPO): act/collect_act see the whole env observation [n, obs_dim] and write the
//    whole env action [n, act_dim]; the learner slices both per agent (LearnerContext::agents) and
//    reads per-agent rewards from StepView (n_agents columns).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/core/acting.hpp"
#include "powerzoo/core/params.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"

namespace pz::core {
class ThreadPool;
}

namespace pz::rl {

/// The observation and action columns of one agent in the env's flat vectors.
struct AgentSlice {
  std::string name;  ///< the env's agent name (typed sharing groups by its prefix before '_')
  int obs_offset = 0, obs_dim = 0;
  int act_offset = 0, act_dim = 0;
};

/// Everything a learner is built from: the env's shapes, the trainer's batch size, the safety
/// constraints (Safe RL), the keys shared by every learner ([learner]) and the values of the
/// learner sections the selected learner reads ([ppo], [sac], ...: each learner family turns its
/// sections into its own config in its own files).
struct LearnerContext {
  int obs_dim = 0, act_dim = 0;
  int n_envs = 1;   ///< N of the training VectorEnv (rows of every collect_act/observe call)
  int horizon = 0;  ///< steps per episode of the env
  /// The env's action box [act_dim] each (±inf = unbounded); Beta and squashed policies map to it.
  std::vector<float> act_low, act_high;
  std::vector<AgentSlice> agents;  ///< one per agent; empty = one agent seeing everything
  // [safety] constraints resolved on the env: cost-channel indices into StepView::costs, names,
  // per-episode budgets (raw units) and cost scales (one per constraint). Before the env is
  // known (spec checks) names and thresholds are set, channels are empty.
  std::vector<int> constraint_channels;
  std::vector<std::string> constraint_names;
  std::vector<double> thresholds, cost_scale;
  // [learner]: the keys every learner shares.
  std::string algo;                 ///< registered learner name
  int64_t total_steps = 1'000'000;  ///< env steps to train
  int rollout_length = 48;          ///< vector steps per train row (PPO's T)
  /// Values of the learner sections (section name -> keys); a missing section or key reads as
  /// its declared default (rl::make_learner completes them).
  std::map<std::string, core::ParamTable> sections;
  /// Built to act only (evaluation of a checkpoint): training-batch checks do not apply.
  bool acting_only = false;
  /// Where each spec key was set ("ppo.gamma" -> "spec.toml:12: ") and the spec file, for the
  /// error prefixes of checks; empty when built in code.
  std::map<std::string, std::string> spec_where;
  std::string spec_file;
  std::string env_id;  ///< the env's id, for messages
  /// Error prefix of a spec key: where it was set, else "<spec file>: ", else "".
  std::string where(const std::string& dotted) const;
  /// Whether the spec set `dotted` ("ppo.n_minibatches").
  bool given(const std::string& dotted) const { return spec_where.count(dotted) > 0; }
  /// The keys of `section` (empty table if absent).
  const core::ParamTable& section(const std::string& name) const;
  /// Workers the learner may run its batched work on (acting, updates); nullptr = the calling
  /// thread only. Not owned; must outlive the learner's use of it. A learner's results must not
  /// depend on it (fixed blocks, reduced in order).
  core::ThreadPool* pool = nullptr;
};

/// A reinforcement-learning algorithm as the trainer, evaluation, checkpoints and bench see it.
class Learner : public core::Actor {
 public:
  /// Registered name ([learner] algo).
  virtual const std::string& name() const = 0;
  /// Batched policy on raw observations obs [n, obs_dim] → env actions [n, act_dim]: sampled from
  /// *rng, or deterministic (the mode) when rng == nullptr. Leaves the training buffers alone.
  virtual void act(const float* obs, int n, core::Rng* rng, float* actions) = 0;
  // core::Actor: collect_act(obs, n, rng, actions) and observe(step) during collection.
  /// Vector steps (collect_act + observe pairs) of one training iteration, i.e. one train row.
  virtual int collect_steps() const = 0;
  /// Vector steps between update() calls inside an iteration; divides collect_steps(). On-policy
  /// learners update once per iteration (the default); an off-policy learner returns 1.
  virtual int update_every() const { return collect_steps(); }
  /// Learns from what observe() gathered since the last update: PPO's epochs over the rollout,
  /// SAC's gradient steps. `rng` drives minibatch sampling. Returns the metrics of the update
  /// (the trainer averages the updates of an iteration per key into its train row; an update
  /// that did not learn returns none). Throws core::RunError on a non-finite loss or gradient.
  virtual std::map<std::string, double> update(core::Rng& rng) = 0;
  /// Live values for progress output (e.g. "lambda/<constraint>"); empty by default.
  virtual std::map<std::string, double> status() const { return {}; }
  /// Appends views of every trainable parameter array (actor, critics, log_std; not optimizer
  /// moments, normalizers or target networks) to `out`, for [log] weight statistics. The views
  /// stay valid until the next update. Default: none.
  virtual void trainable_parameters(std::vector<std::span<const float>>& out) const { (void)out; }
  /// Full state (parameters, optimizer, normalizers, duals, replay buffer) under "learner/".
  virtual void save(core::StateDict& sd) const = 0;
  /// Inverse of save(); throws core::ConfigError if the entries do not fit this learner.
  virtual void load(const core::StateDict& sd) = 0;
};

/// Builds a learner from its context; draws its initial parameters from `init_rng`.
using LearnerFactory =
    std::function<std::unique_ptr<Learner>(const LearnerContext& ctx, core::Rng& init_rng)>;

}  // namespace pz::rl
