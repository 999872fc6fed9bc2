// Offer curves: truthful segment prices with the reference's monotone repair, markups, costs.
#include "powerzoo/market/offer_curve.hpp"

#include <algorithm>
#include <cmath>

namespace pz::market {

double OfferUnit::total_cost(double p) const {
  return mc_a / 3.0 * p * p * p + mc_b / 2.0 * p * p + mc_c * p;
}

double OfferUnit::marginal_cost(double p) const { return mc_a * p * p + mc_b * p + mc_c; }

std::vector<double> truthful_prices(const std::vector<OfferUnit>& units, int k) {
  std::vector<double> out(units.size() * static_cast<size_t>(k));
  for (size_t u = 0; u < units.size(); ++u) {
    const OfferUnit& un = units[u];
    const double w = (un.pmax_mw - un.pmin_mw) / k;
    for (int s = 0; s < k; ++s) {
      double p = un.marginal_cost(un.pmin_mw + (s + 0.5) * w);
      // Sequential repair: equal prices would make the merit order of a unit's own segments,
      // and so the marginal segment, a solver's choice.
      if (s > 0 && p <= out[u * k + s - 1]) p = out[u * k + s - 1] + 0.01;
      out[u * k + s] = p;
    }
  }
  return out;
}

void offer_prices(std::span<const double> base, std::span<const float> actions, int k,
                  double max_markup, std::span<double> out) {
  const size_t n = base.size();
  double m[64];  // K ≤ 64 segments per unit
  for (size_t u0 = 0; u0 < n; u0 += k) {
    for (int s = 0; s < k; ++s) {
      const float a = actions[u0 + s];
      const double ac = a == a ? std::clamp(static_cast<double>(a), -1.0, 1.0) : -1.0;
      m[s] = 0.5 * (ac + 1.0);
    }
    std::sort(m, m + k);  // the offer curve must not fall within a unit
    for (int s = 0; s < k; ++s) out[u0 + s] = base[u0 + s] * (1.0 + m[s] * max_markup);
  }
}

double offer_cost(const OfferUnit& u, std::span<const double> prices, double p_lo, double p) {
  const int k = static_cast<int>(prices.size());
  const double w = (u.pmax_mw - u.pmin_mw) / k;
  double cost = 0;
  for (int s = 0; s < k; ++s) {
    const double x0 = u.pmin_mw + s * w, x1 = x0 + w;
    const double len = std::min(x1, p) - std::max(x0, p_lo);
    if (len > 0) cost += prices[s] * len;
  }
  return cost;
}

}  // namespace pz::market
