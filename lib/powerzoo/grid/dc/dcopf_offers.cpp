// DC-OPF offer prices: per-solve slopes of the piecewise-linear (gencost model 1) epigraph rows.
//
// Gen g's epigraph rows are y_g − s_k·PG_g ≥ Y_k − s_k·x_k (segment k from x_k to x_{k+1},
// Y_0 = y_0, Y_{k+1} = Y_k + s_k·(x_{k+1} − x_k)); an offer changes s_k in the matrix and the
// row's lower bound. The rows follow the flow rows, gen by gen in case row order (build_rows).
#include <cmath>
#include <string>

#include "powerzoo/grid/dc/dcopf_impl.hpp"

namespace pz::grid {

void DcOpf::Impl::init_pwl_curves() {
  if (!pwl_curves.empty() || !has_pwl) return;
  int row = 1 + static_cast<int>(lim.size());
  for (int g : on_gens) {
    const GenCost& gc = c.gencost[g];
    const size_t np = gc.coeffs.size() / 2;
    if (gc.model != 1 || np < 2) continue;
    PwlCurve cv;
    cv.col = gen_col[g];
    cv.row0 = row;
    cv.y0 = gc.coeffs[1];
    for (size_t i = 0; i < np; ++i) cv.x.push_back(gc.coeffs[2 * i]);
    row += static_cast<int>(np - 1);
    n_pwl_prices += np - 1;
    pwl_curves.push_back(std::move(cv));
  }
}

bool DcOpf::Impl::check_offer_prices(const DcOpfOverrides* o, std::string& err) {
  if (!o || o->pwl_prices.empty()) return true;
  init_pwl_curves();
  if (o->pwl_prices.size() != n_pwl_prices) {
    err = "expected " + std::to_string(n_pwl_prices) +
          " offer prices (one per piecewise-linear cost segment), found " +
          std::to_string(o->pwl_prices.size());
    return false;
  }
  size_t k = 0;
  for (const PwlCurve& cv : pwl_curves) {
    for (size_t i = 0; i + 1 < cv.x.size(); ++i, ++k) {
      const double p = o->pwl_prices[k];
      if (!std::isfinite(p)) {
        err = "expected finite offer prices, found a non-finite value";
        return false;
      }
      // A falling price would make the cost concave: the epigraph would then not be the curve.
      if (i > 0 && p < o->pwl_prices[k - 1]) {
        err = "expected non-decreasing offer prices per gen, found " + std::to_string(p) +
              " after " + std::to_string(o->pwl_prices[k - 1]);
        return false;
      }
    }
  }
  return true;
}

void DcOpf::Impl::apply_offer_prices(const DcOpfOverrides* o) {
  const bool offered = o && !o->pwl_prices.empty();
  if (!offered && !offers_applied) return;
  init_pwl_curves();
  size_t k = 0;
  for (const PwlCurve& cv : pwl_curves) {
    double y = cv.y0;
    for (size_t i = 0; i + 1 < cv.x.size(); ++i, ++k) {
      double s;
      if (offered) {
        s = o->pwl_prices[k];
      } else {  // back to the case's slope of this segment
        const int g = on_gens[cv.col];
        const auto& q = c.gencost[g].coeffs;
        s = (q[2 * i + 3] - q[2 * i + 1]) / (q[2 * i + 2] - q[2 * i]);
      }
      const int r = cv.row0 + static_cast<int>(i);
      model.modifyCoefficient(r, cv.col, -s);
      model.setRowBounds(r, y - s * cv.x[i], COIN_DBL_MAX);
      y += s * (cv.x[i + 1] - cv.x[i]);
    }
  }
  offers_applied = offered;
  matrix_changed = true;
  model.setWhatsChanged(0);  // the matrix changed behind ClpSimplex's setters
}

}  // namespace pz::grid
