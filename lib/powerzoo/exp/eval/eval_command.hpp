// `powerzoo eval`: a checkpoint (or run directory) evaluated deterministically on a split, written
// to its own eval file; training outputs are never modified.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pz::exp {

struct EvalCommandOptions {
  std::string path;  ///< checkpoint file or run directory (RunDirectory::resolve_checkpoint)
  std::string split = "iid";  ///< split to evaluate on
  int episodes = 0;           ///< evenly spaced episodes (0 = the checkpoint's eval.n_episodes)
  int threads = 0;            ///< worker threads (0 = all cores)
  std::string out;            ///< eval file ("" = <run dir>/eval/<checkpoint>_<split>.h5)
  /// "section.key=value" of [env] or [eval] applied to the checkpoint's spec (changed
  /// conditions: calendar, load scale, ratings, data files, outages). Refused
  /// (core::ConfigError) for any other section, or when the env they build (on the split)
  /// differs from the checkpoint's training env in its observation or action layout or agents
  /// (match_layout: added cost channels are reported; outages switched off are adapted).
  std::vector<std::string> overrides;
};

struct EvalCommandResult {
  std::string checkpoint;                 ///< the checkpoint that was read
  std::string eval_file;                  ///< the file written
  std::map<std::string, double> metrics;  ///< the eval row (plus global_step of the checkpoint)
  int episodes = 0;                       ///< episodes evaluated
  std::string data_changes;  ///< data files changed since the checkpoint (data_file_changes)
};

/// Rebuilds the env and the learner from the checkpoint's resolved spec, loads the learner state,
/// evaluates its deterministic policy and writes /metrics/eval and /trajectories/<split> to the
/// eval file. Throws core::ConfigError for a missing/unreadable checkpoint or a bad split.
EvalCommandResult run_eval_command(const EvalCommandOptions& opt);

}  // namespace pz::exp
