// Training loop: rollouts, PPO updates, cadence of evaluation, checkpoints and logging.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/exp/spec.hpp"

namespace pz::exp {

struct TrainOptions {
  std::string out_dir;  ///< run directory to use as is ("" = out_dir/name/<timestamp>)
  int threads = -1;     ///< overrides vec.threads if >= 0
  bool quiet = false;   ///< no progress output
  /// Continue from the newest complete checkpoint (ckpt/step_<n>.h5) of the run directory
  /// (out_dir, or the newest out_dir/name/<time> directory). Rows of run.h5 and progress.csv
  /// after that checkpoint are dropped; the rest of the run reproduces the uninterrupted one.
  /// Without a usable checkpoint the run starts from scratch in that directory.
  bool resume = false;
};

/// The Safe-RL view of a spec on an env (rl.md §2.1 SafeRLWrapper): [safety] constraints resolved
/// to cost-channel indices, thresholds (empty → 0) and cost_scale broadcast to one per channel.
struct SafetyView {
  std::vector<int> channels;  ///< indices into EnvSpec::cost_names
  std::vector<std::string> names;
  std::vector<double> thresholds;  ///< per-episode budgets, raw units
  std::vector<double> cost_scale;
};
/// Throws core::ConfigError (with a did-you-mean) for a name that is not a cost channel of env.
SafetyView safety_view(const Spec& spec, const envs::EnvSpec& env_spec);

/// The env a learner of `spec` acts on: make_env(spec, split), wrapped in a Sauté env (budget
/// observation; reward shaping only if `training`) when ppo.algo = "saute_ppo".
std::shared_ptr<const envs::Env> make_learner_env(const Spec& spec, const std::string& split,
                                                  bool training);
/// Cost critics of the spec's learner: the number of [safety] constraints for ppo_lagrangian,
/// else 0 (pass to the rl::PpoLearner constructor to load its checkpoints).
int learner_cost_channels(const Spec& spec);

struct TrainResult {
  std::string run_dir;
  std::string run_file;
  double last_eval_return = 0;
};

/// Trains one configuration (DESIGN.md §4.3–4.4). Everything that can be validated (case, profile,
/// splits, penalty channels) is checked before the run directory is created. Throws
/// core::ConfigError for bad input (nothing written) and core::RunError for failures during the
/// run (run.h5 stays readable up to the last flushed iteration).
TrainResult train(const Spec& spec, const TrainOptions& opt);

/// Cadence rule of the reference trainer: fire when steps crosses a new multiple of every.
inline bool should_run(long long steps, long long last, long long every) {
  return every > 0 && steps / every > last / every;
}

}  // namespace pz::exp
