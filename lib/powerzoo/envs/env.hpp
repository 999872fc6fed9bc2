// Environment contract (docs/design.md §4.1): immutable model + plain per-instance State, explicit
// Rng.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "powerzoo/core/rng.hpp"

namespace pz::envs {

/// A contiguous block [offset, offset + size) of an observation or action vector.
struct Slice {
  int offset = 0;
  int size = 0;
};

/// A named block of the observation vector (scaling documented by the env). Baselines and
/// wrappers find what they read by name, so a layout change breaks a test, not a policy.
struct ObsField {
  std::string name;
  Slice slice;
};

/// One agent of an env, in the env's fixed agent order: its name (battery_0), its type (the
/// group of typed parameter sharing: battery), and the blocks of the joint observation and
/// action vectors it sees and controls (blocks of different agents may overlap in obs).
struct AgentSpec {
  std::string name;
  std::string group;
  Slice obs, act;
};

/// A per-step vector quantity of an env's physics (bus voltages, branch flows, unit dispatch,
/// LMPs, SOC), recorded by evaluation trajectories as info/<name> [T, N, size]. The unit is the
/// name's suffix (_mw, _mvar, _pu, _usd_per_mwh, _frac); names starting with bus_ run over
/// EnvSpec::network's buses and names starting with branch_ over its branches, in that order.
struct TraceVector {
  std::string name;
  int size = 0;
};

/// The network of a grid env, for pictures: buses and branches in the order of the bus_ and
/// branch_ trace vectors. Empty (no buses) for envs without a network.
struct NetworkView {
  std::string case_name;                    ///< e.g. "case141"
  std::vector<int> bus_id;                  ///< [n_bus] MATPOWER BUS_I
  std::vector<int> branch_from, branch_to;  ///< [n_branch] bus ids
  std::vector<float> branch_rate_mva;       ///< [n_branch] RATE_A (0 = unlimited)
};

/// Static description of an environment: dimensions, action box, cost channels, horizon.
struct EnvSpec {
  std::string id;
  int obs_dim = 0;
  int act_dim = 0;
  std::vector<float> act_low, act_high;  ///< [act_dim]
  std::vector<std::string> cost_names;   ///< fixed order of the costs vector
  int horizon = 0;                       ///< steps per episode (time limit → truncated)
  double dt_hours = 0.5;                 ///< step length (h): $/h costs × dt_hours = $ per step
  /// Names of env-specific per-step quantities (Info::sums, same order) that are summed over an
  /// episode and reported by evaluation under these names (e.g. "total_loss_mwh"). At most
  /// Info::kMaxSums.
  std::vector<std::string> episode_sum_names;
  /// If non-empty, evaluation also runs this constant action [act_dim] on the same episodes and
  /// reports reduction_names[j] = 100·(1 − policy/reference) for episode sum j (e.g. the DSO's
  /// network_loss_reduction_pct vs no-control). Sums without a name (or with a zero reference)
  /// get no reduction metric.
  std::vector<float> reference_action;
  std::vector<std::string> reduction_names;  ///< parallel to episode_sum_names; "" = none
  /// Names of per-step quantities (Info::trace, same order) that evaluation trajectories record
  /// as trajectories/<split>/step_<n>/info/<name> [T, N] (e.g. a microgrid's power flows, which
  /// have no meaningful episode sum). At most Info::kMaxTrace.
  std::vector<std::string> trace_names;
  /// Vector quantities of the state after each step (Env::write_trace, concatenated in this
  /// order), recorded by evaluation trajectories as info/<name> [T, N, size].
  std::vector<TraceVector> trace_vectors;
  NetworkView network;  ///< grid envs: buses and branches of the bus_ / branch_ traces
  /// Named blocks of the observation, in order, tiling [0, obs_dim).
  std::vector<ObsField> obs_fields;
  /// Agents in their fixed order; empty = one agent "agent" that sees and controls everything.
  std::vector<AgentSpec> agents;

