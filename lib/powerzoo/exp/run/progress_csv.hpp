// progress.csv: one line per train row and per evaluation, every train scalar a column, flushed as
// written (for `tail -f`, pandas and live plots).
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "powerzoo/exp/run/checkpoint.hpp"

namespace pz::exp {

class ProgressCsv {
 public:
  /// The first columns, in this order, of every progress.csv (a run's own file starts with them).
  static constexpr const char* kHeader =
      "global_step,wall_time,train_sps,train_episode_return,eval_return_mean,"
      "eval_shaped_return_mean";

  /// Starts `path` afresh, or (history != nullptr, a resume) rewrites it from the checkpoint's
  /// metric history, so that it holds exactly the rows up to the checkpoint whatever a kill left.
  /// Throws core::RunError when it cannot be written.
  void open(const std::string& path, const MetricHistory* history);

  /// A train row (keys as in /metrics/train): global_step, wall_time, throughput/train_sps and
  /// episode_return fill the first columns; every other scalar follows, sorted by name. The
  /// columns are fixed by the first train row (an evaluation before it waits for it); a later
  /// new name is left out (run.h5 has it). Cells of missing scalars are empty.
  void train_row(const std::map<std::string, double>& row);
  /// An evaluation row (keys as in /metrics/eval): return_mean and shaped_return_mean.
  void eval_row(const std::map<std::string, double>& row);

 private:
  void write_header(const std::map<std::string, double>& first_train);
  std::string line(const std::map<std::string, double>& row, bool eval) const;
  void emit(const std::string& text);

  std::string path_;
  std::ofstream out_;
  bool has_header_ = false;
  std::vector<std::string> extra_;  ///< train scalars after the first six columns
  std::vector<std::map<std::string, double>> waiting_eval_;  ///< before the first train row
};

}  // namespace pz::exp
