// TensorBoard events beside run.h5 ([log] tensorboard = true): every train and eval scalar of
// /metrics/train and /metrics/eval at its global step, for `tensorboard --logdir RUN_DIR`.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "powerzoo/exp/run/checkpoint.hpp"
#include "powerzoo/io/tb_events.hpp"

namespace pz::exp {

class TensorBoardLog {
 public:
  /// Starts RUN_DIR/events.out.tfevents.<epoch>.powerzoo afresh, removing the run's earlier
  /// events files; on a resume (history != nullptr) it is rewritten from the checkpoint's metric
  /// history first, so that it holds exactly the rows up to the checkpoint, like progress.csv.
  /// Event wall times continue the run's own clock (its wall_time column). Throws core::RunError
  /// when the file cannot be written.
  void open(const std::string& run_dir, const MetricHistory* history);
  bool is_open() const { return writer_ != nullptr; }

  /// A /metrics/train row: every scalar but global_step and wall_time as "train/<name>".
  void train_row(const std::map<std::string, double>& row);
  /// A /metrics/eval row: every scalar ("<split>/<metric>") as "eval/<split>/<metric>".
  void eval_row(const std::map<std::string, double>& row);

 private:
  void write(const std::map<std::string, double>& row, const std::string& prefix);

  std::unique_ptr<io::TbEventWriter> writer_;
  double epoch0_ = 0;  ///< Unix time at the run's wall_time 0
};

}  // namespace pz::exp
