// Scenario files of scheduled outages: a CSV with columns step, element, index, status, one row
// per change of an element's status (docs/outages.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pz::data {

/// The kinds of element a scenario file can take out of service.
enum class OutageElement : uint8_t { kBranch, kGen };

/// "branch" / "gen".
const char* outage_element_name(OutageElement e);

/// One row of a scenario file: from step `step` (0-based step of the episode) on, element
/// `element` at 1-based row `index` of the case file (as MATPOWER numbers them) has status
/// `status` (0 out of service, 1 back in service).
struct OutageEvent {
  int step = 0;
  OutageElement element = OutageElement::kBranch;
  int index = 1;
  int status = 0;
  int64_t line = 0;  ///< 1-based line of the file (for messages)
  /// Read with env-declared kinds (the overload below): the element's position in them (element
  /// is then kGen and unused); -1 for a branch/gen file.
  int kind = -1;
};

/// A scenario file as read: its path and rows sorted by (step, file line).
struct OutageSchedule {
  std::string path;
  std::vector<OutageEvent> events;
  bool empty() const { return events.empty(); }
};

/// Reads a scenario file (data/csv's rules: a UTF-8 BOM skipped, CRLF read, cells trimmed of
/// spaces and tabs). Throws core::ConfigError naming the file and line, what was expected
/// and what was found, for: no readable file, a missing column (step, element, index, status),
/// a header column other than those four (a comment column would be ignored), a cell that is
/// not a non-negative integer written as digits (NaN, 1.5, -1, 1e1, +6: step ≥ 0, index ≥ 1,
/// status 0 or 1),
/// an unknown element, and a row with the step, element and index of an earlier row. The checks
/// against a case (index past the last row) and a horizon (step ≥ horizon) are
/// check_outage_schedule's.
OutageSchedule read_outage_schedule(const std::string& path);

/// Reads a scenario file whose element column names an env's own kinds of component (`kinds`,
/// e.g. the DC microgrid's "pv", "battery", "diesel", "grid") instead of branch/gen; `index` is
/// then the 1-based unit of that kind. The same checks and messages as above, the unknown element
/// listing `kinds`. Each row's `kind` is its element's position in `kinds`.
OutageSchedule read_outage_schedule(const std::string& path, const std::vector<std::string>& kinds);

/// Checks every row of a file read with `kinds` against the units of each kind (counts, parallel
/// to kinds) and the horizon. Throws core::ConfigError naming the file and line.
void check_outage_schedule(const OutageSchedule& s, const std::vector<std::string>& kinds,
                           const std::vector<int>& counts, int horizon);

/// Checks every row against the network and the episode: index ≤ n_branch (branch) or ≤ n_gen
/// (gen), step < horizon. Throws core::ConfigError naming the file and line.
void check_outage_schedule(const OutageSchedule& s, int n_branch, int n_gen, int horizon);

}  // namespace pz::data
