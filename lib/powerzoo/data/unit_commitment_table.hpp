// Reader of a case's unit-commitment table (`<case>_unit_commitment.csv`): plain numbers per row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pz::data {

/// One data row of a unit-commitment table, numbers as written in the file (no unit conversion;
/// PowerZooJax's make_uc_params in powerzoojax/envs/grid/unit_commitment.py gives their meaning:
/// mc_* cost coefficients, p_* in MW, ramp_* as fractions of p_max per hour, times in steps,
/// costs in $ and $/h).
struct UcTableRow {
  int64_t line = 0;         ///< 1-based line number in the file (for file:line messages)
  std::string bus_id_text;  ///< the bus_id cell as written
  double bus_id = 0;
  double mc_a = 0, mc_b = 0, mc_c = 0;
  double p_max = 0, p_min = 0;
  double ramp_up = 0, ramp_down = 0;
  double min_up_time = 0, min_down_time = 0;
  double init_state = 0, keep_time = 0;
  double init_start_up_cost = 0, init_no_load_cost = 0;
};

/// Reads the table at `path` (columns found by header name: bus_id, mc_a, mc_b, mc_c, p_max,
/// p_min, ramp_up, ramp_down, min_up_time, min_down_time, init_state, keep_time,
/// init_start_up_cost, init_no_load_cost; other columns ignored; blank lines skipped), rows in
/// file order. Throws core::ConfigError naming path:line for an unreadable file (its message
/// names `case_name`), an empty file, a missing column, a missing or non-finite number, or
/// p_min < 0 or p_max < p_min. Row count and bus ids are the caller's to check.
std::vector<UcTableRow> read_unit_commitment_table(const std::string& path,
                                                   const std::string& case_name);

}  // namespace pz::data
