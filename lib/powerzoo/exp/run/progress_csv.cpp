// progress.csv writer: fixed leading columns, then the learner's train scalars by name.
#include "powerzoo/exp/run/progress_csv.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "powerzoo/core/error.hpp"

namespace pz::exp {
namespace fs = std::filesystem;
namespace {

// Train keys that fill the leading columns.
constexpr const char* kLeading[] = {"global_step", "wall_time", "throughput/train_sps",
                                    "episode_return"};

std::string cell(const std::map<std::string, double>& row, const std::string& key) {
  const auto it = row.find(key);
  if (it == row.end()) return "";
  std::ostringstream s;
  s << it->second;  // 6 significant digits, "nan" for NaN, as pandas reads them
  return s.str();
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
  // Rows of the history in the order the run wrote them: at one step the train row, then the
  // evaluation (the step-0 evaluation comes first).
  std::vector<std::pair<std::pair<double, int>, const std::map<std::string, double>*>> rows;
  for (const auto& r : history->train)
    rows.push_back({{r.count("global_step") ? r.at("global_step") : 0, 0}, &r});
  for (const auto& r : history->eval)
    rows.push_back({{r.count("global_step") ? r.at("global_step") : 0, 1}, &r});
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  out_.open(tmp, std::ios::trunc);
  for (const auto& [key, row] : rows) key.second == 0 ? train_row(*row) : eval_row(*row);
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
