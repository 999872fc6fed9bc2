// TensorBoard events beside run.h5 ([log] tensorboard = true): every train and eval scalar of
// /metrics/train and /metrics/eval at its global step, for `tensorboard --logdir RUN_DIR`.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/exp/run/checkpoint.hpp"
#include "powerzoo/io/tb_events.hpp"

namespace pz::exp {

class TensorBoardLog {
 public:
  /// Starts RUN_DIR/events.out.tfevents.<epoch>.powerzoo afresh, removing the run's earlier
  /// events files; on a resume (history != nullptr) it is rewritten from the checkpoint's metric
  /// history first, so that it holds exactly the rows up to the checkpoint, like progress.csv.
  /// Event wall times continue the run's own clock (its wall_time column). `eval_splits` (main
  /// first) name the splits of the flat eval rows (exp/run/eval_layout). Throws core::RunError
  /// when the file cannot be written.
  void open(const std::string& run_dir, const MetricHistory* history,
            const std::vector<std::string>& eval_splits);
  bool is_open() const { return writer_ != nullptr; }

  /// A /metrics/train row: every scalar but global_step and wall_time as "train/<name>".
  void train_row(const std::map<std::string, double>& row);
  /// A flat eval row (the main split's columns bare): every scalar as "eval/<split>/<metric>",
  /// the shared ones (throughput/*) as "eval/<name>", as run.h5 lays them out.
  void eval_row(const std::map<std::string, double>& row);

 private:
  void write(const std::map<std::string, double>& row, const std::string& prefix);
  void write_eval(const std::map<std::string, double>& flat);

  std::unique_ptr<io::TbEventWriter> writer_;
  double epoch0_ = 0;  ///< Unix time at the run's wall_time 0
  std::vector<std::string> splits_;
};

}  // namespace pz::exp
