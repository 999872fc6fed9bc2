// Capacity-factor series (e.g. PV output per unit of capacity) on a regular UTC grid, read from
// a CSV with strict checks: no gaps, no repair, every value a finite number in [0, 1].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pz::data {

/// values[i] is the capacity factor of the interval [t0_unix + i·step, t0_unix + (i+1)·step).
struct CapacityFactors {
  std::string path;
  std::string column;
  int64_t t0_unix = 0;  ///< seconds since epoch of the first row's interval start
  int step_seconds = 1800;
  std::vector<double> values;
  /// Index of the interval starting at `unix` seconds, or −1 if outside the series or off-grid.
  int64_t index_of(int64_t unix) const;
};

/// Reads `path`: a header row, then one row per interval with an ISO-8601 UTC interval-start
/// timestamp in `time_column` and a number in `value_column`. Rows must be consecutive on the
/// step grid (a missing or repeated interval is an error, not a gap to fill: a capacity factor
/// has no neighbour to interpolate from at sunrise). Throws core::ConfigError naming the file
/// and line for a missing file or column, a malformed or off-grid timestamp, a gap, or a value
/// that is empty, non-finite or outside [0, 1].
CapacityFactors load_capacity_factors(const std::string& path, const std::string& time_column,
                                      const std::string& value_column, int step_seconds = 1800);

}  // namespace pz::data
