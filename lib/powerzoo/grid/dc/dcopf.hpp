// Exact DC optimal power flow (MATPOWER rundcopf semantics) as an LP/QP solved with COIN-OR CLP.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

enum class DcOpfStatus { kOptimal, kInfeasible, kFailed };

/// "optimal", "infeasible" or "failed".
const char* to_string(DcOpfStatus s);

/// Result of one DC-OPF solve in MATPOWER's naming and units. Arrays follow the case row order.
struct DcOpfResult {
  DcOpfStatus status = DcOpfStatus::kFailed;
  std::string message;   ///< why the solve did not reach kOptimal ("" when optimal)
  double objective = 0;  ///< $/h, Σ gen_cost(PG) over in-service gens (constant terms included)
  std::vector<double> gen_pg_mw;      ///< [n_gen], 0 for out-of-service gens
  std::vector<double> branch_pf_mw;   ///< [n_branch] from-end flow, 0 for out-of-service branches
  std::vector<double> bus_va_deg;     ///< [n_bus], reference bus keeps its case VA (as MATPOWER)
  std::vector<double> bus_lam_p;      ///< [n_bus] LMP in $/MWh (d objective / d PD at the bus)
  std::vector<double> branch_mu_sf;   ///< [n_branch] $/MWh ≥ 0, shadow price of  PF ≤ RATE_A
  std::vector<double> branch_mu_st;   ///< [n_branch] $/MWh ≥ 0, shadow price of −PF ≤ RATE_A
  std::vector<int> binding_branches;  ///< 0-based rows with MU_SF or MU_ST > 1e-4 (MATPOWER's test)
  double balance_slack_mw = 0;        ///< unserved (> 0) or spilled (< 0) MW; 0 unless enabled
  /// MW, Σ over rated branches of |PF| above RATE_A; > 0 only with soft line limits
  /// (DcOpfOverrides::line_overload_cost).
  double line_overload_mw = 0;
  int iterations = 0;         ///< simplex iterations of this solve
  bool warm_started = false;  ///< true if the solve reused the previous basis
  bool polished =
      false;  ///< QP only: CLP's point was refined by an exact KKT solve on its active set
  bool ok() const { return status == DcOpfStatus::kOptimal; }
};

/// Per-solve changes to the model (empty vectors keep the case's values). Vectors are [n_gen] in
/// case row order; entries of out-of-service gens are ignored.
struct DcOpfOverrides {
  std::vector<double> pmin_mw,
      pmax_mw;  ///< unit bounds (an inverted pair lo > hi is solved as hi, hi)
  std::vector<double>
      linear_cost_delta;    ///< $/MWh added to each gen's linear cost term (objective only)
  bool line_limits = true;  ///< false: drop every branch flow limit (economic dispatch)
  /// > 0: the balance may be missed at this price ($/MWh) by unserved load (> 0) or spilled
  /// generation (< 0) at the reference bus (see DcOpfResult::balance_slack_mw). 0: exact balance.
  double balance_slack_cost = 0;
  /// > 0 (with line_limits): soft line limits. Each rated branch's flow may exceed RATE_A in
  /// either direction by an overload variable priced at this cost ($/MWh), so the OPF is never
  /// infeasible for the lines and returns the least-cost point of least overload when the price
  /// dominates every other cost. Where the hard limits can be met and the price exceeds every
  /// line's shadow price there, the optimum is that of the hard-limit OPF (exact penalty). LPs
  /// only (a QP with a price > 0 is reported as kFailed). 0: hard limits.
  double line_overload_cost = 0;
  /// Offer prices ($/MWh) replacing the segment slopes of the piecewise-linear (gencost model 1)
  /// costs: n_points − 1 per in-service model-1 gen, concatenated in case row order; empty keeps
  /// the case's slopes. Each curve keeps its breakpoints and first point (x_0, y_0); prices must
  /// be finite and non-decreasing per gen (a convex cost). The result's objective stays the
  /// case's cost at the dispatch; the LMPs are duals of the offered problem. Market clearing on
  /// offer curves (pz::market) changes only these prices between solves: one CLP model, the
  /// epigraph rows' coefficients and bounds rewritten, the basis kept.
  std::vector<double> pwl_prices;
};

/// DC-OPF of one case: min Σ cost_g(PG_g) subject to ΣPG = Σ(PD + GS), PMIN ≤ PG ≤ PMAX and
/// −RATE_A ≤ PF ≤ RATE_A on in-service branches with RATE_A > 0 (0 = unlimited), with
/// PF = PTDF·(Cg·PG − PD − GS − Pbusinj) + Pfinj (phase shifters as in rundcpf; slack = case ref
/// bus). Costs: gencost model 2 (constant, linear, quadratic) or model 1 (piecewise linear, via
/// epigraph variables). Only in-service gens and branches take part.
///
/// The object keeps one CLP model; each solve() changes only the balance right-hand side and the
/// flow-row bounds and re-solves from the previous optimal basis (warm start).
class DcOpf {
 public:
  /// Builds the model. Throws core::ConfigError for an islanded network, zero reactance, a
  /// polynomial cost of degree > 2 or with a negative quadratic term, a malformed
  /// piecewise-linear cost, or no in-service gen.
  ///
  /// LP (all costs linear/PWL): CLP dual simplex, warm re-solves from the previous basis.
  /// QP: CLP primal (reduced gradient, ~1e-6 MW accurate), then the KKT system on its active set
  /// is solved exactly ("polished"); a re-solve first tries the previous active set's KKT point
  /// and only calls CLP if that point is not optimal (infeasible or a multiplier of wrong sign).
  explicit DcOpf(const Case& c);
  ~DcOpf();
  DcOpf(DcOpf&&) noexcept;
  DcOpf& operator=(DcOpf&&) noexcept;
  DcOpf(const DcOpf&) = delete;
  DcOpf& operator=(const DcOpf&) = delete;