  /// agents, or the single default agent {"agent", "agent", [0, obs_dim), [0, act_dim)}.
  std::vector<AgentSpec> agent_list() const;
  int n_agents() const { return agents.empty() ? 1 : static_cast<int>(agents.size()); }
  /// One name per observation element [obs_dim]: the field's name, with [j] inside a block of
  /// more than one ("load_mw[3]"); "obs[i]" where no field covers element i.
  std::vector<std::string> obs_feature_names() const;
  /// One name per action element [act_dim]: "<agent>[j]" ("battery_0[1]"), "a[j]" for the
  /// single default agent.
  std::vector<std::string> action_feature_names() const;
  /// The observation block `name`. Throws core::ConfigError naming the env and the known fields.
  Slice obs_field(const std::string& name) const;
};

/// Consecutive observation fields from (name, size) pairs, starting at offset 0.
std::vector<ObsField> tile_obs_fields(const std::vector<std::pair<std::string, int>>& sizes);

/// Result of one transition. Rewards carry only the objective; constraints go to costs.
struct Step {
  static constexpr int kMaxAgents = 32;  ///< agents an env may declare (EnvPool: max_num_players)
  float reward = 0;                      ///< team reward; a single-agent env's only reward
  /// Reward the learner optimizes when a shaping wrapper (PenaltyEnv) set it; NaN = `reward`
  /// (and `agent_reward` for multi-agent envs).
  double shaped_reward = std::numeric_limits<double>::quiet_NaN();
  /// Multi-agent envs (EnvSpec::agents non-empty): one reward per agent in agent order, entries
  /// [0, n_agents) written by step(). Single-agent envs leave it unwritten (agent 0 = reward).
  float agent_reward[kMaxAgents];
  /// Multi-agent envs, when shaped_reward is set: each agent's learner reward.
  float agent_shaped[kMaxAgents];

  /// The learner's reward of a single-agent step: shaped_reward if set, else reward.
  double learner_reward() const { return shaped_reward == shaped_reward ? shaped_reward : reward; }
  bool terminated = false;  ///< real terminal state (e.g. solver failure)
  bool truncated = false;   ///< time limit
};

/// Outcome codes of the physics inside a step (hot path: no exceptions).
enum class StepStatus : int { kOk = 0, kSolverFailed = 1, kNonFinite = 2 };

/// Diagnostics of one step (DC transmission: gen cost in $/h, violations).
struct Info {
  /// Named episode sums an env may report (GenCos: 2 + 2 per agent + 8). Part of the vector-env
  /// checkpoint layout (vec::VectorEnv::save stores the width; a different width is refused).
  static constexpr int kMaxSums = 24;
  double gen_cost = 0;  ///< $/h
  int n_violations = 0;
  bool is_safe = true;
  StepStatus status = StepStatus::kOk;
  double sums[kMaxSums] = {};  ///< per-step values of EnvSpec::episode_sum_names
  static constexpr int kMaxTrace = 20;
  double trace[kMaxTrace] = {};  ///< per-step values of EnvSpec::trace_names (trajectories only)
};

/// Per-instance mutable state; each env defines its own subtype.
struct State {
  virtual ~State() = default;
};

/// Which episode a reset starts. episode < 0: draw a window of the split at random (training);
/// otherwise the episode-th of n_episodes evenly spaced windows (evaluation).
struct ResetOptions {
  int episode = -1;
  int n_episodes = 1;
};

class Env {
 public:
  virtual ~Env() = default;
  virtual const EnvSpec& spec() const = 0;
  virtual std::unique_ptr<State> make_state() const = 0;
  /// Starts an episode; writes obs [obs_dim].
  virtual void reset(State& s, core::Rng& rng, std::span<float> obs,
                     const ResetOptions& opt = {}) const = 0;
  /// Applies action [act_dim] (clipped to the box inside); writes obs [obs_dim] (of the state
  /// after the step, not reset) and costs [n_costs]; fills info if non-null. Never throws.
  virtual Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
                    std::span<float> costs, Info* info) const = 0;

  /// Writes the vector quantities of EnvSpec::trace_vectors (concatenated, Σ sizes floats) of the
  /// state after its last step. Evaluation only, never on the training hot path; the default
  /// (an env without trace vectors) writes nothing.
  virtual void write_trace(const State& s, std::span<float> out) const;

  /// Appends the state's values to `out` (checkpoints; integers are stored exactly as doubles).
  /// The default throws core::RunError: an env without it cannot be checkpointed mid-episode.
  virtual void save_state(const State& s, std::vector<double>& out) const;
  /// Restores a state written by save_state; returns the number of values consumed. Throws
  /// core::ConfigError if `in` is too short or inconsistent with this env.
  virtual size_t load_state(State& s, std::span<const double> in) const;
};

}  // namespace pz::envs
