#include "powerzoo/exp/run/tensorboard_log.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <utility>
#include <vector>

#include "powerzoo/exp/run/eval_layout.hpp"

namespace pz::exp {
namespace fs = std::filesystem;
namespace {

constexpr const char* kPrefix = "events.out.tfevents.";  // what TensorBoard looks for

double now_epoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double value_or(const std::map<std::string, double>& row, const char* key, double fallback) {
  const auto it = row.find(key);
  return it == row.end() ? fallback : it->second;
}

}  // namespace

void TensorBoardLog::open(const std::string& run_dir, const MetricHistory* history,
                          const std::vector<std::string>& eval_splits) {
  writer_.reset();
  splits_ = eval_splits;
  double elapsed = 0;  // the run's clock at this moment: the last recorded row's wall_time
  if (history != nullptr)
    for (const auto* rows : {&history->train, &history->eval})
      for (const auto& r : *rows) elapsed = std::max(elapsed, value_or(r, "wall_time", 0));
  epoch0_ = now_epoch() - elapsed;
  for (const auto& e : fs::directory_iterator(run_dir))
    if (e.path().filename().string().rfind(kPrefix, 0) == 0) fs::remove(e.path());
  const std::string name =
      kPrefix + std::to_string(static_cast<long long>(std::floor(epoch0_))) + ".powerzoo";
  // Rewritten under a name TensorBoard ignores, then renamed: a kill leaves no half file to it.
  const std::string tmp = (fs::path(run_dir) / ("tensorboard.tmp." + std::to_string(::getpid())));
  writer_ = std::make_unique<io::TbEventWriter>(tmp);
  if (history != nullptr) {
    for (const HistoryRow& r : rows_in_write_order(*history))
      r.eval ? write_eval(*r.row) : write(*r.row, "train/");
  }
  writer_.reset();
  const std::string path = (fs::path(run_dir) / name).string();
  fs::rename(tmp, path);
  writer_ = std::make_unique<io::TbEventWriter>(path, io::TbEventWriter::kAppend);
}

void TensorBoardLog::train_row(const std::map<std::string, double>& row) {
  if (writer_) write(row, "train/");
}

void TensorBoardLog::eval_row(const std::map<std::string, double>& row) {
  if (writer_) write_eval(row);
}

void TensorBoardLog::write_eval(const std::map<std::string, double>& flat) {
  write(splits_.empty() ? flat : per_split_eval_row(flat, splits_), "eval/");
}

void TensorBoardLog::write(const std::map<std::string, double>& row, const std::string& prefix) {
  std::vector<std::pair<std::string, float>> values;
  for (const auto& [k, v] : row)
    if (k != "global_step" && k != "wall_time") values.emplace_back(prefix + k, static_cast<float>(v));
  const auto step = static_cast<int64_t>(value_or(row, "global_step", 0));
  writer_->write_scalars(step, epoch0_ + value_or(row, "wall_time", 0), values);
}

}  // namespace pz::exp
