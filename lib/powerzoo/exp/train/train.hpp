// Training loop: collection and learner updates, cadence of evaluation, checkpoints and logging.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/exp/spec/learners.hpp"
#include "powerzoo/exp/spec/spec.hpp"

namespace pz::exp {

/// One training iteration's wall time and its parts (steady clock), for `powerzoo bench`.
struct IterationTiming {
  long long steps = 0;        ///< env transitions of the iteration (T·N)
  double seconds = 0;         ///< the whole iteration: collection, updates, train row, logging
  double env_seconds = 0;     ///< in VectorEnv::step_all (the envs, on the pool)
  double act_seconds = 0;     ///< in the learner's collect_act (policy forward and sampling)
  double update_seconds = 0;  ///< in the learner's update() calls
  bool learned = false;       ///< an update() of the iteration trained (reported metrics)
};

struct TrainOptions {
  std::string out_dir;  ///< run directory to use as is ("" = out_dir/name/<timestamp>)
  int threads = -1;     ///< overrides vec.threads if >= 0
  bool quiet = false;   ///< no progress output
  /// Off a terminal: a progress line every this many seconds (<= 0: none). On a terminal the
  /// line refreshes about once a second.
  double log_every_seconds = 30;
  /// Continue from the newest complete checkpoint (ckpt/step_<n>.h5) of the run directory
  /// (out_dir, or the newest out_dir/name/<time> directory). Rows of run.h5 and progress.csv
  /// after that checkpoint are dropped; the rest of the run reproduces the uninterrupted one.
  /// Without a usable checkpoint the run starts from scratch in that directory.
  bool resume = false;
  /// Take the run directory's exp::RunLock for the run (false: the caller holds it already, as a
  /// sweep trial does before it records the trial as running).
  bool take_lock = true;
  /// Called after each iteration (its train row recorded, due evaluations and checkpoints
  /// written); returning false ends the run there as if learner.total_steps were reached.
  std::function<bool(const IterationTiming&)> on_iteration;
};

struct TrainResult {
  std::string run_dir;
  std::string run_file;
  double last_eval_return = 0;
  /// The signal (core::stop_signal) that stopped the run after its checkpoint at `steps`, or 0
  /// when it ran to the end. run.h5 says status = "interrupted" then, "finished" otherwise.
  int stopped_by = 0;
  long long steps = 0;  ///< global step reached
};

/// Trains one configuration (DESIGN.md §4.3–4.4). Everything that can be validated (case, profile,
/// splits, penalty channels) is checked before the run directory is created. Throws
/// core::ConfigError for bad input (nothing written) and core::RunError for failures during the
/// run (run.h5 stays readable up to the last flushed iteration, with status = "failed" and the
/// reason in status_reason when it can still be written). A stop signal (core::stop_signal)
/// ends the run after the current iteration with a checkpoint (TrainResult::stopped_by).
TrainResult train(const Spec& spec, const TrainOptions& opt);

/// Everything train() checks before it creates the run directory: builds the train and eval
/// envs, checks [safety] names, penalty channels and batching. Writes nothing. Throws
/// core::ConfigError as train() would. A sweep calls it on every trial before the first runs.
void validate_train(const Spec& spec);

/// A warning for settings the spec's learner ignores (today: [safety] constraints with a learner
/// that has no constraint handling), or "" when there is none.
std::string unused_settings_warning(const Spec& spec);

/// Cadence rule of the reference trainer: fire when steps crosses a new multiple of every.
inline bool should_run(long long steps, long long last, long long every) {
  return every > 0 && steps / every > last / every;
}

}  // namespace pz::exp
