// DC-OPF answer checks: LP primal/dual feasibility against the stored model, and the exact
// KKT polish of CLP's QP points on their active set.
#include <algorithm>
#include <cmath>
#include <coin/CoinPackedMatrix.hpp>
#include <vector>

#include "powerzoo/grid/dc/dcopf_impl.hpp"
#include "powerzoo/grid/dc/lp_kkt.hpp"
#include "powerzoo/grid/linalg/dense_lu.hpp"

namespace pz::grid {

bool lp_kkt_holds(const ClpSimplex& m, const std::vector<double>& qdiag, std::vector<double>& act,
                  std::vector<double>& aty) {
  const int nc = m.numberColumns(), nr = m.numberRows();
  const double* x = m.primalColumnSolution();
  const double* y = m.dualRowSolution();
  const double* cl = m.columnLower();
  const double* cu = m.columnUpper();
  const double* rl = m.rowLower();
  const double* ru = m.rowUpper();
  const double* cost = m.objective();
  act.assign(nr, 0.0);
  aty.assign(nc, 0.0);
  m.matrix()->times(x, act.data());
  m.matrix()->transposeTimes(y, aty.data());
  constexpr double kTol = 1e-6;
  for (int i = 0; i < nr; ++i) {
    const double tl = kTol * (1 + std::abs(rl[i])), tu = kTol * (1 + std::abs(ru[i]));
    if (act[i] < rl[i] - tl || act[i] > ru[i] + tu) return false;
    // Row duals (d objective / d bound): ≥ 0 at the lower bound, ≤ 0 at the upper, 0 between.
    const bool at_lo = act[i] <= rl[i] + tl, at_hi = act[i] >= ru[i] - tu;
    if (at_lo && at_hi) continue;
    const double yt = kTol * (1 + std::abs(y[i]));
    if (at_lo ? y[i] < -yt : at_hi ? y[i] > yt : std::abs(y[i]) > yt) return false;
  }
  const int nq = static_cast<int>(qdiag.size());
  for (int j = 0; j < nc; ++j) {
    const double tol = kTol * (1 + std::abs(x[j]));
    if (x[j] < cl[j] - tol || x[j] > cu[j] + tol) return false;
    const double grad = j < nq ? cost[j] + qdiag[j] * x[j] : cost[j];
    const double d = grad - aty[j];
    const double dt = kTol * (1 + std::abs(grad));
    const bool at_lo = x[j] <= cl[j] + tol, at_hi = x[j] >= cu[j] - tol;
    if (at_lo && at_hi) continue;
    if (at_lo ? d < -dt : at_hi ? d > dt : std::abs(d) > dt) return false;
  }
  return true;
}

bool DcOpf::Impl::verify_lp(const ClpSimplex& m) {
  static const std::vector<double> kNoQ;
  return lp_kkt_holds(m, kNoQ, v_act, v_aty);
}

// Farkas check of a "primal infeasible" verdict: for the ray y of CLP, every feasible x has
// yᵀAx inside the interval the row bounds allow and inside the interval the column bounds allow;
// if the two intervals are disjoint by more than a relative 1e-7, no feasible x exists. Computed
// from the stored model, so it holds however the verdict was reached.
bool DcOpf::Impl::verify_infeasible(const ClpSimplex& m) {
  double* ray = m.infeasibilityRay();
  if (ray == nullptr) return false;
  const int nc = m.numberColumns(), nr = m.numberRows();
  const double* cl = m.columnLower();
  const double* cu = m.columnUpper();
  const double* rl = m.rowLower();
  const double* ru = m.rowUpper();
  const double kInf = COIN_DBL_MAX;
  std::vector<double>& aty = v_aty;
  aty.assign(nc, 0.0);
  m.matrix()->transposeTimes(ray, aty.data());
  // [lo, hi] of Σ terms v·[a, b] (v a coefficient, [a, b] a bound pair), and Σ |terms| as scale.
  auto span = [&](const double* v, const double* a, const double* b, int n, double& lo, double& hi,
                  double& scale) {
    lo = hi = 0.0;
    for (int i = 0; i < n; ++i) {
      if (std::abs(v[i]) < 1e-12) continue;
      const double p = v[i] * a[i], q = v[i] * b[i];
      const bool a_inf = a[i] <= -kInf, b_inf = b[i] >= kInf;
      const double t_lo = v[i] > 0 ? (a_inf ? -kInf : p) : (b_inf ? -kInf : q);
      const double t_hi = v[i] > 0 ? (b_inf ? kInf : q) : (a_inf ? kInf : p);
      lo = (lo <= -kInf || t_lo <= -kInf) ? -kInf : lo + t_lo;
      hi = (hi >= kInf || t_hi >= kInf) ? kInf : hi + t_hi;
      if (!a_inf) scale += std::abs(p);
      if (!b_inf) scale += std::abs(q);
    }
  };
  double r_lo, r_hi, c_lo, c_hi, scale = 0.0;
  span(ray, rl, ru, nr, r_lo, r_hi, scale);
  span(aty.data(), cl, cu, nc, c_lo, c_hi, scale);
  delete[] ray;
  const double tol = 1e-7 * (1.0 + scale);
  return (c_hi < kInf && r_lo > -kInf && c_hi < r_lo - tol) ||
         (c_lo > -kInf && r_hi < kInf && c_lo > r_hi + tol);
}

// CLP's QP path (reduced gradient) stops at ~1e-6 MW. Given its active set (gens at a bound,
// flow rows at a bound), the optimum solves the KKT system of the equality-constrained QP
//   2a_j p_j + b_j − λ − Σ_k y_k M_kj = 0 (free gens),  Σ p = D,  M_k p = bound_k (active rows),
// which is solved exactly here. The polished point replaces CLP's only if it is feasible and
// its multipliers have the right signs (i.e. it is the KKT point); otherwise CLP's stays.
// x: [n_pg] gen outputs, y: [n_rows] row duals (CLP convention), both updated on success.
bool DcOpf::Impl::polish(std::vector<double>& x, std::vector<double>& y) {
  const int n = static_cast<int>(on_gens.size());
  const int nlim = static_cast<int>(lim.size());
  const double* clb = model.getColLower();
  const double* cub = model.getColUpper();
  const double* rlb = model.getRowLower();
  const double* rub = model.getRowUpper();
  constexpr double kTolX = 1e-6;
  auto mcoef = [&](int k, int j) { return mlim[static_cast<size_t>(k) * n + j]; };
  std::vector<int> fix(n, 0);  // 0 free, -1 at lower, +1 at upper
  for (int j = 0; j < n; ++j) {
    if (x[j] - clb[j] <= kTolX)
      fix[j] = -1;
    else if (cub[j] - x[j] <= kTolX)
      fix[j] = 1;
  }
  std::vector<int> act(nlim, 0);  // 0 inactive, -1 at lower, +1 at upper
  for (int k = 0; k < nlim; ++k) {
    double a = 0;
    for (int j = 0; j < n; ++j) a += mcoef(k, j) * x[j];
    if (rub[k + 1] - a <= kTolX)
      act[k] = 1;
    else if (a - rlb[k + 1] <= kTolX)
      act[k] = -1;
  }
  if (!kkt_solve(fix, act, x, y)) return false;
  last_fix = std::move(fix);
  last_act = std::move(act);
  return true;
}

bool DcOpf::Impl::kkt_solve(const std::vector<int>& fix, const std::vector<int>& act,
                            std::vector<double>& x, std::vector<double>& y) const {
  const int n = static_cast<int>(on_gens.size());
  const int nlim = static_cast<int>(lim.size());
  const double* clb = model.getColLower();
  const double* cub = model.getColUpper();
  const double* rlb = model.getRowLower();
  const double* rub = model.getRowUpper();
  auto mcoef = [&](int k, int j) { return mlim[static_cast<size_t>(k) * n + j]; };
  std::vector<int> free_cols, act_rows;
  for (int j = 0; j < n; ++j) {
    if (!fix[j]) free_cols.push_back(j);
  }
  for (int k = 0; k < nlim; ++k) {
    if (act[k]) act_rows.push_back(k);
  }
  const int nf = static_cast<int>(free_cols.size()), na = static_cast<int>(act_rows.size());
  const int dim = nf + 1 + na;
  std::vector<double> p(n);
  for (int j = 0; j < n; ++j) p[j] = fix[j] < 0 ? clb[j] : fix[j] > 0 ? cub[j] : 0.0;
  std::vector<double> A(static_cast<size_t>(dim) * dim, 0.0), r(dim, 0.0);
  auto at = [&](int i, int j) -> double& { return A[static_cast<size_t>(i) * dim + j]; };
  for (int i = 0; i < nf; ++i) {
    const int j = free_cols[i];
    at(i, i) = 2.0 * quad_cost[j];
    at(i, nf) = -1.0;
    for (int q = 0; q < na; ++q) at(i, nf + 1 + q) = -mcoef(act_rows[q], j);
    r[i] = -lin_cost[j];
  }
  double fixed_sum = 0;
  for (int j = 0; j < n; ++j) fixed_sum += fix[j] ? p[j] : 0.0;
  for (int i = 0; i < nf; ++i) at(nf, i) = 1.0;
  r[nf] = rlb[0] - fixed_sum;
  for (int q = 0; q < na; ++q) {
    const int k = act_rows[q];
    double fixed_flow = 0;
    for (int j = 0; j < n; ++j) fixed_flow += fix[j] ? mcoef(k, j) * p[j] : 0.0;
    for (int i = 0; i < nf; ++i) at(nf + 1 + q, i) = mcoef(k, free_cols[i]);
    r[nf + 1 + q] = (act[k] > 0 ? rub[k + 1] : rlb[k + 1]) - fixed_flow;
  }
  const DenseLu lu(std::move(A), dim);
  if (!lu.ok()) return false;
  lu.solve(r.data());
  for (double v : r) {
    if (!std::isfinite(v)) return false;
  }
  for (int i = 0; i < nf; ++i) p[free_cols[i]] = r[i];
  std::vector<double> yy(n_rows, 0.0);
  yy[0] = r[nf];
  for (int q = 0; q < na; ++q) yy[act_rows[q] + 1] = r[nf + 1 + q];
  // Feasibility.
  constexpr double kFeas = 1e-7, kSign = 1e-7;
  for (int j = 0; j < n; ++j) {
    if (p[j] < clb[j] - kFeas || p[j] > cub[j] + kFeas) return false;
    p[j] = std::clamp(p[j], clb[j], cub[j]);
  }
  for (int k = 0; k < nlim; ++k) {
    double a = 0;
    for (int j = 0; j < n; ++j) a += mcoef(k, j) * p[j];
    if (a < rlb[k + 1] - kFeas || a > rub[k + 1] + kFeas) return false;
    const double yk = yy[k + 1];
    if (rlb[k + 1] == rub[k + 1]) continue;
    if ((act[k] > 0 && yk > kSign) || (act[k] < 0 && yk < -kSign)) return false;
  }
  // Reduced costs of the gens held at a bound.
  for (int j = 0; j < n; ++j) {
    if (!fix[j] || clb[j] == cub[j]) continue;
    double d = 2.0 * quad_cost[j] * p[j] + lin_cost[j] - yy[0];
    for (int q = 0; q < na; ++q) d -= yy[act_rows[q] + 1] * mcoef(act_rows[q], j);
    if ((fix[j] < 0 && d < -kSign) || (fix[j] > 0 && d > kSign)) return false;
  }
  x = std::move(p);
  y = std::move(yy);
  return true;
}

}  // namespace pz::grid
