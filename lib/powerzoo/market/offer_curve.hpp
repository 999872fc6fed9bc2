// Offer curves of generating units: K equal segments over [pmin, pmax] with monotone prices
// (PowerZooJax's make_cost_segments in powerzoojax/envs/market/clearing.py and
// market_marl_core.py).
#pragma once

#include <span>
#include <vector>

namespace pz::market {

/// One generating unit that offers into the market. Marginal cost MC(P) = a·P² + b·P + c
/// ($/MWh, the reference's convention), total cost rate TC(P) = a/3·P³ + b/2·P² + c·P ($/h).
struct OfferUnit {
  int gen_row = 0;  ///< 0-based row of the unit in the case's gen table
  double pmin_mw = 0, pmax_mw = 0;
  double mc_a = 0, mc_b = 0, mc_c = 0;
  /// false: the unit is out of service (its case row's GEN_STATUS is 0 or its bus is
  /// de-energized). It keeps its place (and its agent) but clears 0 MW: its bounds are 0 in every
  /// clearing, pmin_mw = pmax_mw = 0.
  bool in_service = true;
  /// TC(P) in $/h.
  double total_cost(double p_mw) const;
  /// MC(P) in $/MWh.
  double marginal_cost(double p_mw) const;
};

/// Truthful segment prices [U·K] (row-major, unit u's segment k at u·K + k), $/MWh: MC at each
/// segment's midpoint pmin + (k + ½)·w, w = (pmax − pmin)/K; a price not above its predecessor is
/// repaired to predecessor + 0.01 (so flat-MC units offer c, c + 0.01, c + 0.02, …).
/// Reference: clearing.make_cost_segments.
std::vector<double> truthful_prices(const std::vector<OfferUnit>& units, int k);

/// Offer prices from bidding actions (as PowerZooJax's market_marl_core.py): a [U·K] is clipped to
/// [−1, 1] (NaN → −1), m = (a + 1)/2 is sorted ascending within each unit, and
/// price = base·(1 + m·max_markup). Writes out [U·K]; base and out are $/MWh.
void offer_prices(std::span<const double> base, std::span<const float> actions, int k,
                  double max_markup, std::span<double> out);

/// The offered cost above p_lo of one unit's curve ($/h): Σ_k price_k·|[x_k, x_k + w] ∩ [p_lo,
/// p]| for segments starting at x_k = pmin + k·w. prices [K], $/MWh.
double offer_cost(const OfferUnit& u, std::span<const double> prices, double p_lo, double p);

}  // namespace pz::market
