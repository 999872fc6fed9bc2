// AcOpfModel: the AC-OPF as a smooth NLP (MATPOWER's polar formulation) — sizes, bounds, start
// point, objective, constraints and their exact sparse first and second derivatives. No solver.
#pragma once

#include <span>
#include <vector>

#include "powerzoo/grid/ac/ac_network.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// The NLP of AcOpf (see acopf.hpp for the formulation).
///
/// Variables x = [Va (n_bus, rad); Vm (n_bus, p.u.); Pg (n_g, p.u.); Qg (n_g, p.u.); y (n_pwl,
/// $/h)] over all buses (type-4 buses fixed at their case VM/VA), the gens in the model (status >
/// 0, bus not type 4) in row order, and one epigraph variable per piecewise-linear cost.
/// Constraints g(x) = [P balance (energized buses); Q balance; |Sf|² (rated branches); |St|²;
/// Va_f − Va_t (angle-limited branches); PWL segments m·base·Pg − y].
/// Triplet structures are 0-based (row, col); the Hessian is the lower triangle (row ≥ col) of
/// σ∇²f + Σ λ_i ∇²g_i. Every function is allocation-free after construction.
class AcOpfModel {
 public:
  /// Throws core::ConfigError for bad AC data, a missing gencost row, a non-convex piecewise-
  /// linear cost or no gen in the model.
  explicit AcOpfModel(const Case& c);

  int n() const { return n_; }
  int m() const { return m_; }
  int nnz_jac() const { return static_cast<int>(jac_row_.size()); }
  int nnz_hess() const { return static_cast<int>(hess_row_.size()); }

  /// Bus loads of the balance constraints (MW, MVAr, [n_bus]).
  void set_loads(std::span<const double> pd_mw, std::span<const double> qd_mvar);

  /// x bounds [n] and g bounds [m]; ±inf is `inf` (callers map it to their solver's infinity).
  void bounds(double* xl, double* xu, double* gl, double* gu, double inf) const;
  /// MATPOWER's (MIPS) default start: bounded variables at mid-range, angles at the reference.
  void start(double* x) const;

  double f(const double* x) const;
  void grad_f(const double* x, double* grad) const;
  void g(const double* x, double* out) const;
  const std::vector<int>& jac_rows() const { return jac_row_; }
  const std::vector<int>& jac_cols() const { return jac_col_; }
  void jac_values(const double* x, double* val) const;
  const std::vector<int>& hess_rows() const { return hess_row_; }
  const std::vector<int>& hess_cols() const { return hess_col_; }
  void hess_values(const double* x, double sigma, const double* lambda, double* val) const;

  // Layout.
  int va(int b) const { return b; }
  int vm(int b) const { return nb_ + b; }
  int pg(int k) const { return 2 * nb_ + k; }  ///< k: index into gens()
  int qg(int k) const { return 2 * nb_ + ng_ + k; }
  int p_row(int b) const { return bal_row_[b]; }  ///< −1 for a type-4 bus
  int q_row(int b) const { return bal_row_[b] < 0 ? -1 : bal_row_[b] + n_bal_; }
  int sf_row(int j) const { return 2 * n_bal_ + j; }  ///< j: index into rated()
  int st_row(int j) const { return 2 * n_bal_ + n_lim_ + j; }
  const std::vector<int>& gens() const { return gens_; }    ///< gen rows in the model
  const std::vector<int>& rated() const { return rated_; }  ///< branch rows with |S| limits
  const AcNetwork& net() const { return net_; }
  const Case& case_data() const { return c_; }

  /// Complex power into branch l at the from / to end (p.u.) at x.
  Complex sf(const double* x, int l) const;
  Complex st(const double* x, int l) const;

 private:
  struct Pwl {
    int k;                             ///< index into gens_
    std::vector<double> slope, icept;  ///< segment s: y ≥ slope·P_MW + icept
  };
  /// Hessian slots of the 4×4 block over (Va_i, Va_k, Vm_i, Vm_k), lower-triangle order
  /// (00, 10, 11, 20, 21, 22, 30, 31, 32, 33).
  struct Block {
    int s[10];
  };
  Block block(int i, int k, int e, int et) const;
  void build_jacobian();
  void build_hessian();

  Case c_;
  AcNetwork net_;
  int nb_ = 0, ng_ = 0, n_ = 0, m_ = 0, n_bal_ = 0, n_lim_ = 0;
  std::vector<int> gens_, rated_, angle_br_, bal_row_;
  std::vector<double> smax2_;  ///< [n_lim] (RATE_A/base)²
  std::vector<Pwl> pwl_;
  int n_seg_ = 0;
  std::vector<std::vector<double>> poly_;  ///< [n_g] polynomial coefficients (highest first), MW
  std::vector<double> pd_pu_, qd_pu_;      ///< [n_bus]
  std::vector<int> jac_row_, jac_col_, hess_row_, hess_col_;
  std::vector<int> hs_aa_, hs_vv_,
      hs_va_;               ///< per Ybus entry: H(Va_i,Va_j) H(Vm_i,Vm_j) H(Vm_i,Va_j)
  std::vector<int> hs_pg_;  ///< [n_g] H(Pg, Pg)
  mutable std::vector<Complex> v_, cur_;  ///< [n_bus] workspace
};

}  // namespace pz::grid
