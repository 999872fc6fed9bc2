// The run directory: the one place that knows its layout (run.h5, progress.csv, ckpt/step_<n>.h5,
// ckpt/best.h5), how a new one is chosen, how resume finds and rebuilds from a checkpoint, and
// which checkpoint `powerzoo eval` reads. Used by train, eval, sweep and summarize.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/exp/run/checkpoint.hpp"
#include "powerzoo/exp/run/progress_csv.hpp"
#include "powerzoo/exp/run/tensorboard_log.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/io/hdf5.hpp"

namespace pz::exp {

/// Root attributes and resolved spec of a new run.h5 (io::RunFile::create arguments).
struct RunFileHeader {
  std::map<std::string, std::string> str_attrs;
  std::map<std::string, int64_t> int_attrs;
  std::string resolved_toml;
  std::vector<std::string> eval_splits;  ///< the layout of resumed eval rows (eval_layout.hpp)
};

class RunDirectory {
 public:
  static constexpr const char* kCkptDir = "ckpt";
  /// Pictures: [eval] render_every_steps, and plot_episode.py's default output.
  static constexpr const char* kPlotsDir = "plots";
  static constexpr const char* kRunFile = "run.h5";
  static constexpr const char* kProgress = "progress.csv";
  static constexpr const char* kProgressHeader = ProgressCsv::kHeader;

  /// Directory a training run writes to: with resume, out_dir (or the newest
  /// <experiment.out_dir>/<name>/<time> holding a run.h5); else out_dir, which must not hold a run
  /// yet, or a new <experiment.out_dir>/<name>/<UTC time>[-i]. Creates nothing. Throws
  /// core::ConfigError when out_dir is a file, already holds a run (without resume), is a sweep
  /// directory or holds anything a run does not write.
  static std::string choose(const Spec& spec, const std::string& out_dir, bool resume);

  /// The checkpoint `powerzoo eval` reads for `path`: a file is itself; a run directory gives
  /// ckpt/best.h5, else its newest ckpt/step_<n>.h5. Throws core::ConfigError if there is none.
  static std::string resolve_checkpoint(const std::string& path);
  /// Whether `dir` holds any ckpt/step_<n>.h5 (an interrupted run that resume can continue).
  static bool has_step_checkpoint(const std::string& dir);
  /// The run directory of a checkpoint file (<dir>/ckpt/<file> → <dir>).
  static std::string of_checkpoint(const std::string& ckpt_path);

  /// Whether a run writes an entry of this name in its directory (run.h5, progress.csv, ckpt/,
  /// run.lock, eval/, summary.csv, a killed writer's remnants): what --out may already hold.
  static bool owns(const std::string& name);

  /// Throws core::ConfigError if anything a run writes in `dir` (run.h5, progress.csv, ckpt/,
  /// eval/ and their entries) is a symbolic link: writing through it would write outside the run
  /// directory. `dir` itself may be a link (the user chose it).
  static void check_no_links(const std::string& dir);

  /// Throws core::ConfigError (naming `what`, e.g. "--out") if `path` is a directory or a file a
  /// run or sweep owns (run.h5 and its publishing copy, progress.csv, run.lock, sweep.json, or
  /// anything in a run's ckpt/): `eval --out`, `baseline --out` and `summarize --csv` had
  /// overwritten checkpoints and run files with exit 0. An existing file must be an earlier
  /// output of `kind` (an HDF5 file with a schema_version attribute, or a CSV with the summary
  /// header); anything else (the input spec, a FIFO) is refused.
  enum class OutputKind { kEvalHdf5, kSummaryCsv };
  static void check_output_file(const std::string& path, const std::string& what, OutputKind kind);

  explicit RunDirectory(std::string path);
  const std::string& path() const { return path_; }
  std::string run_file() const;
  std::string best_checkpoint() const;
  std::string step_checkpoint(long long step) const;

  /// Newest ckpt/step_<n>.h5 with its state and resolved spec; "" if there is none. Throws
  /// core::ConfigError if it does not read back (a run never leaves a partial one).
  std::string newest_checkpoint(core::StateDict* sd, std::string* resolved) const;

  /// Throws core::ConfigError, naming the path, if run.h5, progress.csv, ckpt/ or a checkpoint
  /// in it is not what a run writes there (a directory for a file, a FIFO, a file for ckpt/):
  /// resume found these only after it had changed the run.
  void check_layout() const;

  /// Creates ckpt/ and a new run.h5. Fresh (resumed == nullptr): clears ckpt/ and progress.csv.
  /// Resumed from global step `step`: run.h5 is rebuilt from the checkpoint's metric history
  /// (trajectories up to `step` copied from the old file when it is readable), later checkpoints
  /// are dropped and progress.csv is rewritten from the history (exp::ProgressCsv). With
  /// `kept_steps`, only the trajectories of those global steps are copied ([output]
  /// trajectory_evals: the evaluations the uninterrupted run still holds at `step`).
  io::RunFile start(const RunFileHeader& header, const MetricHistory* resumed, long long step,
                    const std::set<long long>* kept_steps = nullptr);

  /// Writes ckpt/step_<step>.h5 with `write(path)` and deletes the oldest step checkpoints beyond
  /// `keep`.
  void add_step_checkpoint(long long step, int keep,
                           const std::function<void(const std::string&)>& write);

  /// progress.csv rows (exp::ProgressCsv): a /metrics/train row, a /metrics/eval row. Throw
  /// core::RunError when the write fails (a full disk).
  /// Also TensorBoard events (exp::TensorBoardLog) when set_tensorboard(true) came before start.
  void progress_train(const std::map<std::string, double>& row) {
    progress_.train_row(row);
    tensorboard_.train_row(row);
  }
  void progress_eval(const std::map<std::string, double>& row) {
    progress_.eval_row(row);
    tensorboard_.eval_row(row);
  }
  /// [log] tensorboard: start() then writes events beside run.h5 (rewritten on a resume).
  void set_tensorboard(bool on) { tensorboard_on_ = on; }

 private:
  std::string path_;
  std::vector<std::string> kept_;  // step checkpoints, oldest first
  ProgressCsv progress_;
  bool tensorboard_on_ = false;
  TensorBoardLog tensorboard_;
};

}  // namespace pz::exp
