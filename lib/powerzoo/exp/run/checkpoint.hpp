// Run checkpoints: learner state, every Rng stream, the vector env, loop counters and the metric
// history, so a resumed run continues exactly as if it had never stopped.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/rl/learner.hpp"

namespace pz::vec {
class VectorEnv;
}

namespace pz::exp {

/// Stream ids: env i of the training VectorEnv uses (seed, kEnvStreamBase + i).
inline constexpr uint64_t kEnvStreamBase = 1ull << 32;

/// The learner-side random streams of a run, each derived from the master seed.
struct RunStreams {
  explicit RunStreams(uint64_t seed) : init(seed, 1), action(seed, 2), shuffle(seed, 3) {}
  core::Rng init;     ///< parameter initialization
  core::Rng action;   ///< rollout action sampling
  core::Rng shuffle;  ///< minibatch permutations
};

/// Counters of the training loop (cadence bookkeeping of the reference trainer, PowerZooJax's seed
/// PPO trainer (nnx-ppo)).
struct LoopCounters {
  long long global_step = 0;
  long long last_eval = 0;
  long long last_ckpt = 0;
  int64_t iteration = 0;
  double best_eval = -std::numeric_limits<double>::infinity();  ///< best eval shaped return
  double wall_time = 0;  ///< seconds of training before this process (resume offset)
};

/// Every metric row written so far, per group ("train" → /metrics/train, "eval" →
/// /metrics/eval). Kept in checkpoints so a resume rebuilds run.h5 even if a kill left it corrupt.
struct MetricHistory {
  std::vector<std::map<std::string, double>> train, eval;
};

/// A row of a MetricHistory and its group.
struct HistoryRow {
  bool eval = false;
  const std::map<std::string, double>* row = nullptr;
};

/// The rows of `history` in the order the run wrote them: by global_step, and at one step the
/// train row before the evaluation (so the step-0 evaluation comes first). The logs that are
/// rebuilt on resume (progress.csv, TensorBoard events) replay them in this order.
std::vector<HistoryRow> rows_in_write_order(const MetricHistory& history);

void put_rng(core::StateDict& sd, const std::string& name, const core::Rng& rng);
core::Rng get_rng(const core::StateDict& sd, const std::string& name);

/// Writes a checkpoint atomically (temp file + rename): learner (parameters, Adam moments,
/// normalizer), Rng streams, vector env (env states, env Rngs, running episode statistics,
/// observations), counters, metric history, the resolved spec and, if not empty, the run's data
/// files (exp::data_files_text, entry kDataFilesEntry).
void write_run_checkpoint(const std::string& path, const rl::Learner& learner,
                          const RunStreams& rngs, const vec::VectorEnv& venv,
                          const LoopCounters& counters, const MetricHistory& history,
                          const std::string& resolved_toml, const std::string& data_files = "");

/// StateDict string entry of a checkpoint that lists the run's data files and their hashes.
inline constexpr const char* kDataFilesEntry = "data/files";

/// The checkpoint's data-files record ("" when the run read no files, so wrote none). Throws
/// core::ConfigError if the entry holds another type than a string.
std::string recorded_data_files(const core::StateDict& sd);

/// Inverse of write_run_checkpoint for an already-constructed learner and vector env of the same
/// spec. Throws core::ConfigError on missing or mismatched entries.
void restore_run_checkpoint(const core::StateDict& sd, rl::Learner& learner, RunStreams& rngs,
                            vec::VectorEnv& venv, LoopCounters& counters, MetricHistory& history);

}  // namespace pz::exp
