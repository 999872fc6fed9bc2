// Run checkpoint assembly and restore.
#include "powerzoo/exp/run/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/params.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::exp {
namespace {

// Rows → columns "history/<group>/<name>" (NaN where a row lacks a column).
void put_rows(core::StateDict& sd, const std::string& group,
              const std::vector<std::map<std::string, double>>& rows) {
  std::set<std::string> names;
  for (const auto& r : rows)
    for (const auto& [k, v] : r) names.insert(k);
  for (const auto& n : names) {
    std::vector<double> col(rows.size(), std::numeric_limits<double>::quiet_NaN());
    for (size_t i = 0; i < rows.size(); ++i)
      if (auto it = rows[i].find(n); it != rows[i].end()) col[i] = it->second;
    sd.f64["history/" + group + "/" + n] = std::move(col);
  }
  sd.i64["history/" + group + "_rows"] = {static_cast<int64_t>(rows.size())};
}

std::vector<std::map<std::string, double>> get_rows(const core::StateDict& sd,
                                                    const std::string& group) {
  auto it = sd.i64.find("history/" + group + "_rows");
  if (it == sd.i64.end() &&
      (sd.f64.count("history/" + group + "_rows") || sd.f32.count("history/" + group + "_rows")))
    throw core::ConfigError(core::absent_entry(sd, "history/" + group + "_rows", "int64"));
  if (it == sd.i64.end() || it->second.size() != 1)
    throw core::ConfigError("checkpoint: missing metric history '" + group + "'");
  // The row count is checked against the columns before anything is sized by it (a corrupt
  // count asked for petabytes).
  const int64_t n_rows = it->second[0];
  const std::string prefix = "history/" + group + "/";
  size_t n_cols = 0;
  for (const auto& [name, col] : sd.f64) {
    if (name.rfind(prefix, 0) != 0) continue;
    ++n_cols;
    if (n_rows < 0 || col.size() != static_cast<uint64_t>(n_rows))
      throw core::ConfigError("checkpoint: metric history column '" + name + "' has " +
                              std::to_string(col.size()) + " rows, expected " +
                              std::to_string(n_rows));
  }
  if (n_cols == 0 && n_rows != 0)
    throw core::ConfigError("checkpoint: metric history '" + group + "' has " +
                            std::to_string(n_rows) + " rows but no columns");
  std::vector<std::map<std::string, double>> rows(static_cast<size_t>(n_rows));
  for (const auto& [name, col] : sd.f64) {
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string metric = name.substr(prefix.size());
    for (size_t i = 0; i < rows.size(); ++i)
      if (!std::isnan(col[i])) rows[i][metric] = col[i];
  }
  return rows;
}

int64_t get_i64(const core::StateDict& sd, const std::string& name) {
  auto it = sd.i64.find(name);
  if (it == sd.i64.end()) throw core::ConfigError(core::absent_entry(sd, name, "int64"));
  if (it->second.size() != 1)
    throw core::ConfigError("checkpoint: counter '" + name + "' expected 1 value, found " +
                            std::to_string(it->second.size()));
  return it->second[0];
}

double get_f64(const core::StateDict& sd, const std::string& name) {
  auto it = sd.f64.find(name);
  if (it == sd.f64.end()) throw core::ConfigError(core::absent_entry(sd, name, "float64"));
  if (it->second.size() != 1)
    throw core::ConfigError("checkpoint: counter '" + name + "' expected 1 value, found " +
                            std::to_string(it->second.size()));
  return it->second[0];
}

}  // namespace

std::string recorded_data_files(const core::StateDict& sd) {
  const auto it = sd.str.find(kDataFilesEntry);
  if (it != sd.str.end()) return it->second;
  if (sd.f32.count(kDataFilesEntry) || sd.f64.count(kDataFilesEntry) ||
      sd.i64.count(kDataFilesEntry))
    throw core::ConfigError(core::absent_entry(sd, kDataFilesEntry, "string"));
  return "";  // deleted, or a group: data_file_changes then finds the files missing
}

std::vector<HistoryRow> rows_in_write_order(const MetricHistory& history) {
  const auto step = [](const std::map<std::string, double>& r) {
    const auto it = r.find("global_step");
    return it == r.end() ? 0.0 : it->second;
  };
  std::vector<HistoryRow> rows;
  for (const auto& r : history.train) rows.push_back({false, &r});
  for (const auto& r : history.eval) rows.push_back({true, &r});
  std::stable_sort(rows.begin(), rows.end(), [&](const HistoryRow& a, const HistoryRow& b) {
    const double sa = step(*a.row), sb = step(*b.row);
    return sa != sb ? sa < sb : (!a.eval && b.eval);
  });
  return rows;
}

