// KluSolver: a square sparse linear solve with SuiteSparse KLU — symbolic analysis once per
// pattern, numeric refactorization per matrix (no allocation), pivoting factorization on demand.
#pragma once

#include <memory>
#include <vector>

namespace pz::grid {

/// Solves A x = b for a real n×n sparse matrix in compressed columns (Ap [n+1], Ai [nnz], sorted
/// rows per column). The pattern is fixed at analyze(); factor() takes new values with the same
/// pattern. The first factor() after analyze() (and any refactorization KLU reports as singular)
/// does a full pivoting factorization; later ones reuse its pivot order (klu_refactor,
/// no allocation). Never throws from factor()/solve(): they return false on a singular matrix.
class KluSolver {
 public:
  KluSolver();
  ~KluSolver();
  KluSolver(KluSolver&&) noexcept;
  KluSolver& operator=(KluSolver&&) noexcept;
  KluSolver(const KluSolver&) = delete;
  KluSolver& operator=(const KluSolver&) = delete;

  /// Symbolic analysis (AMD ordering, block triangular form) of the pattern. Copies Ap, Ai.
  /// Returns false if KLU refuses the pattern (structurally singular matrix).
  bool analyze(int n, const std::vector<int>& ap, const std::vector<int>& ai);
  /// Numeric factorization of the values ax [nnz] on the analyzed pattern.
  bool factor(const double* ax);
  /// b [n] is overwritten with x; requires a successful factor().
  bool solve(double* b);
  int n() const { return n_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int n_ = 0;
};

}  // namespace pz::grid
