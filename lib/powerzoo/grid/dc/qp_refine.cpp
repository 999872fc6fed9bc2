// Active-set refinement of a convex diagonal QP's optimum (see qp_refine.hpp): the primal
// active-set method of Nocedal & Wright, "Numerical Optimization", 2nd ed., Algorithm 16.3, from
// a solver's feasible point, on dense KKT systems (the SCOPF's QPs have tens of columns and at
// most hundreds of rows).
#include "powerzoo/grid/dc/qp_refine.hpp"

#include <algorithm>
#include <cmath>

#include "powerzoo/grid/linalg/dense_lu.hpp"

namespace pz::grid {

namespace {

constexpr double kInf = 1e30;
constexpr double kSignTol = 1e-9;   // a multiplier of the wrong sign beyond this (relative)
constexpr double kStepTol = 1e-12;  // a step shorter than this (relative to 1 + |x|) is none
constexpr double kMoveTol = 1e-10;  // a constraint moved less than this by a step stays put

struct Work {
  const DenseQp& p;
  std::vector<int> wr, wc;  // working set: side of each row / column (0 out, ±1 bound, 2 equality)
  double a(int i, int j) const { return p.a[static_cast<size_t>(i) * p.n_cols + j]; }
  double activity(int i, const std::vector<double>& x) const {
    double s = 0;
    for (int j = 0; j < p.n_cols; ++j) s += a(i, j) * x[j];
    return s;
  }
  /// The minimizer on the working set (its constraints at equality) into xn, its multipliers
  /// into y. False if the KKT matrix is singular.
  bool solve(std::vector<double>& xn, std::vector<double>& y) const;
};

bool Work::solve(std::vector<double>& xn, std::vector<double>& y) const {
  const int m = p.n_rows, n = p.n_cols;
  std::vector<int> fr, ac;
  for (int j = 0; j < n; ++j) {
    if (wc[j] < 0) xn[j] = p.col_lo[j];
    if (wc[j] > 0) xn[j] = p.col_hi[j];
    if (!wc[j]) fr.push_back(j);
  }
  for (int i = 0; i < m; ++i)
    if (wr[i]) ac.push_back(i);
  const int nf = static_cast<int>(fr.size()), na = static_cast<int>(ac.size()), dim = nf + na;
  std::vector<double> k(static_cast<size_t>(dim) * dim, 0.0), r(dim, 0.0);
  auto at = [&](int i, int j) -> double& { return k[static_cast<size_t>(i) * dim + j]; };
  for (int f = 0; f < nf; ++f) {  // stationarity: c + q·x − Aᵀy = 0 on the free columns
    at(f, f) = p.q[fr[f]];
    for (int t = 0; t < na; ++t) at(f, nf + t) = -a(ac[t], fr[f]);
    r[f] = -p.c[fr[f]];
  }
  for (int t = 0; t < na; ++t) {  // working rows at their bound
    const int i = ac[t];
    double fixed = 0;
    for (int j = 0; j < n; ++j)
      if (wc[j]) fixed += a(i, j) * xn[j];
    for (int f = 0; f < nf; ++f) at(nf + t, f) = a(i, fr[f]);
    r[nf + t] = (wr[i] > 0 ? p.row_hi[i] : p.row_lo[i]) - fixed;
  }
  if (dim > 0) {
    const DenseLu lu(std::move(k), dim);
    if (!lu.ok()) return false;
    lu.solve(r.data());
  }
  for (double v : r)
    if (!std::isfinite(v)) return false;
  for (int f = 0; f < nf; ++f) xn[fr[f]] = r[f];
  y.assign(m, 0.0);
  for (int t = 0; t < na; ++t) y[ac[t]] = r[nf + t];
  return true;
}

}  // namespace

bool refine_qp(const DenseQp& p, std::vector<double>& x, std::vector<double>& y, int max_iter) {
  const int m = p.n_rows, n = p.n_cols;
  Work w{p, std::vector<int>(m, 0), std::vector<int>(n, 0)};
  // Start: the equality rows; every inequality row joins when it blocks a step (so the working
  // set stays linearly independent, which the rows a degenerate point makes active are not).
  for (int i = 0; i < m; ++i)
    if (p.row_lo[i] == p.row_hi[i]) w.wr[i] = 2;
  // Columns without curvature (a linear cost, a fixed output) start at the bound the start
  // point has them on: free, nothing would determine them (a singular KKT matrix).
  for (int j = 0; j < n; ++j) {
    x[j] = std::min(std::max(x[j], p.col_lo[j]), p.col_hi[j]);
    const double tol = 1e-9 * (1 + std::abs(x[j]));
    if (p.q[j] != 0.0) continue;
    if (x[j] <= p.col_lo[j] + tol)
      w.wc[j] = -1;
    else if (x[j] >= p.col_hi[j] - tol)
      w.wc[j] = 1;
  }
  std::vector<double> xn(n), act(m);
  for (int it = 0; it < max_iter; ++it) {
    xn = x;
    if (!w.solve(xn, y)) return false;
    double step = 0;
    for (int j = 0; j < n; ++j)
      step = std::max(step, std::abs(xn[j] - x[j]) / (1 + std::abs(x[j])));
    if (step <= kStepTol) {
      x = xn;
      // Optimal unless a working inequality's multiplier has the wrong sign: drop the worst.
      double worst = kSignTol;
      int wi = -1;
      bool is_row = false;
      for (int i = 0; i < m; ++i) {
        if (w.wr[i] == 0 || w.wr[i] == 2) continue;
        const double bad = w.wr[i] > 0 ? y[i] : -y[i];  // upper needs y ≤ 0, lower y ≥ 0
        if (bad > worst) worst = bad, wi = i, is_row = true;
      }
      for (int j = 0; j < n; ++j) {
        if (!w.wc[j] || p.col_lo[j] == p.col_hi[j]) continue;
        double d = p.c[j] + p.q[j] * x[j];
        for (int i = 0; i < m; ++i)
          if (w.wr[i]) d -= y[i] * w.a(i, j);
        const double bad = (w.wc[j] > 0 ? d : -d) / (1 + std::abs(p.c[j]));
        if (bad > worst) worst = bad, wi = j, is_row = false;
      }
      if (wi < 0) return true;
      (is_row ? w.wr : w.wc)[wi] = 0;
      continue;
    }
    // Step toward xn as far as the constraints outside the working set allow.
    double alpha = 1.0;
    int bi = -1, bside = 0;
    bool b_row = false;
    // A constraint the step does not move (|d| at rounding level) cannot block it: it is
    // parallel to the working set (a duplicate flow limit), and joining would make it singular.
    for (int i = 0; i < m; ++i) {
      if (w.wr[i]) continue;
      const double v = w.activity(i, x), d0 = w.activity(i, xn) - v;
      const double d = std::abs(d0) <= kMoveTol * (1 + std::abs(v)) ? 0.0 : d0;
      if (d > 0 && p.row_hi[i] < kInf) {
        const double t = std::max(0.0, (p.row_hi[i] - v) / d);
        if (t < alpha) alpha = t, bi = i, bside = 1, b_row = true;
      } else if (d < 0 && p.row_lo[i] > -kInf) {
        const double t = std::max(0.0, (p.row_lo[i] - v) / d);
        if (t < alpha) alpha = t, bi = i, bside = -1, b_row = true;
      }
    }
    for (int j = 0; j < n; ++j) {
      if (w.wc[j]) continue;
      const double d = xn[j] - x[j];
      if (d > 0 && p.col_hi[j] < kInf) {
        const double t = std::max(0.0, (p.col_hi[j] - x[j]) / d);
        if (t < alpha) alpha = t, bi = j, bside = 1, b_row = false;
      } else if (d < 0 && p.col_lo[j] > -kInf) {
        const double t = std::max(0.0, (p.col_lo[j] - x[j]) / d);
        if (t < alpha) alpha = t, bi = j, bside = -1, b_row = false;
      }
    }
    for (int j = 0; j < n; ++j) x[j] += alpha * (xn[j] - x[j]);
    if (bi >= 0) (b_row ? w.wr : w.wc)[bi] = bside;
  }
  return false;
}

}  // namespace pz::grid
