// Soft line limits of the DC-OPF (DcOpfOverrides::line_overload_cost): every flow row
// lo ≤ a·PG ≤ hi becomes lo ≤ a·PG − s⁺ + s⁻ ≤ hi with s⁺, s⁻ ≥ 0 priced per MW, the elastic
// form of a constraint (Chinneck, "Feasibility and Infeasibility in Optimization", Springer
// 2008, ch. 6). At an optimum at most one of s⁺, s⁻ is positive and it equals the overload.
#include <vector>

#include "powerzoo/grid/dc/dcopf_impl.hpp"

namespace pz::grid {

namespace {

// Appends to m an (s⁺, s⁻) column pair per row of `rows`, fixed at 0 and without cost (the
// caller sets both), nonbasic at their lower bound so the current basis stays a basis. Returns
// the first new column; pair i is columns first + 2i, first + 2i + 1.
int add_pairs(ClpSimplex& m, const std::vector<int>& rows) {
  const int first = m.numberColumns();
  const int n = 2 * static_cast<int>(rows.size());
  std::vector<CoinBigIndex> start(n + 1);
  std::vector<int> ind(n);
  std::vector<double> val(n), zero(n, 0.0);
  for (int j = 0; j < n; ++j) {
    start[j] = j;
    ind[j] = rows[j / 2];
    val[j] = j % 2 == 0 ? -1.0 : 1.0;
  }
  start[n] = n;
  m.addColumns(n, zero.data(), zero.data(), zero.data(), start.data(), ind.data(), val.data());
  for (int j = first; j < first + n; ++j) m.setColumnStatus(j, ClpSimplex::atLowerBound);
  return first;
}

}  // namespace

void DcOpf::Impl::add_full_elastic() {
  std::vector<int> rows(lim.size());
  for (size_t k = 0; k < lim.size(); ++k) rows[k] = static_cast<int>(k) + 1;
  full_elastic_col = add_pairs(model, rows);
  matrix_changed = true;  // the old factorization has fewer columns
}

void DcOpf::Impl::add_lazy_elastic() {
  lazy_elastic_col.resize(lazy_rows.size(), -1);
  std::vector<int> rows;
  std::vector<size_t> which;
  for (size_t i = 0; i < lazy_rows.size(); ++i) {
    if (lazy_elastic_col[i] >= 0) continue;
    rows.push_back(static_cast<int>(i) + 1);
    which.push_back(i);
  }
  if (rows.empty()) return;
  const int first = add_pairs(lazy_model, rows);
  for (size_t n = 0; n < which.size(); ++n)
    lazy_elastic_col[which[n]] = first + 2 * static_cast<int>(n);
}

void DcOpf::Impl::set_elastic_bounds(ClpSimplex& m, int first_col) {
  const bool on = elastic_cost > 0;
  for (int j = first_col; j < first_col + 2; ++j) {
    m.setColumnBounds(j, 0.0, on ? COIN_DBL_MAX : 0.0);
    m.setObjectiveCoefficient(j, on ? elastic_cost : 0.0);
  }
}

double DcOpf::Impl::elastic_sum(const ClpSimplex& m, const std::vector<int>& first_cols) const {
  if (elastic_cost <= 0) return 0.0;
  const double* x = m.primalColumnSolution();
  double s = 0;
  for (int j : first_cols)
    if (j >= 0) s += x[j] + x[j + 1];
  return s;
}

}  // namespace pz::grid
