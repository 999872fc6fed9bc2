// Exact optimum of a small convex QP with diagonal Hessian from a solver's approximate point: an
// active-set iteration on dense KKT systems (the SCOPF's check and polish of CLP's QP answers).
#pragma once

#include <vector>

namespace pz::grid {

/// min Σ_j (c_j·x_j + ½·q_j·x_j²) subject to row_lo ≤ A·x ≤ row_hi and col_lo ≤ x ≤ col_hi,
/// A dense row-major [n_rows x n_cols], q_j ≥ 0. Infinite bounds as ±1e30 or beyond.
struct DenseQp {
  int n_rows = 0, n_cols = 0;
  std::vector<double> a, row_lo, row_hi, col_lo, col_hi, c, q;
};

/// Starting from the working set that x (a solver's answer, [n_cols]) makes active, solves the
/// equality-constrained KKT system, adds the most violated constraint or drops the constraint
/// whose multiplier has the wrong sign, and repeats until the point is feasible with multipliers
/// of the right signs: then it is the QP's optimum (convexity), returned in x with the row
/// duals y [n_rows] (d objective / d row bound: ≥ 0 at a lower bound, ≤ 0 at an upper one).
/// Returns false, leaving x and y unspecified, if a KKT matrix is singular or no such point is
/// reached in max_iter steps (the caller reports the solve as failed).
bool refine_qp(const DenseQp& p, std::vector<double>& x, std::vector<double>& y,
               int max_iter = 500);

}  // namespace pz::grid
