// Security-constrained DC-OPF: preventive N-1 over the branch outages that do not island, of one
// energized island or island by island.
#pragma once

#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"

namespace pz::grid {

/// A flow limit of the SCOPF that binds at its optimum.
struct ScopfBinding {
  int outage = -1;        ///< 0-based row of the branch out, −1 for the base case
  int branch = 0;         ///< 0-based row of the limited branch
  double flow_mw = 0;     ///< its flow in that state (MW, from end)
  double rate_a_mva = 0;  ///< its RATE_A
  double mu = 0;          ///< shadow price of the limit ($/MWh, ≥ 0)
};

/// Result of solve_scopf in MATPOWER's naming and units; arrays follow the case row order.
struct ScopfResult {
  DcOpfStatus status = DcOpfStatus::kFailed;
  std::string message;                ///< why the solve did not reach kOptimal ("" when optimal)
  double objective = 0;               ///< $/h, Σ gen_cost(PG) over in-service gens
  double dcopf_objective = 0;         ///< $/h of the DC-OPF without contingency limits (0 if none)
  std::vector<double> gen_pg_mw;      ///< [n_gen], 0 for out-of-service gens
  std::vector<double> branch_pf_mw;   ///< [n_branch] base-case flows at the dispatch
  int n_contingencies = 0;            ///< branch outages secured (in service, not islanding)
  std::vector<int> islanding;         ///< 0-based rows whose outage islands (left out), ascending
  int base_rows = 0;                  ///< base-case flow rows in the final LP
  int contingency_rows = 0;           ///< post-contingency flow rows in the final LP
  int rounds = 0;                     ///< solves until no limit was violated
  std::vector<ScopfBinding> binding;  ///< limits with μ > 1e-4, by outage then branch
  bool ok() const { return status == DcOpfStatus::kOptimal; }
};

/// Preventive security-constrained DC-OPF of the case at its own PD: min Σ cost_g(PG_g) subject
/// to ΣPG = Σ(PD + GS), PMIN ≤ PG ≤ PMAX, |PF_l| ≤ RATE_A_l in the base case and, for every
/// in-service branch k whose outage does not island, |PF_l + LODF[l, k]·PF_k| ≤ RATE_A_l on
/// every other rated branch l (grid/dc/lodf). Costs as DcOpf (polynomial of degree ≤ 2,
/// convex piecewise linear); a quadratic cost is solved exactly (LP vertex from CLP, then an
/// active-set QP solve), so a SCOPF whose limits do not bind has the DC-OPF's optimum. The flow
/// rows are added lazily, as DcOpf::set_lazy_line_limits does: solve with the rows found violated
/// so far, add per state (the base case, each outage) the limit the dispatch violates most,
/// re-solve, until none is violated (the optimum of a relaxation that is feasible for the full
/// problem is its optimum). The network must be one energized island, as for DcOpf. Throws
/// core::ConfigError for what DcOpf's constructor refuses; an infeasible problem is reported as
/// kInfeasible.
ScopfResult solve_scopf(const Case& c);

/// The SCOPF of an energized case island by island: each energized island balances its own
/// load within its own units and lines (MATPOWER's rundcopf on a case with several islands),
/// and its N-1 set is its own branches; `powerzoo grid scopf` solves through it, so an edit that
/// de-energizes buses or splits the network is solved as `grid dcopf` (IslandDcOpf) solves it.
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
