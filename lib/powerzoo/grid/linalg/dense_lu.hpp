// DenseLu: the one dense linear solver of the grid layer (PTDF, DC power flow, KKT polishing).
#pragma once

#include <cstddef>
#include <vector>

namespace pz::grid {

/// LU factorization with partial pivoting of a dense n x n row-major matrix (double), then any
/// number of solves A x = b. Plain loops in a fixed order, so results are bit-reproducible
/// (LAPACK dgetrf/dgetrs give other last bits, which would move every PTDF-derived number).
/// Never throws; a singular matrix is reported by ok().
class DenseLu {
 public:
  DenseLu() = default;
  /// Factors `a` [n x n], row-major. ok() is false if a pivot is not above 1e-13 times the
  /// largest |entry| of `a` (numerically singular); solve() must not be called then.
  DenseLu(std::vector<double> a, int n);

  /// Factors a [n x n] (row-major, copied) in place of the current factors, reusing their storage
  /// (no allocation once grown); returns ok().
  bool factor(const double* a, int n);

  bool ok() const { return ok_; }
  int size() const { return n_; }

  /// Solves A x = rhs in place: x [n] holds rhs on entry and the solution on return.
  void solve(double* x) const;
  /// Solves Aᵀ x = rhs in place (the simplex's duals and pivot rows).
  void solve_transposed(double* x) const;

 private:
  double& at(int i, int j) { return a_[static_cast<std::size_t>(i) * n_ + j]; }
  void factor_in_place();

  int n_ = 0;
  std::vector<double> a_;  // L (unit diagonal, below) and U (on and above), row-major [n x n]
  std::vector<int> piv_;   // row swapped with row k at step k
  bool ok_ = true;
};

}  // namespace pz::grid
