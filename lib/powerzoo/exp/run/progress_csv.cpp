// progress.csv writer: fixed leading columns, then the learner's train scalars by name.
#include "powerzoo/exp/run/progress_csv.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"

namespace pz::exp {
namespace fs = std::filesystem;
namespace {

// Train keys that fill the leading columns.
constexpr const char* kLeading[] = {"global_step", "wall_time", "throughput/train_sps",
                                    "episode_return"};

std::string cell(const std::map<std::string, double>& row, const std::string& key) {
  const auto it = row.find(key);
  if (it == row.end()) return "";
  return core::format_number(it->second, 6);  // "nan" for NaN, as pandas reads them
}

}  // namespace

void ProgressCsv::open(const std::string& path, const MetricHistory* history) {
  path_ = path;
  has_header_ = false;
  extra_.clear();
  waiting_eval_.clear();
  if (out_.is_open()) out_.close();
  if (history == nullptr) {
    out_.open(path, std::ios::trunc);
    if (!out_) throw core::RunError(path + ": cannot write (" + std::strerror(errno) + ")");
    return;
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  out_.open(tmp, std::ios::trunc);
  for (const HistoryRow& r : rows_in_write_order(*history)) r.eval ? eval_row(*r.row) : train_row(*r.row);
  out_.close();
  if (!out_) throw core::RunError(tmp + ": cannot write (" + std::strerror(errno) + ")");
  fs::rename(tmp, path);  // a kill leaves the old file or the new one, never half of one
  out_.open(path, std::ios::app);
  if (!out_) throw core::RunError(path + ": cannot write (" + std::strerror(errno) + ")");
}

void ProgressCsv::write_header(const std::map<std::string, double>& first_train) {
  std::string h = kHeader;
  for (const auto& [k, v] : first_train) {
    bool leading = false;
    for (const char* l : kLeading) leading = leading || k == l;
    if (!leading) {
      extra_.push_back(k);
      h += "," + k;
    }
  }
  has_header_ = true;
  emit(h + "\n");
}

std::string ProgressCsv::line(const std::map<std::string, double>& row, bool eval) const {
  std::string s = cell(row, "global_step") + "," + cell(row, "wall_time") + ",";
  if (eval) {
    s += ",," + cell(row, "return_mean") + "," + cell(row, "shaped_return_mean");
    s += std::string(extra_.size(), ',');
  } else {
    s += cell(row, "throughput/train_sps") + "," + cell(row, "episode_return") + ",,";
    for (const auto& k : extra_) s += "," + cell(row, k);
  }
  return s + "\n";
}

void ProgressCsv::train_row(const std::map<std::string, double>& row) {
  if (!has_header_) {
    write_header(row);
    for (const auto& e : waiting_eval_) emit(line(e, true));
    waiting_eval_.clear();
  }
  emit(line(row, false));
}

void ProgressCsv::eval_row(const std::map<std::string, double>& row) {
  if (!has_header_) {
    waiting_eval_.push_back(row);
    return;
  }
  emit(line(row, true));
}

void ProgressCsv::emit(const std::string& text) {
  out_ << text;
  out_.flush();  // on disk as it happens (live readers, kills)
  if (!out_)
    throw core::RunError(path_ + ": cannot write (" + std::string(std::strerror(errno)) + ")");
}

}  // namespace pz::exp
