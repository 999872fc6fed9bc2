// Result files under a directory (run.h5, `powerzoo baseline --out` and `powerzoo eval --out`
// files), each read into a RunRecord: its kind, seed, configuration and last evaluation row.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pz::exp {

/// One result file found under the directory.
struct RunRecord {
  std::string file;
  std::string kind;  ///< "run" for run.h5, "baseline:<policy>" for baseline files, "eval" for
                     ///< eval files (`powerzoo eval --out`: a checkpoint's evaluation)
  int64_t seed = 0;
  /// kind + canonical TOML, experiment seed/name/out_dir and vec.threads cleared; an eval file
  /// adds what it evaluated ([checkpoint] file = "best.h5", episodes), so that evaluations of
  /// one run's checkpoints at two steps are two configurations, not a copy
  std::string config_key;
  std::string resolved;   ///< /config/resolved as stored
  double final_step = 0;  ///< global_step of the last eval row (NaN for baselines)
  std::map<std::string, double> last_eval;  ///< every /metrics/eval column at its last row
  /// The file's eval splits, its main (bare-named) split first: the file's own eval_splits
  /// attribute (an eval or baseline file of one split lists that split, whatever the spec's
  /// [eval] splits say); empty for files from before it, whose splits are the spec's.
  std::vector<std::string> splits;
  /// run.h5 status attribute (running, finished, failed, interrupted; "" in files from before it
  /// was recorded, and in baseline files) and its reason.
  std::string status, status_reason;
};

/// Finds result files under `dir` (recursively, sorted): every run.h5 and every other .h5 with a
/// root attribute `policy` (files of `powerzoo baseline --out`) or `checkpoint` (files of
/// `powerzoo eval --out`); checkpoint files are skipped.
/// run.h5 files without an evaluation row yet (a run that just started) are not results: they go
/// to `pending` (if given) so the caller can say so instead of skipping them silently.
/// Runs whose status says they did not finish (running, failed, interrupted) go to `unfinished`
/// as "FILE: STATUS (REASON)" unless include_unfinished.
std::vector<RunRecord> find_runs(const std::string& dir,
                                 std::vector<std::string>* pending = nullptr,
                                 std::vector<std::string>* unfinished = nullptr,
                                 bool include_unfinished = false);

/// "section.key" -> value text of a canonical TOML document (one key per line, as to_toml writes).
std::map<std::string, std::string> flat_keys(const std::string& toml);

}  // namespace pz::exp
