// Security-constrained DC-OPF: preventive N-1 over the branch outages that do not island.
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

}  // namespace pz::grid
