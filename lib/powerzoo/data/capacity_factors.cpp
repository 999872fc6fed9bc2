// Strict CSV reader of capacity-factor series (see capacity_factors.hpp).
#include "powerzoo/data/capacity_factors.hpp"

#include <charconv>
#include <cmath>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/data/csv.hpp"
#include "powerzoo/data/profile.hpp"

namespace pz::data {

int64_t CapacityFactors::index_of(int64_t unix) const {
  const int64_t d = unix - t0_unix;
  if (d < 0 || d % step_seconds != 0) return -1;
  const int64_t i = d / step_seconds;
  return i < static_cast<int64_t>(values.size()) ? i : -1;
}

CapacityFactors load_capacity_factors(const std::string& path, const std::string& time_column,
                                      const std::string& value_column, int step_seconds) {
  using core::ConfigError;
  using core::echo;
  CsvReader csv(path);
  if (!csv.is_open())
    throw ConfigError("capacity-factor file '" + path + "' not found or not readable");
  if (!csv.read_header())
    throw ConfigError(path + ":1: expected a CSV header row, found an empty file");
  const int tcol = csv.column(time_column), vcol = csv.column(value_column);
  if (tcol < 0 || vcol < 0)
    throw ConfigError(path + ":1: expected columns '" + echo(time_column) + "' and '" +
                      echo(value_column) + "' in the header, found '" +
                      show_cell(csv.header_line()) + "'");
  CapacityFactors out;
  out.path = path;
  out.column = value_column;
  out.step_seconds = step_seconds;
  const size_t n_cols = csv.header().size();
  while (csv.next_row()) {
    const auto& cells = csv.cells();
    const std::string where = csv.where();
    if (cells.size() != n_cols)
      throw ConfigError(where + "expected " + std::to_string(n_cols) +
                        " comma-separated fields, found " + std::to_string(cells.size()));
    int64_t ts = 0;
    if (!parse_utc_timestamp(cells[tcol], ts))
      throw ConfigError(where + "expected an ISO-8601 UTC timestamp in column '" +
                        echo(time_column) + "', found '" + show_cell(cells[tcol]) + "'");
    if (ts % step_seconds != 0)
      throw ConfigError(where + "expected a timestamp on a " + std::to_string(step_seconds / 60) +
                        "-minute grid, found '" + show_cell(cells[tcol]) + "'");
    if (out.values.empty()) {
      out.t0_unix = ts;
    } else {
      const int64_t expected = out.t0_unix + static_cast<int64_t>(out.values.size()) * step_seconds;
      if (ts != expected)
        throw ConfigError(where + "expected consecutive " + std::to_string(step_seconds / 60) +
                          "-minute rows, found '" + show_cell(cells[tcol]) + "' " +
                          (ts > expected ? "after a gap" : "out of order or repeated"));
    }
    const std::string& cell = cells[vcol];
    double v = 0;
    const char* b = cell.data();
    const char* e = cell.data() + cell.size();
    const auto r = std::from_chars(b, e, v);
    if (cell.empty() || r.ec != std::errc() || r.ptr != e || !std::isfinite(v) || v < 0 || v > 1)
      throw ConfigError(where + "expected a capacity factor in [0, 1] in column '" +
                        echo(value_column) + "', found '" + show_cell(cell) + "'");
    out.values.push_back(v);
  }
  if (out.values.empty())
    throw ConfigError(path + ": expected data rows after the header, found none");
  return out;
}

}  // namespace pz::data
