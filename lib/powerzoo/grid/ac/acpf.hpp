// AcPowerFlow: polar Newton–Raphson AC power flow as MATPOWER runpf (newtonpf + pfsoln), with
// optional generator Q-limit enforcement (pf.enforce_q_lims), a sparse Jacobian factored by KLU
// and warm starts.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

enum class AcPfStatus {
  kConverged,       ///< ∞-norm of the mismatch below tol
  kMaxIter,         ///< not converged within max_iter Newton steps
  kSingular,        ///< singular Jacobian (e.g. voltage collapse)
  kNonFinite,       ///< the iterate or an input became NaN/Inf
  kQLimInfeasible,  ///< every remaining PV/REF gen violates the same Q limit (MATPOWER's test)
  kBadInput,        ///< an input vector of the wrong size
};

/// "converged", "max_iter", "singular", "non_finite", "q_lim_infeasible", "bad_input".
const char* to_string(AcPfStatus s);

struct AcPfOptions {
  double tol = 1e-8;  ///< ∞-norm of the p.u. power mismatch (MATPOWER pf.tol)
  int max_iter = 10;  ///< Newton iterations per solve (MATPOWER pf.nr.max_it)
  /// MATPOWER pf.enforce_q_lims = 1: after a converged solve, every in-service gen whose Qg
  /// exceeds QMAX (QMIN) by more than q_lim_tol_mvar is fixed at that limit and its bus becomes PQ,
  /// then the PF is re-solved, until no gen violates (a REF bus that turns PQ hands the reference
  /// to the island's first PV bus; angles are shifted back to the original reference's angle).
  bool enforce_q_lims = false;
  /// false: gens at REF buses are exempt from the Q-limit check (the reference env's NR treats the
  /// slack as unlimited). MATPOWER checks them too (true).
  bool q_lims_at_ref = true;
  double q_lim_tol_mvar = 5e-6;  ///< MATPOWER opf.violation
};

/// Per-solve operating point. Empty spans take the case's values. Sizes: bus vectors [n_bus],
/// gen vectors [n_gen] (case rows; entries of out-of-service gens are ignored).
struct AcPfInput {
  std::span<const double> bus_pd_mw, bus_qd_mvar;
  std::span<const double> gen_pg_mw;    ///< scheduled PG (the REF gens' value is replaced)
  std::span<const double> gen_qg_mvar;  ///< QG of gens at PQ buses (fixed injections)
  /// Initial voltages (warm start). Empty: MATPOWER's start (case VM/VA, VG at PV/REF buses).
  /// PV/REF magnitudes are always reset to their gen's VG.
  std::span<const double> vm0_pu, va0_deg;
};

/// Result in MATPOWER's naming and units; arrays follow the case row order.
struct AcPfResult {
  AcPfStatus status = AcPfStatus::kBadInput;
  bool success = false;
  int iterations = 0;                  ///< Newton iterations (summed over Q-limit rounds)
  double max_mismatch_pu = 0;          ///< ∞-norm of the final mismatch (p.u. on baseMVA)
  std::vector<double> bus_vm_pu;       ///< [n_bus]; 0 on de-energized islands
  std::vector<double> bus_va_deg;      ///< [n_bus] in (−180, 180]; case VA for type-4 buses
  std::vector<double> branch_pf_mw;    ///< [n_branch] injection into the branch at the from end
  std::vector<double> branch_qf_mvar;  ///< 0 for branches that are out
  std::vector<double> branch_pt_mw;    ///< [n_branch] at the to end
  std::vector<double> branch_qt_mvar;
  std::vector<double> gen_pg_mw;    ///< [n_gen] (REF gens: PG that balances the island)
  std::vector<double> gen_qg_mvar;  ///< [n_gen] (PV/REF gens: split as MATPOWER pfsoln)
  double total_losses_mw = 0;       ///< Σ (PF + PT) over branches in the model
  int n_islands = 0;                ///< connected components of the energized network
  int n_dead_buses = 0;             ///< buses on islands without any generator (not solved)
  std::vector<int> q_limited_gens;  ///< 0-based gen rows fixed at a Q limit
};

/// Newton–Raphson AC power flow of one case (MATPOWER runpf with pf.alg = 'NR'):
/// unknowns Va at PV and PQ buses, Vm at PQ buses; mismatch S(V) − Sbus with
/// S(V) = V·conj(Ybus·V), Sbus = Cg·(PG + jQG)/baseMVA − (PD + jQD)/baseMVA; Jacobian from
/// dS/dVa = jV·conj(I − Ybus·V), dS/dVm = V·conj(Ybus·Vn) + conj(I)·Vn (Vn = V/|V|).
/// Several gens per bus, PV buses without an in-service gen (PQ), REF without one (the island's
/// first PV bus becomes REF), isolated (type-4) buses and islands (each solved with its own REF;
/// an island without a gen is left de-energized and counted) follow MATPOWER's bustypes.
///
/// Construction builds Ybus and the Jacobian pattern and runs KLU's symbolic analysis; a solve
/// then refactors numerically per iteration and does not allocate (a Q-limit switch changes the
/// bus types and so re-analyzes). Not thread-safe: one object per thread or env state.
class AcPowerFlow {
 public:
  /// Throws core::ConfigError (validate_ac_case) for bad AC case data.
  explicit AcPowerFlow(const Case& c);
  ~AcPowerFlow();
  AcPowerFlow(AcPowerFlow&&) noexcept;
  AcPowerFlow& operator=(AcPowerFlow&&) noexcept;

  /// The case's own operating point from MATPOWER's initial point. Never throws.
  AcPfResult solve(const AcPfOptions& opt = {});
  /// As solve() for the given input into `out` (vectors reused). Never throws.
  void solve_into(const AcPfInput& in, const AcPfOptions& opt, AcPfResult& out);

  const Case& case_data() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pz::grid
