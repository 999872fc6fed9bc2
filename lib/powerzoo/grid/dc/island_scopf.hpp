// The security-constrained DC-OPF of an energized case island by island: each energized island
// balances its own load within its own units and lines (MATPOWER's rundcopf on a case with
// several islands), and its N-1 set is its own branches. `powerzoo grid scopf` solves through it,
// so a case or an --out-of-service edit that de-energizes buses or splits the network is solved
// as `grid dcopf` (grid::IslandDcOpf) solves it.
#pragma once

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/scopf.hpp"

namespace pz::grid {

/// Preventive SCOPF (grid::solve_scopf) of `energized`, a case as grid::energize returns it (one
/// REF bus per energized island, de-energized buses of type 4). Each REF bus's island is solved
/// alone on the case with every other bus of type 4 (its PD and GS dropped, as IslandDcOpf);
/// the PD and GS of type-4 buses are not served and not counted. One island: that solve's result
/// as it is. Several: objective and dcopf_objective, n_contingencies, base_rows,
/// contingency_rows and rounds summed; gen_pg_mw [n_gen] and branch_pf_mw [n_branch] take each
/// island's entries (0 at out-of-service and de-energized rows); islanding and binding merged in
/// row order (binding by outage, then branch). The first island that is not optimal is returned
/// as it is, its message prefixed with its reference bus id when there are several. No energized
/// island (no generator in service): kOptimal, nothing dispatched (every vector 0). Throws what
/// solve_scopf throws (core::ConfigError for missing gencost rows, zero reactance).
ScopfResult solve_island_scopf(const Case& energized);

}  // namespace pz::grid
