// read_action_file: CSV (data/csv) and HDF5 (io/hdf5_array) action sequences.
#include "powerzoo/exp/eval/action_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/data/csv.hpp"
#include "powerzoo/io/hdf5_array.hpp"

namespace pz::exp {

using core::ConfigError;

namespace {

void check_rows(const std::string& file, int T, const envs::EnvSpec& sp, const char* what) {
  if (T < sp.horizon)
    throw ConfigError(file + ": expected at least " + std::to_string(sp.horizon) + " " + what +
                      " (one per step of an episode of " + sp.id + "), found " + std::to_string(T));
}

ActionSequence read_csv(const std::string& file, const envs::EnvSpec& sp) {
  core::expect_regular_file(file, "an action file (CSV or HDF5)");
  data::CsvReader in(file);
  if (!in.is_open()) throw ConfigError(file + ": cannot open the action file (no such file?)");
  if (!in.read_header())
    throw ConfigError(file + ": expected a header of action names, found an empty file");
  const std::vector<std::string> names = sp.action_feature_names();
  std::vector<int> col(names.size(), -1);
  for (size_t j = 0; j < names.size(); ++j) col[j] = in.column(names[j]);
  for (size_t c = 0; c < in.header().size(); ++c) {
    const std::string& h = in.header()[c];
    if (std::find(names.begin(), names.end(), h) != names.end()) continue;
    const std::string dym = core::did_you_mean(h, names);
    throw ConfigError(data::csv_where(file, 1) + "column " + std::to_string(c + 1) +
                      ": expected an action name of " + sp.id + ", found '" + data::show_cell(h) +
                      "'" + (dym.empty() ? "" : " (did you mean '" + dym + "'?)"));
  }
  for (size_t j = 0; j < names.size(); ++j)
    if (col[j] < 0)
      throw ConfigError(data::csv_where(file, 1) + "expected a column '" + names[j] + "' (" +
                        std::to_string(names.size()) + " action columns: " + names.front() +
                        " .. " + names.back() + "), found none");
  ActionSequence s;
  s.N = 1;
  s.act_dim = sp.act_dim;
  while (in.next_row()) {
    const auto& cells = in.cells();
    if (cells.size() != in.header().size())
      throw ConfigError(in.where() + "expected " + std::to_string(in.header().size()) +
                        " columns, found " + std::to_string(cells.size()));
    for (size_t j = 0; j < names.size(); ++j) {
      const std::string& c = cells[static_cast<size_t>(col[j])];
      double v = 0;
      const auto r = std::from_chars(c.data(), c.data() + c.size(), v);
      if (r.ec != std::errc() || r.ptr != c.data() + c.size())
        throw ConfigError(in.where() + "column '" + names[j] + "': expected a number, found '" +
                          data::show_cell(c) + "'");
      if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v)))
        throw ConfigError(in.where() + "column '" + names[j] +
                          "': expected a finite number, found " + data::show_cell(c));
      s.data.push_back(static_cast<float>(v));
    }
    ++s.T;
  }
  check_rows(file, s.T, sp, "rows");
  return s;
}

ActionSequence read_h5(const std::string& file, const std::string& path, const envs::EnvSpec& sp) {
  const io::ArrayF64 a = io::read_array(file, path);
  const std::string where = file + ":" + path;
  const size_t rank = a.shape.size();
  if ((rank != 2 && rank != 3) || a.shape.back() != sp.act_dim) {
    std::string found = "[";
    for (size_t d = 0; d < rank; ++d) found += (d ? ", " : "") + std::to_string(a.shape[d]);
    throw ConfigError(where + ": expected a dataset [T, N, " + std::to_string(sp.act_dim) +
                      "] or [T, " + std::to_string(sp.act_dim) + "] (the " +
                      std::to_string(sp.act_dim) + " actions of " + sp.id + "), found " + found +
                      "]");
  }
  ActionSequence s;
  s.T = static_cast<int>(a.shape[0]);
  s.N = rank == 3 ? static_cast<int>(a.shape[1]) : 1;
  s.act_dim = sp.act_dim;
  if (s.N < 1) throw ConfigError(where + ": expected at least one env (N >= 1), found N = 0");
  check_rows(where, s.T, sp, "steps");
  const auto names = sp.action_feature_names();
  s.data.resize(a.data.size());
  for (size_t i = 0; i < a.data.size(); ++i) {
    const double v = a.data[i];
    const float f = static_cast<float>(v);
    if (!std::isfinite(v) || !std::isfinite(f)) {
      const size_t j = i % sp.act_dim, row = i / sp.act_dim;
      throw ConfigError(where + ": step " + std::to_string(row / s.N) + ", env " +
                        std::to_string(row % s.N) + ", action " + names[j] +
                        ": expected a finite number, found " + core::format_number(v));
    }
    s.data[i] = f;
  }
  return s;
}

}  // namespace

ActionSequence read_action_file(const std::string& arg, const envs::EnvSpec& sp) {
  const size_t colon = arg.find(".h5:");
  if (colon != std::string::npos)
    return read_h5(arg.substr(0, colon + 3), arg.substr(colon + 4), sp);
  if (arg.ends_with(".h5") || arg.ends_with(".hdf5")) return read_h5(arg, "actions", sp);
  return read_csv(arg, sp);
}

}  // namespace pz::exp