  /// Solves for the given bus active loads (MW, [n_bus], case row order; GS is taken from the
  /// case). Never throws: a wrong-sized or non-finite load vector, an infeasible problem or a
  /// solver failure is reported in the status.
  DcOpfResult solve(const std::vector<double>& bus_pd_mw);

  /// As solve(bus_pd_mw) with per-solve unit bounds, a linear cost bias and optionally without
  /// flow limits (unit commitment: ramp windows, commitment, dispatch preference). The result's
  /// objective is the case's (unbiased) cost at the dispatch; the LMPs are duals of the biased
  /// problem. The warm start is kept across calls with different overrides.
  DcOpfResult solve(const std::vector<double>& bus_pd_mw, const DcOpfOverrides& o);

  /// As solve(bus_pd_mw, o) into `out`, whose vectors are reused (no allocation once sized).
  void solve_into(const std::vector<double>& bus_pd_mw, const DcOpfOverrides& o, DcOpfResult& out);

  /// Sets the reference bus loads (MW, [n_bus], case row order) of solve_scaled_into and
  /// precomputes their branch flows. Throws core::ConfigError on a wrong size.
  void set_reference_loads(const std::vector<double>& bus_pd_mw);

  /// As solve_into(load_factor · reference loads, o, out), with the loads' branch flows scaled
  /// from set_reference_loads instead of recomputed (O(n_branch) instead of O(n_branch·n_bus)).
  /// Without reference loads the result is kFailed.
  void solve_scaled_into(double load_factor, const DcOpfOverrides& o, DcOpfResult& out);

  /// Solves with the case's own PD.
  DcOpfResult solve();

  /// Lazy line limits (LPs without piecewise-linear costs; ignored for others): the LP is
  /// solved with only the flow rows found violated so far (kept across solves), every rated
  /// branch's flow is checked against its limit, violated rows are added and the LP re-solved
  /// warm until none is violated. The optimum is that of the full LP (a relaxation whose
  /// optimum is feasible for the full LP is optimal for it); where the optimum is not unique
  /// (degenerate costs) another optimal vertex and other duals may be returned. Off by default.
  void set_lazy_line_limits(bool on);

  /// Dispatch only: solves compute the dispatch, objective, flows, balance slack and overload
  /// but not the duals' products (bus_lam_p, branch_mu_sf / _st, binding_branches and bus_va_deg
  /// are left empty). The answer is unchanged (the same CLP calls); a caller that reads only the
  /// dispatch and flows (the unit-commitment env) saves about a tenth of a congested step.
  void set_dispatch_only(bool on);

  /// Caps the simplex iterations of each CLP call at n (n <= 0: the default,
  /// 20·(rows + cols) + 1000). A solve that reaches the cap (a cycling dual simplex) is retried
  /// cold, then on the full model, and otherwise reported as kFailed naming the limit.
  void set_iteration_limit(int n);

  /// Takes in-service branch k (0-based row) out of the model without rebuilding it (k = −1: back
  /// to the case's network): every PTDF row l becomes PTDF_l + LODF[l, k]·PTDF_k (Wood &
  /// Wollenberg, "Power Generation, Operation, and Control", 2nd ed., §11.3), k's flow row is
  /// emptied and freed, the other flow rows' coefficients are rewritten in the CLP model, and the
  /// next solve starts from the current basis (QP: the last active set's KKT point is tried
  /// first). Solves then equal those of a DcOpf built on the case with branch k's status 0 (to
  /// rounding; where the optimum is not unique another optimal vertex may be returned). One
  /// outage at a time: a new k replaces the previous one. lodf_col [n_branch]: Lodf::column(k)
  /// of this case's (energized) network. Throws core::ConfigError if k is out of range, out of
  /// service in the case, a phase shifter, or a bridge (lodf_col[k] ≠ −1: Lodf's column of an
  /// islanding outage is zero), before changing anything.
  void set_branch_outage(int k, const double* lodf_col);
  /// The branch set_branch_outage took out (−1: none).
  int branch_outage() const;

  /// Forgets the stored basis, so the next solve() starts cold.
  void reset_warm_start();

  /// True if some in-service gen has a nonzero quadratic cost term.
  bool is_qp() const;

  const Case& case_data() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pz::grid
