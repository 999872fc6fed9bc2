// Formatting of the N-1 screen and the security-constrained DC-OPF for `powerzoo grid
// contingencies` and `powerzoo grid scopf` (JSON or aligned text, as the other grid reports).
#pragma once

#include <string>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/n1_screen.hpp"
#include "powerzoo/grid/dc/scopf.hpp"

namespace pz::grid {

/// The screen `s` of case `c`. json = true: `case`, `success` (the base DC power flow), the base
/// `branch_pf_mw`, `n_contingencies`, `n_lodf`, `n_resolved`, `n_with_overloads` and per outage
/// `contingencies[i]` = {`branch` (1-based row), `from`, `to`, `pre_flow_mw`, `method` ("lodf" or
/// "islands"), `island_buses` and `dead_buses` (external ids), `max_loading_pct`, `overloads`
/// [{`branch`, `flow_mw`, `rate_a_mva`, `loading_pct`}], `branch_pf_mw` [n_branch]}. json = false:
/// a summary and one line per outage that overloads or islands. Ends with a newline.
std::string n1_report(const Case& c, const N1Screen& s, bool json);

/// The SCOPF result `r` of case `c`. json = true: `case`, `success`, `status`, `message` (not
/// optimal), `objective`, `dcopf_objective` ($/h), `n_contingencies`, `islanding_branches`
/// (1-based rows left out), `base_rows`, `contingency_rows`, `rounds`, `binding` [{`outage`
/// (1-based row, 0 = base case), `branch`, `flow_mw`, `rate_a_mva`, `mu`}], `gen_bus`,
/// `gen_pg_mw`, `branch_from`, `branch_to`, `branch_pf_mw`. json = false: aligned text. Ends with
/// a newline.
std::string scopf_report(const Case& c, const ScopfResult& r, bool json);

}  // namespace pz::grid
