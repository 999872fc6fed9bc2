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
};

/// A scenario file as read: its path and rows sorted by (step, file line).
struct OutageSchedule {
  std::string path;
  std::vector<OutageEvent> events;
  bool empty() const { return events.empty(); }
};

/// Reads a scenario file. Throws core::ConfigError naming the file and line, what was expected
/// and what was found, for: no readable file, a missing column (step, element, index, status),
/// a cell that is not a non-negative integer (NaN, 1.5, -1: step ≥ 0, index ≥ 1, status 0 or 1),
/// an unknown element, and a row with the step, element and index of an earlier row. The checks
/// against a case (index past the last row) and a horizon (step ≥ horizon) are
/// check_outage_schedule's.
OutageSchedule read_outage_schedule(const std::string& path);

/// Checks every row against the network and the episode: index ≤ n_branch (branch) or ≤ n_gen
/// (gen), step < horizon. Throws core::ConfigError naming the file and line.
void check_outage_schedule(const OutageSchedule& s, int n_branch, int n_gen, int horizon);

}  // namespace pz::data
