// AcOpf: MATPOWER's polar AC optimal power flow (runopf semantics) solved exactly by Ipopt's
// interior point method with exact sparse first and second derivatives.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

enum class AcOpfStatus { kOptimal, kInfeasible, kMaxIter, kFailed, kBadInput };

/// "optimal", "infeasible", "max_iter", "failed", "bad_input".
const char* to_string(AcOpfStatus s);

struct AcOpfOptions {
  double tol = 1e-9;       ///< Ipopt tol (scaled KKT error) and its constraint violation tolerance
  int max_iter = 300;      ///< Ipopt iterations
  bool warm_start = true;  ///< start from the previous optimal point and multipliers (if any)
  int print_level = 0;     ///< Ipopt output (0 = silent)
};

/// Result in MATPOWER's naming and units; arrays follow the case row order (zeros for gens and
/// branches that are out).
struct AcOpfResult {
  AcOpfStatus status = AcOpfStatus::kBadInput;
  std::string message;   ///< Ipopt's return status when not optimal
  double objective = 0;  ///< $/h, Σ cost(PG) over gens in the model
  int iterations = 0;    ///< Ipopt iterations
  bool warm_started = false;
  std::vector<double> bus_vm_pu, bus_va_deg;  ///< [n_bus]
  std::vector<double> bus_lam_p;  ///< [n_bus] $/MWh: ∂ objective / ∂ PD (MATPOWER lam_P)
  std::vector<double> bus_lam_q;  ///< [n_bus] $/MVArh: ∂ objective / ∂ QD (MATPOWER lam_Q)
  std::vector<double> bus_mu_vmax, bus_mu_vmin;  ///< [n_bus] $/p.u.h ≥ 0
  std::vector<double> gen_pg_mw, gen_qg_mvar;    ///< [n_gen]
  std::vector<double> gen_mu_pmax, gen_mu_pmin, gen_mu_qmax, gen_mu_qmin;  ///< $/MWh, $/MVArh
  std::vector<double> branch_pf_mw, branch_qf_mvar, branch_pt_mw, branch_qt_mvar;  ///< [n_branch]
  std::vector<double> branch_mu_sf, branch_mu_st;  ///< [n_branch] $/MVAh ≥ 0 (|S| ≤ RATE_A)
  double total_losses_mw = 0;
  bool ok() const { return status == AcOpfStatus::kOptimal; }
};

/// AC-OPF of one case, MATPOWER's formulation (opf.flow_lim = 'S'): variables Va, Vm at every
/// bus, Pg, Qg at every gen in the model (p.u.); minimize Σ_g cost_g(Pg·baseMVA) with polynomial
/// (any degree) or convex piecewise-linear gencost (an epigraph variable per PWL gen, as
/// MATPOWER's ccv form), subject to the complex power balance at every bus
/// V·conj(Ybus·V) + (PD + jQD)/base − Cg·(Pg + jQg) = 0, |Sf|² ≤ RATE_A² and |St|² ≤ RATE_A² on
/// branches with 0 < RATE_A < 1e10 (MVA, squared as MATPOWER), angle-difference limits where
/// ANGMIN > −360 or ANGMAX < 360, VMIN ≤ Vm ≤ VMAX, PMIN ≤ Pg ≤ PMAX, QMIN ≤ Qg ≤ QMAX, and the
/// reference bus angle fixed at its case VA. Type-4 buses and the branches and gens touching
/// them are out. LMPs are the balance multipliers ÷ baseMVA (signs as MATPOWER's lam_P/lam_Q).
///
/// The first solve starts where MATPOWER's MIPS starts (the middle of every bounded variable,
/// angles at the reference angle); later solves warm-start from the previous optimum.
/// Not thread-safe: one object per thread or env state.
class AcOpf {
 public:
  /// Throws core::ConfigError for bad AC data (validate_ac_case), a missing gencost row, a
  /// non-convex piecewise-linear cost, or no gen in the model.
  explicit AcOpf(const Case& c);
  ~AcOpf();
  AcOpf(AcOpf&&) noexcept;
  AcOpf& operator=(AcOpf&&) noexcept;

  /// The case's own loads. Never throws.
  AcOpfResult solve(const AcOpfOptions& opt = {});
  /// Per-solve bus loads (MW, MVAr, [n_bus]; empty = the case's). Never throws: a wrong size or
  /// non-finite value is kBadInput, solver trouble a status.
  void solve_into(std::span<const double> bus_pd_mw, std::span<const double> bus_qd_mvar,
                  const AcOpfOptions& opt, AcOpfResult& out);
  /// Forgets the previous optimum: the next solve starts cold.
  void reset_warm_start();

  const Case& case_data() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pz::grid
