// Line outage distribution factors (see lodf.hpp for the formula and its sources).
#include "powerzoo/grid/dc/lodf.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/linalg/dense_lu.hpp"

namespace pz::grid {

namespace {

/// Buses reached from `start` over the in-service branches (on[l]) without branch `skip`.
std::vector<int> reach(const Case& c, const std::vector<std::vector<int>>& adj,
                       const std::vector<char>& on, int start, int skip) {
  std::vector<char> seen(c.bus.size(), 0);
  std::vector<int> queue{start};
  seen[start] = 1;
  for (size_t q = 0; q < queue.size(); ++q)
    for (int l : adj[queue[q]]) {
      if (l == skip || !on[l]) continue;
      const int o = c.branch_from_idx[l] == queue[q] ? c.branch_to_idx[l] : c.branch_from_idx[l];
      if (seen[o]) continue;
      seen[o] = 1;
      queue.push_back(o);
    }
  std::sort(queue.begin(), queue.end());
  return queue;
}

}  // namespace

Lodf::Lodf(const Case& c) : n_branch_(c.n_branch()) {
  const int nb = c.n_bus(), nl = c.n_branch();
  on_.assign(nl, 0);
  bridge_.assign(nl, 0);
  cut_.assign(nl, {});
  std::vector<double> b(nl, 0.0);
  std::vector<std::vector<int>> adj(nb);
  for (int l = 0; l < nl; ++l) {
    const Branch& br = c.branch[l];
    const int f = c.branch_from_idx[l], t = c.branch_to_idx[l];
    if (br.status <= 0 || c.bus[f].type == 4 || c.bus[t].type == 4) continue;
    const double d = br.x_pu * br.effective_tap();
    if (d == 0.0 || !std::isfinite(d))
      throw core::ConfigError("case '" + c.name + "': expected nonzero reactance on branch " +
                              std::to_string(l + 1) + ", found x = " + std::to_string(br.x_pu));
    on_[l] = 1;
    b[l] = 1.0 / d;
    adj[f].push_back(l);
    adj[t].push_back(l);
  }
  // X = B_red⁻¹ over the buses that are neither a reference (type 3, one per energized island)
  // nor de-energized; rows and columns of the others are zero (their angles are fixed).
  std::vector<int> red(nb, -1);
  int m = 0;
  for (int k = 0; k < nb; ++k)
    if (c.bus[k].type != 3 && c.bus[k].type != 4) red[k] = m++;
  std::vector<double> B(static_cast<size_t>(m) * m, 0.0);
  for (int l = 0; l < nl; ++l) {
    if (!on_[l]) continue;
    const int f = red[c.branch_from_idx[l]], t = red[c.branch_to_idx[l]];
    if (f >= 0) B[static_cast<size_t>(f) * m + f] += b[l];
    if (t >= 0) B[static_cast<size_t>(t) * m + t] += b[l];
    if (f >= 0 && t >= 0) {
      B[static_cast<size_t>(f) * m + t] -= b[l];
      B[static_cast<size_t>(t) * m + f] -= b[l];
    }
  }
  std::vector<double> X(static_cast<size_t>(m) * m, 0.0);
  if (m > 0) {
    const DenseLu lu(std::move(B), m);
    if (!lu.ok())
      throw core::ConfigError("case '" + c.name +
                              "': expected a nonsingular reduced B matrix (one reference bus per "
                              "energized island), found a singular one");
    for (int j = 0; j < m; ++j) {
      double* col = &X[static_cast<size_t>(j) * m];
      col[j] = 1.0;
      lu.solve(col);
    }
  }
  auto x = [&](int i, int j) {  // X over full bus indices (0 for fixed-angle buses)
    const int ri = red[i], rj = red[j];
    return ri < 0 || rj < 0 ? 0.0 : X[static_cast<size_t>(rj) * m + ri];
  };
  // Bridges: an in-service branch whose ends are no longer connected without it.
  for (int k = 0; k < nl; ++k) {
    if (!on_[k]) continue;
    const int f = c.branch_from_idx[k], t = c.branch_to_idx[k];
    std::vector<int> side_f = reach(c, adj, on_, f, k);
    if (std::binary_search(side_f.begin(), side_f.end(), t)) continue;
    bridge_[k] = 1;
    std::vector<int> side_t = reach(c, adj, on_, t, k);
    const bool ref_on_f =
        std::any_of(side_f.begin(), side_f.end(), [&](int q) { return c.bus[q].type == 3; });
    cut_[k] = ref_on_f ? std::move(side_t) : std::move(side_f);
  }
  m_.assign(static_cast<size_t>(nl) * nl, 0.0);
  std::vector<double> h(nl);
  for (int k = 0; k < nl; ++k) {
    if (!on_[k] || bridge_[k]) continue;
    const int fk = c.branch_from_idx[k], tk = c.branch_to_idx[k];
    for (int l = 0; l < nl; ++l) {
      if (!on_[l]) {
        h[l] = 0.0;
        continue;
      }
      const int fl = c.branch_from_idx[l], tl = c.branch_to_idx[l];
      h[l] = b[l] * ((x(fl, fk) - x(fl, tk)) - (x(tl, fk) - x(tl, tk)));
    }
    const double denom = 1.0 - h[k];
    double* col = &m_[static_cast<size_t>(k) * nl];
    for (int l = 0; l < nl; ++l) col[l] = h[l] / denom;
    col[k] = -1.0;
  }
}

}  // namespace pz::grid
