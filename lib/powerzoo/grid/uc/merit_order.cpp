// MeritOrder: continuous-knapsack economic dispatch and its PTDF screen against the ratings.
#include "powerzoo/grid/uc/merit_order.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/dc/column_axpy.hpp"

namespace pz::grid {

const char* to_string(MeritOrderStatus s) {
  switch (s) {
    case MeritOrderStatus::kOptimal:
      return "optimal";
    case MeritOrderStatus::kNeedsOpf:
      return "needs_opf";
    case MeritOrderStatus::kUnusable:
      return "unusable";
  }
  return "unusable";
}

MeritOrder::MeritOrder(const PtdfFlow& ptdf, std::vector<int> unit_bus,
                       std::vector<double> base_load, std::vector<double> rating, double voll)
    : unit_bus_(std::move(unit_bus)), rating_(std::move(rating)), voll_(voll) {
  if (static_cast<int>(base_load.size()) != ptdf.n_bus() || n_branch() != ptdf.n_branch())
    throw core::ConfigError("MeritOrder: expected " + std::to_string(ptdf.n_bus()) +
                            " bus loads and " + std::to_string(ptdf.n_branch()) +
                            " ratings, found " + std::to_string(base_load.size()) + " and " +
                            std::to_string(rating_.size()));
  for (int b : unit_bus_)
    if (b < 0 || b >= ptdf.n_bus())
      throw core::ConfigError("MeritOrder: unit bus index " + std::to_string(b) + " outside 0.." +
                              std::to_string(ptdf.n_bus() - 1));
  // Unit-major copy ([n_units x n_branch]): the flows are one vectorizable axpy per unit.
  const std::vector<double> rows = ptdf.columns(unit_bus_);
  const size_t nu = unit_bus_.size(), nl = static_cast<size_t>(ptdf.n_branch());
  ptdf_unit_.resize(nu * nl);
  for (size_t l = 0; l < nl; ++l)
    for (size_t u = 0; u < nu; ++u) ptdf_unit_[u * nl + l] = rows[l * nu + u];
  flow_base_.assign(ptdf.n_branch(), 0.0);
  ptdf.flows(base_load, flow_base_);
  for (double v : base_load) sum_base_ += v;
}

void lodf_update(std::vector<double>& g, std::vector<double>& flow_base, int n_units, int n_branch,
                 int k, const double* lodf_col) {
  const size_t nl = static_cast<size_t>(n_branch);
  for (int u = 0; u < n_units; ++u) {
    double* gu = &g[u * nl];
    const double a = gu[k];
    for (size_t l = 0; l < nl; ++l) gu[l] += lodf_col[l] * a;
    gu[k] = 0.0;
  }
  const double fk = flow_base[k];
  for (size_t l = 0; l < nl; ++l) flow_base[l] += lodf_col[l] * fk;
  flow_base[k] = 0.0;
}

MeritOrder::MeritOrder(const MeritOrder& intact, int k, const double* lodf_col)
    : MeritOrder(intact) {
  lodf_update(ptdf_unit_, flow_base_, n_units(), n_branch(), k, lodf_col);
}

MeritOrderStatus MeritOrder::solve(double load_factor, std::span<const double> lo,
                                   std::span<const double> hi, std::span<const double> cost,
                                   MeritOrderResult& out) const {
  const int nu = n_units();
  out.status = MeritOrderStatus::kUnusable;
  for (int u = 0; u < nu; ++u) {
    if (!(std::abs(cost[u]) < voll_)) return out.status;
  }
  thread_local std::vector<int> order;
  order.resize(nu);
  std::vector<double>& p = out.p_mw;
  p.resize(nu);
  double rest = sum_base_ * load_factor;  // load not yet served
  // Only units with headroom are sorted: for the others (off, or pinned at hi) the raise below
  // adds min(max(hi − p, 0), rest) = 0 exactly, so leaving them out changes no bit and halves the
  // sort when half the units are off. (NaN headroom stays in, as before; a unit pinned at −0.0
  // is no longer turned into +0.0 by the zero raise, and no caller has negative bounds.)
  int n_up = 0;
  for (int u = 0; u < nu; ++u) {
    p[u] = std::min(lo[u], hi[u]);  // an inverted window is pinned to hi
    rest -= p[u];
    if (!(hi[u] - p[u] <= 0.0)) order[n_up++] = u;
  }
  std::sort(order.begin(), order.begin() + n_up,
            [&](int a, int b) { return cost[a] < cost[b] || (cost[a] == cost[b] && a < b); });
  // Σ floors above the load: spill (every unit stays at its floor). Otherwise raise units in
  // merit order; what the ceilings cannot reach is unserved.
  for (int k = 0; k < n_up && rest > 0; ++k) {
    const int u = order[k];
    const double add = std::min(std::max(hi[u] - p[u], 0.0), rest);
    p[u] += add;
    rest -= add;
  }
  out.slack_mw = rest;
  const int nl = n_branch();
  out.flow_mw.resize(nl);
  double* flow = out.flow_mw.data();
  for (int l = 0; l < nl; ++l) flow[l] = -load_factor * flow_base_[l];
  add_columns(ptdf_unit_.data(), static_cast<size_t>(nl), p.data(), nu, flow, nl);
  bool within = true;
  for (int l = 0; l < nl; ++l) within = within && std::abs(flow[l]) <= rating_[l];
  double obj = voll_ * std::abs(rest);
  for (int u = 0; u < nu; ++u) obj += cost[u] * p[u];
  out.cost_usd_per_h = obj;
  out.status = within ? MeritOrderStatus::kOptimal : MeritOrderStatus::kNeedsOpf;
  return out.status;
}

}  // namespace pz::grid
