// DenseLu: dense LU with partial pivoting (Doolittle, row-major), bit-reproducible plain loops.
#include "powerzoo/grid/linalg/dense_lu.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace pz::grid {

DenseLu::DenseLu(std::vector<double> a, int n) : n_(n), a_(std::move(a)), piv_(n) {
  factor_in_place();
}

bool DenseLu::factor(const double* a, int n) {
  n_ = n;
  a_.assign(a, a + static_cast<size_t>(n) * n);
  piv_.resize(n);
  ok_ = true;
  factor_in_place();
  return ok_;
}

void DenseLu::factor_in_place() {
  double scale = 0;
  for (double x : a_) scale = std::max(scale, std::fabs(x));
  const double tiny = scale * 1e-13;
  for (int k = 0; k < n_; ++k) {
    int p = k;
    double best = std::fabs(at(k, k));
    for (int i = k + 1; i < n_; ++i) {
      if (std::fabs(at(i, k)) > best) {
        best = std::fabs(at(i, k));
        p = i;
      }
    }
    piv_[k] = p;
    if (!(best > tiny)) {
      ok_ = false;
      return;
    }
    if (p != k) {
      for (int j = 0; j < n_; ++j) std::swap(at(k, j), at(p, j));
    }
    const double inv = 1.0 / at(k, k);
    for (int i = k + 1; i < n_; ++i) {
      const double f = at(i, k) * inv;
      at(i, k) = f;
      if (f == 0.0) continue;
      double* ri = &a_[static_cast<size_t>(i) * n_];
      const double* rk = &a_[static_cast<size_t>(k) * n_];
      for (int j = k + 1; j < n_; ++j) ri[j] -= f * rk[j];
    }
  }
}

void DenseLu::solve(double* x) const {
  for (int k = 0; k < n_; ++k) std::swap(x[k], x[piv_[k]]);
  for (int i = 0; i < n_; ++i) {
    double s = x[i];
    const double* ri = &a_[static_cast<size_t>(i) * n_];
    for (int j = 0; j < i; ++j) s -= ri[j] * x[j];
    x[i] = s;
  }
  for (int i = n_ - 1; i >= 0; --i) {
    double s = x[i];
    const double* ri = &a_[static_cast<size_t>(i) * n_];
    for (int j = i + 1; j < n_; ++j) s -= ri[j] * x[j];
    x[i] = s / ri[i];
  }
}

// A = Pᵀ·L·U, so Aᵀ = Uᵀ·Lᵀ·P: forward with Uᵀ, backward with Lᵀ (unit diagonal), then the row
// swaps undone in reverse order.
void DenseLu::solve_transposed(double* x) const {
  for (int i = 0; i < n_; ++i) {
    double s = x[i];
    for (int j = 0; j < i; ++j) s -= a_[static_cast<size_t>(j) * n_ + i] * x[j];
    x[i] = s / a_[static_cast<size_t>(i) * n_ + i];
  }
  for (int i = n_ - 1; i >= 0; --i) {
    double s = x[i];
    for (int j = i + 1; j < n_; ++j) s -= a_[static_cast<size_t>(j) * n_ + i] * x[j];
    x[i] = s;
  }
  for (int k = n_ - 1; k >= 0; --k) std::swap(x[k], x[piv_[k]]);
}

}  // namespace pz::grid
