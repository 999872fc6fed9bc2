// MeritOrder: exact economic dispatch without flow limits by merit order, screened by PTDF flows
// against the ratings (the DC-OPF fast path of unit commitment and market clearing).
#pragma once

#include <span>
#include <vector>

#include "powerzoo/grid/dc/ptdf_flow.hpp"

namespace pz::grid {

/// Outcome of one MeritOrder::solve.
enum class MeritOrderStatus {
  kOptimal,  ///< every |flow| ≤ rating: the dispatch is also the optimum of the DC-OPF with limits
  kNeedsOpf,  ///< some rating is exceeded: the dispatch is only the optimum without flow limits;
              ///< solve the DC-OPF with limits (this point is its answer if those make it
              ///< infeasible)
  kUnusable,  ///< a marginal cost at or beyond ±VOLL (the balance slack would be dispatched
              ///< instead): merit order is not the optimum, solve the DC-OPF
};

/// "optimal", "needs_opf" or "unusable".
const char* to_string(MeritOrderStatus s);

/// Dispatch of one MeritOrder::solve (sized on the first solve, reused after).
struct MeritOrderResult {
  MeritOrderStatus status = MeritOrderStatus::kUnusable;
  std::vector<double> p_mw;     ///< [n_units] MW
  std::vector<double> flow_mw;  ///< [n_branch] MW from-end flow
  double slack_mw = 0;          ///< unserved load (> 0) or spilled generation (< 0), MW
  double cost_usd_per_h = 0;    ///< Σ cost[u]·p[u] + VOLL·|slack| ($/h), the dispatch objective
};

/// min Σ_u cost_u·p_u + VOLL·(unserved + spilled)  s.t.  Σ p + unserved − spilled = D,
/// lo_u ≤ p_u ≤ hi_u, with loads D_b = load_factor·base_load[b] and linear costs (a continuous
/// knapsack): every unit starts at its floor, then units are raised in increasing cost (ties by
/// index) until the load is met; what the ceilings cannot reach is unserved, Σ floors above the
/// load is spilled. The balance slack acts at the PTDF's slack bus. Flows are
/// G·p − load_factor·(PTDF·base_load) with G the PTDF columns at the unit buses. Valid only for
/// networks without phase shifters (flows linear in P through the PTDF alone).
/// The LODF update of a unit-major PTDF g [n_units x n_branch] and base flows [n_branch] for the
/// outage of branch k: g[u, l] += LODF[l, k]·g[u, k], flow_base[l] += LODF[l, k]·flow_base[k],
/// then column k (and flow_base[k]) exactly 0. lodf_col [n_branch] = grid::Lodf::column(k).
void lodf_update(std::vector<double>& g, std::vector<double>& flow_base, int n_units, int n_branch,
                 int k, const double* lodf_col);

class MeritOrder {
 public:
  /// ptdf: the network; unit_bus [n_units] bus index of each unit; base_load [n_bus] MW;
  /// rating [n_branch] MW, a flow is accepted if |flow| ≤ rating; voll $/MWh of the balance slack.
  MeritOrder(const PtdfFlow& ptdf, std::vector<int> unit_bus, std::vector<double> base_load,
             std::vector<double> rating, double voll);
  /// The merit order of the same network without branch k (0-based, in service, not a bridge),
  /// from this network's by its LODF column lodf_col [n_branch] (grid::Lodf::column(k)):
  /// G'[u, l] = G[u, l] + LODF[l, k]·G[u, k] and the base flows likewise, row k exactly 0, the
  /// rank-1 PTDF update of Wood & Wollenberg, "Power Generation, Operation, and Control", 2nd ed.,
  /// §11.3. O(n_units · n_branch), against a factorization of the edited network; equal to
  /// MeritOrder(PtdfFlow(edited case), ...) to rounding.
  MeritOrder(const MeritOrder& intact, int k, const double* lodf_col);

  int n_units() const { return static_cast<int>(unit_bus_.size()); }
  int n_branch() const { return static_cast<int>(rating_.size()); }

  /// Dispatches at loads load_factor·base_load with unit bounds lo, hi [n_units] (an inverted pair
  /// lo > hi is pinned to hi) and marginal costs cost [n_units] ($/MWh). Writes out and returns
  /// its status; with kUnusable out's vectors are not meaningful. Never throws.
  MeritOrderStatus solve(double load_factor, std::span<const double> lo, std::span<const double> hi,
                         std::span<const double> cost, MeritOrderResult& out) const;

 private:
  std::vector<int> unit_bus_;
  std::vector<double> rating_;
  std::vector<double> ptdf_unit_;  // [n_units x n_branch] PTDF at the unit buses, unit-major
  std::vector<double> flow_base_;  // [n_branch] PTDF · base_load
  double sum_base_ = 0;            // Σ base_load (MW)
  double voll_ = 0;
};

}  // namespace pz::grid
