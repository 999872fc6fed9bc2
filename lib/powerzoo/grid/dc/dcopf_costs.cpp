// DC-OPF cost terms: the checks of a gen's MATPOWER gencost (polynomial of degree <= 2 with a
// convex quadratic, or a convex piecewise-linear curve) and its split into model terms.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/dc/dcopf_impl.hpp"

namespace pz::grid {

namespace {
std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}
}  // namespace

/// Checks the cost of in-service gen row g and sets its linear and quadratic coefficients; adds
/// constant terms to const_cost and piecewise-linear gens (>= 2 points) to pwl_gens.
void DcOpf::Impl::gen_cost_terms(int g, double& lin, double& quad, std::vector<int>& pwl_gens) {
  const GenCost& gc = c.gencost[g];
  // File and line of the cost row when the case came from a file, else the case name.
  const std::string at = !c.source_path.empty() && gc.source_line > 0
                             ? c.source_path + ":" + std::to_string(gc.source_line) + ": "
                             : "case '" + c.name + "': ";
  if (gc.model == 2) {
    const auto& k = gc.coeffs;
    const size_t n = k.size();
    for (size_t i = 0; i + 3 < n; ++i) {
      if (k[i] != 0.0) {
        throw core::ConfigError(at +
                                "expected gencost of degree <= 2 for "
                                "DC-OPF, found degree " +
                                std::to_string(n - 1 - i) + " on gen row " + std::to_string(g + 1));
      }
    }
    if (n >= 1) const_cost += k[n - 1];
    if (n >= 2) lin = k[n - 2];
    if (n >= 3) quad = k[n - 3];
    if (quad < 0) {
      throw core::ConfigError(at +
                              "expected a convex gencost (quadratic "
                              "coefficient >= 0) on gen row " +
                              std::to_string(g + 1) + ", found " + std::to_string(quad));
    }
  } else if (gc.model == 1) {
    const size_t np = gc.coeffs.size() / 2;
    if (gc.coeffs.size() % 2 != 0 || np == 0) {
      throw core::ConfigError(at +
                              "expected (x, y) pairs in piecewise-linear "
                              "gencost of gen row " +
                              std::to_string(g + 1));
    }
    if (np == 1) {
      const_cost += gc.coeffs[1];
    } else {
      const auto& k = gc.coeffs;
      for (size_t i = 0; i + 1 < np; ++i) {
        if (!(k[2 * i + 2] > k[2 * i])) {
          throw core::ConfigError(at +
                                  "expected increasing x in piecewise-"
                                  "linear gencost of gen row " +
                                  std::to_string(g + 1));
        }
      }
      // The epigraph form is the cost's convex hull: a falling segment price would be priced
      // as the hull, not as offered, so dispatch, LMPs and objective would disagree.
      for (size_t i = 1; i + 1 < np; ++i) {
        const double before = (k[2 * i + 1] - k[2 * i - 1]) / (k[2 * i] - k[2 * i - 2]);
        const double after = (k[2 * i + 3] - k[2 * i + 1]) / (k[2 * i + 2] - k[2 * i]);
        if (after < before - 1e-9 * (1 + std::abs(before))) {
          throw core::ConfigError(at +
                                  "expected a convex piecewise-linear gencost (non-decreasing "
                                  "segment prices) on gen row " +
                                  std::to_string(g + 1) + ", found " + num(before) + " then " +
                                  num(after) + " $/MWh at " + num(k[2 * i]) + " MW");
        }
      }
      pwl_gens.push_back(g);
    }
  } else {
    throw core::ConfigError(at + "expected gencost model 1 or 2 on gen row " +
                            std::to_string(g + 1) + ", found " + std::to_string(gc.model));
  }
}

}  // namespace pz::grid
