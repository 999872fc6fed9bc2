// KluSolver: RAII over klu_analyze / klu_factor / klu_refactor / klu_solve.
#include "powerzoo/grid/linalg/klu_solver.hpp"

#include <suitesparse/klu.h>

namespace pz::grid {

struct KluSolver::Impl {
  klu_common common{};
  klu_symbolic* symbolic = nullptr;
  klu_numeric* numeric = nullptr;
  std::vector<int> ap, ai;

  Impl() {
    klu_defaults(&common);
    common.scale = -1;  // p.u. Jacobians are well scaled; scaling (and its checks) cost ~10 %
  }
  ~Impl() { clear(); }
  void clear_numeric() {
    if (numeric) klu_free_numeric(&numeric, &common);
    numeric = nullptr;
  }
  void clear() {
    clear_numeric();
    if (symbolic) klu_free_symbolic(&symbolic, &common);
    symbolic = nullptr;
  }
};

KluSolver::KluSolver() : impl_(std::make_unique<Impl>()) {}
KluSolver::~KluSolver() = default;
KluSolver::KluSolver(KluSolver&&) noexcept = default;
KluSolver& KluSolver::operator=(KluSolver&&) noexcept = default;

bool KluSolver::analyze(int n, const std::vector<int>& ap, const std::vector<int>& ai) {
  impl_->clear();
  impl_->ap = ap;
  impl_->ai = ai;
  n_ = n;
  impl_->symbolic = klu_analyze(n, impl_->ap.data(), impl_->ai.data(), &impl_->common);
  return impl_->symbolic != nullptr;
}

bool KluSolver::factor(const double* ax) {
  Impl& m = *impl_;
  if (!m.symbolic) return false;
  // klu_refactor/klu_factor take a non-const pointer but do not write the values.
  double* x = const_cast<double*>(ax);
  if (m.numeric) {
    if (klu_refactor(m.ap.data(), m.ai.data(), x, m.symbolic, m.numeric, &m.common) == 1 &&
        m.common.status == KLU_OK)
      return true;
    m.clear_numeric();
  }
  m.numeric = klu_factor(m.ap.data(), m.ai.data(), x, m.symbolic, &m.common);
  return m.numeric != nullptr && m.common.status == KLU_OK;
}

bool KluSolver::solve(double* b) {
  Impl& m = *impl_;
  if (!m.symbolic || !m.numeric) return false;
  return klu_solve(m.symbolic, m.numeric, n_, 1, b, &m.common) == 1;
}

}  // namespace pz::grid
