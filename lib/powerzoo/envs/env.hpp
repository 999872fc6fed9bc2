// Environment contract (DESIGN.md §4.1): immutable model + plain per-instance State, explicit Rng.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"

namespace pz::envs {

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
};

/// Result of one transition. reward carries only the objective; constraints go to costs.
struct Step {
  float reward = 0;
  bool terminated = false;  ///< real terminal state (e.g. solver failure)
  bool truncated = false;   ///< time limit
};

/// Outcome codes of the physics inside a step (hot path: no exceptions).
enum class StepStatus : int { kOk = 0, kSolverFailed = 1, kNonFinite = 2 };

/// Diagnostics of one step (DC transmission: gen cost in $/h, violations).
struct Info {
  static constexpr int kMaxSums = 8;
  double gen_cost = 0;  ///< $/h
  int n_violations = 0;
  bool is_safe = true;
  StepStatus status = StepStatus::kOk;
  double sums[kMaxSums] = {};  ///< per-step values of EnvSpec::episode_sum_names
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

  /// Appends the state's values to `out` (checkpoints; integers are stored exactly as doubles).
  /// The default throws core::RunError: an env without it cannot be checkpointed mid-episode.
  virtual void save_state(const State& s, std::vector<double>& out) const;
  /// Restores a state written by save_state; returns the number of values consumed. Throws
  /// core::ConfigError if `in` is too short or inconsistent with this env.
  virtual size_t load_state(State& s, std::span<const double> in) const;
};

}  // namespace pz::envs
