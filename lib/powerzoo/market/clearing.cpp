// Offer-based clearing: OfferLp first; on grid::DcOpf (offer prices and ramp windows as per-solve
// overrides) for what it leaves.
#include "powerzoo/market/clearing.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"

namespace pz::market {

OfferMarket::OfferMarket(const grid::Case& c, std::vector<OfferUnit> units, int k)
    : case_(c), units_(std::move(units)), k_(k) {
  if (k < 1 || k > 64)
    throw core::ConfigError("market: expected 1..64 offer segments, found " + std::to_string(k));
  std::vector<char> seen(case_.gen.size(), 0);
  for (const OfferUnit& u : units_) {
    if (u.gen_row < 0 || u.gen_row >= case_.n_gen())
      throw core::ConfigError("market: unit gen row " + std::to_string(u.gen_row + 1) +
                              " is outside case '" + case_.name + "' (" +
                              std::to_string(case_.n_gen()) + " gens)");
    if (seen[u.gen_row]++)
      throw core::ConfigError("market: gen row " + std::to_string(u.gen_row + 1) + " offers twice");
    if (u.in_service && !(u.pmax_mw > u.pmin_mw))
      throw core::ConfigError("market: expected pmax > pmin for gen row " +
                              std::to_string(u.gen_row + 1));
  }
  for (int g = 0; g < case_.n_gen(); ++g) {
    // The offer prices are matched to model-1 gens in row order: another PWL gen would shift them.
    if (!seen[g] && case_.gen[g].status > 0 && case_.gencost.size() > static_cast<size_t>(g) &&
        case_.gencost[g].model == 1)
      throw core::ConfigError("market: gen row " + std::to_string(g + 1) + " of case '" +
                              case_.name + "' has a piecewise-linear cost but offers nothing");
  }
  base_ = truthful_prices(units_, k_);
  if (case_.gencost.size() < case_.gen.size()) case_.gencost.resize(case_.gen.size());
  for (size_t u = 0; u < units_.size(); ++u) {
    const OfferUnit& un = units_[u];
    grid::Gen& g = case_.gen[un.gen_row];
    // An out-of-service unit stays a model-1 column (the offer prices are matched to those in
    // row order) with bounds 0; its curve spans a nominal [0, 1] MW so its segments have width.
    g.status = 1;
    g.pmin_mw = un.in_service ? un.pmin_mw : 0.0;
    g.pmax_mw = un.in_service ? un.pmax_mw : 0.0;
    grid::GenCost& gc = case_.gencost[un.gen_row];
    gc.model = 1;
    gc.coeffs.clear();
    const double x0 = un.in_service ? un.pmin_mw : 0.0;
    const double w = un.in_service ? (un.pmax_mw - un.pmin_mw) / k_ : 1.0 / k_;
    double y = 0;
    for (int s = 0; s <= k_; ++s) {
      gc.coeffs.push_back(x0 + s * w);
      gc.coeffs.push_back(y);
      if (s < k_) y += base_[u * k_ + s] * w;
    }
  }
  case_.finalize();
}

Clearing::Clearing(const OfferMarket& m, bool lazy_opf) : m_(&m), lp_(m) {
  if (!lazy_opf) opf_.emplace(m.offer_case());
  const int nu = m.n_units();
  o_.balance_slack_cost = kVoll;
  o_.pmin_mw.resize(m.offer_case().n_gen());
  o_.pmax_mw.resize(m.offer_case().n_gen());
  for (int g = 0; g < m.offer_case().n_gen(); ++g) {
    o_.pmin_mw[g] = m.offer_case().gen[g].pmin_mw;
    o_.pmax_mw[g] = m.offer_case().gen[g].pmax_mw;
  }
  o_.pwl_prices.resize(static_cast<size_t>(nu) * m.segments());
  pd_.resize(m.offer_case().n_bus());
}

void ramp_window(const std::vector<OfferUnit>& units, std::span<const double> p_prev,
                 std::span<const double> ramp_up, std::span<const double> ramp_down,
                 std::span<double> lo, std::span<double> hi) {
  for (size_t u = 0; u < units.size(); ++u) {
    lo[u] = std::max(units[u].pmin_mw, p_prev[u] - ramp_down[u]);
    hi[u] = std::min(units[u].pmax_mw, p_prev[u] + ramp_up[u]);
  }
}

namespace {

// The last resort when CLP fails outright: each unit's window clip of a pmax-weighted load share.
void pinned_dispatch(const OfferMarket& m, double load, ClearingResult& out) {
  double cap = 0;
  for (const OfferUnit& u : m.units()) cap += u.pmax_mw;
  for (int u = 0; u < m.n_units(); ++u) {
    const double share = cap > 0 ? load * m.units()[u].pmax_mw / cap : 0.0;
    out.p_mw[u] = std::clamp(share, out.window_lo_mw[u], out.window_hi_mw[u]);
  }
  std::fill(out.lmp.begin(), out.lmp.end(), 0.0);
  std::fill(out.flow_mw.begin(), out.flow_mw.end(), 0.0);
}

}  // namespace

void Clearing::clear(std::span<const double> bus_pd_mw, std::span<const double> prices,
                     std::span<const double> lo, std::span<const double> hi, ClearingResult& out) {
  const OfferMarket& m = *m_;
  const int nu = m.n_units(), k = m.segments();
  const grid::Case& c = m.offer_case();
  out.p_mw.resize(nu);
  out.window_lo_mw.resize(nu);
  out.window_hi_mw.resize(nu);
  out.lmp.assign(c.n_bus(), 0.0);
  out.flow_mw.assign(c.n_branch(), 0.0);
  double load = 0;
  for (size_t b = 0; b < pd_.size(); ++b) load += (pd_[b] = bus_pd_mw[b]);
  for (int u = 0; u < nu; ++u) {
    const OfferUnit& un = m.units()[u];
    const double l = !un.in_service ? 0.0 : lo.empty() ? un.pmin_mw : lo[u];
    const double h = !un.in_service ? 0.0 : hi.empty() ? un.pmax_mw : hi[u];
    out.window_lo_mw[u] = std::min(l, h);  // an inverted window pins to hi (DcOpf's rule)
    out.window_hi_mw[u] = h;
    o_.pmin_mw[un.gen_row] = l;
    o_.pmax_mw[un.gen_row] = h;
  }
  if (fast_ && lp_.solve(bus_pd_mw, prices, out)) {
    ++n_fast_;
    out.lines_relaxed = false;
  } else if (fast_ && lp_.ratings_unmet() && lp_.solve(bus_pd_mw, prices, out, false)) {
    ++n_fast_;  // clear_clp's second solve, without line limits, on the fast path
    out.lines_relaxed = true;
  } else {
    ++n_clp_;
    clear_clp(prices, load, out);
  }
  out.feasible = out.status == grid::DcOpfStatus::kOptimal && !out.lines_relaxed &&
                 std::abs(out.unserved_mw) <= 1e-6;
  out.offer_cost = out.true_cost = 0;
  for (int u = 0; u < nu; ++u) {
    const OfferUnit& un = m.units()[u];
    out.offer_cost += offer_cost(un, prices.subspan(static_cast<size_t>(u) * k, k),
                                 out.window_lo_mw[u], out.p_mw[u]);
    out.true_cost += un.total_cost(out.p_mw[u]);
  }
}

void Clearing::clear_clp(std::span<const double> prices, double load, ClearingResult& out) {
  const OfferMarket& m = *m_;
  const int nu = m.n_units(), k = m.segments();
  // Model-1 gens are the units, in gen-row order (OfferMarket's check).
  thread_local std::vector<int> order;
  order.resize(nu);
  for (int u = 0; u < nu; ++u) order[u] = u;
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return m.units()[a].gen_row < m.units()[b].gen_row; });
  for (int j = 0; j < nu; ++j) {
    const int u = order[j];
    for (int s = 0; s < k; ++s) o_.pwl_prices[j * k + s] = prices[u * k + s];
  }
  o_.line_limits = true;
  if (!opf_) opf_.emplace(m.offer_case());  // lazy_opf: the case was checked by its builder
  opf_->solve_into(pd_, o_, r_);
  out.lines_relaxed = false;
  if (!r_.ok()) {  // the ratings cannot be met even with shedding at the slack bus
    o_.line_limits = false;
    opf_->solve_into(pd_, o_, r_);
    out.lines_relaxed = true;
  }
  out.status = r_.status;
  out.unserved_mw = r_.ok() ? r_.balance_slack_mw : 0.0;
  if (r_.ok()) {
    for (int u = 0; u < nu; ++u) out.p_mw[u] = r_.gen_pg_mw[m.units()[u].gen_row];
    out.lmp = r_.bus_lam_p;
    out.flow_mw = r_.branch_pf_mw;
  } else {
    pinned_dispatch(m, load, out);
  }
}

}  // namespace pz::market