void put_rng(core::StateDict& sd, const std::string& name, const core::Rng& rng) {
  const auto s = rng.state();
  std::vector<int64_t> v(4);
  std::memcpy(v.data(), s.data(), sizeof(uint64_t) * 4);
  sd.i64[name] = v;
}

core::Rng get_rng(const core::StateDict& sd, const std::string& name) {
  auto it = sd.i64.find(name);
  if (it == sd.i64.end()) throw core::ConfigError(core::absent_entry(sd, name, "int64"));
  if (it->second.size() != 4)
    throw core::ConfigError("checkpoint: random stream '" + name + "' expected 4 values, found " +
                            std::to_string(it->second.size()));
  std::array<uint64_t, 4> s;
  std::memcpy(s.data(), it->second.data(), sizeof(uint64_t) * 4);
  core::Rng r;
  r.set_state(s);
  return r;
}

void write_run_checkpoint(const std::string& path, const rl::Learner& learner,
                          const RunStreams& rngs, const vec::VectorEnv& venv, const LoopCounters& c,
                          const MetricHistory& history, const std::string& resolved_toml,
                          const std::string& data_files) {
  core::StateDict sd;
  if (!data_files.empty()) sd.str[kDataFilesEntry] = data_files;
  learner.save(sd);
  put_rng(sd, "rng/action", rngs.action);
  put_rng(sd, "rng/shuffle", rngs.shuffle);
  venv.save(sd, "vec/");
  sd.i64["counters/global_step"] = {c.global_step};
  sd.i64["counters/last_eval"] = {c.last_eval};
  sd.i64["counters/last_ckpt"] = {c.last_ckpt};
  sd.i64["counters/iteration"] = {c.iteration};
  sd.f64["counters/best_eval"] = {c.best_eval};
  sd.f64["counters/wall_time"] = {c.wall_time};
  put_rows(sd, "train", history.train);
  put_rows(sd, "eval", history.eval);
  io::write_checkpoint(path, sd, resolved_toml);
}

namespace {

// The loop's counters hold together: one train row per iteration, the last of them at the global
// step, and the eval and checkpoint cadences at or before it. A resume from counters that do not
// (a global step of -100) pruned the run's newer checkpoints and progress rows as "later".
void check_counters(const LoopCounters& c, const MetricHistory& h) {
  auto bad = [](const std::string& what) {
    throw core::ConfigError("checkpoint: counters: " + what);
  };
  if (c.global_step < 0 || c.iteration < 0)
    bad("expected a global step and an iteration >= 0, found " + std::to_string(c.global_step) +
        " and " + std::to_string(c.iteration));
  if (static_cast<size_t>(c.iteration) != h.train.size())
    bad("expected one train row per iteration, found iteration " + std::to_string(c.iteration) +
        " and " + std::to_string(h.train.size()) + " rows");
  if (!h.train.empty()) {
    const auto it = h.train.back().find("global_step");
    if (it == h.train.back().end() || it->second != static_cast<double>(c.global_step))
      bad("expected the last train row at global step " + std::to_string(c.global_step) +
          ", found " + (it == h.train.back().end() ? "none" : core::format_number(it->second)));
  }
  for (const auto& [name, v] : {std::pair{"last_eval", c.last_eval}, {"last_ckpt", c.last_ckpt}})
    if (v < 0 || v > c.global_step)
      bad(std::string("expected ") + name + " in [0, " + std::to_string(c.global_step) +
          "], found " + std::to_string(v));
  if (!(c.wall_time >= 0))
    bad("expected wall_time >= 0, found " + core::format_number(c.wall_time));
}

}  // namespace

void restore_run_checkpoint(const core::StateDict& sd, rl::Learner& learner, RunStreams& rngs,
                            vec::VectorEnv& venv, LoopCounters& c, MetricHistory& history) {
  learner.load(sd);
  rngs.action = get_rng(sd, "rng/action");
  rngs.shuffle = get_rng(sd, "rng/shuffle");
  venv.load(sd, "vec/");
  c.global_step = get_i64(sd, "counters/global_step");
  c.last_eval = get_i64(sd, "counters/last_eval");
  c.last_ckpt = get_i64(sd, "counters/last_ckpt");
  c.iteration = get_i64(sd, "counters/iteration");
  c.best_eval = get_f64(sd, "counters/best_eval");
  c.wall_time = get_f64(sd, "counters/wall_time");
  history.train = get_rows(sd, "train");
  history.eval = get_rows(sd, "eval");
  check_counters(c, history);
}

}  // namespace pz::exp
