// DispatchLp: the economic dispatch with soft line limits (unit commitment's per-step LP) by a
// small dense dual simplex of its own, started from the merit-order basis.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "powerzoo/grid/dc/ptdf_flow.hpp"
#include "powerzoo/grid/linalg/dense_lu.hpp"
#include "powerzoo/grid/uc/merit_order.hpp"

namespace pz::grid {

/// min Σ_u cost_u·p_u + VOLL·(unserved + spilled) + price·Σ_l overload_l
///   s.t. Σ p + unserved − spilled = D,  |G_l·p − load_factor·F_l| ≤ rating_l + overload_l,
///        lo_u ≤ p_u ≤ hi_u, unserved, spilled, overload ≥ 0,
/// the LP of MeritOrder with every branch's rating as a soft limit (the DC-OPF of
/// DcOpfOverrides::line_overload_cost with the balance slack at the PTDF's slack bus). G and F are
/// MeritOrder's (PTDF at the unit buses, PTDF·base_load); an inverted pair lo > hi is pinned to hi.
///
/// The merit order is this LP's optimum without the flow rows, and its basis (the marginal unit,
/// or the balance slack, basic in the balance row) stays dual feasible when a flow row enters with
/// its logical basic (dual 0): the dual simplex then restores primal feasibility, the rows the
/// point violates are added, and so on until every branch is within its rating (the cutting-plane
/// use of the dual simplex; Koberstein, "The dual simplex method, techniques for a fast and stable
/// implementation", PhD thesis, Paderborn 2005, ch. 3 for the bounded ratio test). The LP has
/// 1 + (violated rows) rows, so the basis is factored afresh (DenseLu) at
/// every iteration and x_B, the duals and reduced costs are those of the final basis, not of
/// updates. The answer is checked (primal bounds, reduced-cost signs, every rating) before it is
/// returned; anything else (a singular basis, the iteration cap, more than kMaxRows rows) returns
/// false and the caller solves with CLP. No state is kept between solves: the answer depends on
/// the inputs alone.
class DispatchLp {
 public:
  /// Rows at most (balance row + flow rows): beyond it the caller uses CLP.
  static constexpr int kMaxRows = 40;

  /// As MeritOrder's constructor; overload_price $/MWh of soft-limit overload (> VOLL). Copies
  /// share the network data and have their own work areas (one per thread or env state).
  DispatchLp(const PtdfFlow& ptdf, std::vector<int> unit_bus, std::vector<double> base_load,
             std::vector<double> rating, double voll, double overload_price);
  /// The LP of the same network without branch k, from this one by the LODF column (as
  /// MeritOrder's outage constructor); the network data is this one's, updated, in a new copy.
  DispatchLp(const DispatchLp& intact, int k, const double* lodf_col);

  int n_units() const { return nu_; }

  /// Solves at loads load_factor·base_load with unit bounds lo, hi and costs cost [n_units]
  /// (|cost| < VOLL). On success writes out (p_mw, flow_mw, slack_mw, cost_usd_per_h with the
  /// overload's cost, status kOptimal) and returns true; otherwise returns false. Never throws.
  bool solve(double load_factor, std::span<const double> lo, std::span<const double> hi,
             std::span<const double> cost, MeritOrderResult& out);

  /// Simplex iterations and flow rows of the last solve (diagnostics and tests).
  int iterations() const { return iters_; }
  int rows() const { return m_; }

 private:
  enum class At : unsigned char { kBasic, kLower, kUpper, kFixed };
  struct Col {         // one column of the LP
    double lo, hi, c;  // bounds (hi may be +inf) and cost
    double x;          // value when nonbasic
    At at;
  };
  bool start(double load_factor, std::span<const double> lo, std::span<const double> hi,
             std::span<const double> cost);
  void add_row(int line);
  double entry(int j, int i) const;  // A[i, j]
  bool factor();
  void primal_values();               // x_B from the nonbasic values
  void prices();                      // pi_ = B⁻ᵀ c_B
  void duals();                       // prices(), then d_ of every nonbasic column
  int leaving() const;                // basic row most out of its bounds, −1 if none
  int entering(int r);                // bounded ratio test on row r (needs pi_), −1 if none
  int screen(MeritOrderResult& out);  // point and flows into out; rows added, −1: too many
  bool verified() const;

  // The network's constant data, shared by copies (one solver per env state, one matrix).
  struct Net {
    std::vector<double> rating, flow_base;
    std::vector<double> g;  // [nu x nl] PTDF at the unit buses, unit-major
  };
  std::shared_ptr<const Net> net_;
  int nu_ = 0, nl_ = 0;
  double voll_ = 0, price_ = 0, sum_base_ = 0;
  // Per solve: columns units, unserved, spilled, then per flow row its overload pair, then the
  // logicals (column −e_i carrying row i's bounds). The unit columns' row entries are kept
  // unit-major in ucol_ [nu x kMaxRows].
  int m_ = 0, iters_ = 0;
  std::vector<Col> cols_;
  std::vector<int> line_;      // [m] branch of row i (row 0: balance, −1)
  std::vector<char> in_rows_;  // [nl]
  std::vector<double> ucol_;
  std::vector<int> basis_;    // [m] column basic in row i
  double flow_load_ = 0;      // load_factor of this solve
  DenseLu lu_;                // of the basis, factored afresh at every iteration
  std::vector<double> bmat_;  // [m x m] the basis, row-major
  std::vector<double> xb_, pi_, d_, rho_, alpha_;
  std::vector<int> order_;
};

}  // namespace pz::grid
