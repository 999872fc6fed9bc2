// Out-of-service edits of a case: `branch:K,gen:G` (1-based rows of the case file, as MATPOWER
// numbers them) applied as status 0 before the energized reading (grid::energize).
#pragma once

#include <string_view>
#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// Rows taken out of service, 0-based positions in Case::branch and Case::gen.
struct Outages {
  std::vector<int> branches;
  std::vector<int> gens;
  bool empty() const { return branches.empty() && gens.empty(); }
};

/// Parses a comma-separated list of `branch:K` and `gen:G` (K, G 1-based rows of `c`). Throws
/// core::ConfigError saying what was expected and what was found for an unknown element kind, a
/// row that is not a positive integer, a row past the case's last, a row the case has out of
/// service already (as the envs' scenario files refuse it), a row given twice or an
/// empty list. The message does not name the option (the caller prefixes it).
Outages parse_outages(std::string_view text, const Case& c);

/// Sets BR_STATUS / GEN_STATUS 0 on the listed rows (in place; the rows stay where they are).
void apply_outages(Case& c, const Outages& o);

}  // namespace pz::grid
