// DC network model: PTDF (MATPOWER makeBdc/makePTDF) and DC power flow (MATPOWER rundcpf).
#include "powerzoo/grid/dc/dc.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/linalg/dense_lu.hpp"

namespace pz::grid {

namespace {

constexpr double kDegToRad = std::numbers::pi / 180.0;

/// Series susceptance status/(x·tap) of every branch (0 for out-of-service and for a branch with
/// an end of type 4, which MATPOWER's ext2int removes with the bus), p.u.
std::vector<double> branch_susceptance(const Case& c) {
  std::vector<double> b(c.branch.size(), 0.0);
  for (size_t l = 0; l < c.branch.size(); ++l) {
    const Branch& br = c.branch[l];
    if (br.status <= 0 || c.bus[c.branch_from_idx[l]].type == 4 ||
        c.bus[c.branch_to_idx[l]].type == 4)
      continue;
    const double d = br.x_pu * br.effective_tap();
    if (d == 0.0 || !std::isfinite(d)) {
      throw core::ConfigError("case '" + c.name + "': expected nonzero reactance on branch " +
                              std::to_string(l + 1) + " (" + std::to_string(br.from) + "-" +
                              std::to_string(br.to) + "), found x = " + std::to_string(br.x_pu));
    }
    b[l] = 1.0 / d;
  }
  return b;
}

/// Dense nodal susceptance matrix Bbus = Aᵀ diag(b) A, row-major [n_bus x n_bus].
std::vector<double> make_bbus(const Case& c, const std::vector<double>& b) {
  const size_t nb = c.bus.size();
  std::vector<double> B(nb * nb, 0.0);
  for (size_t l = 0; l < c.branch.size(); ++l) {
    if (b[l] == 0.0) continue;
    const size_t f = c.branch_from_idx[l], t = c.branch_to_idx[l];
    B[f * nb + f] += b[l];
    B[t * nb + t] += b[l];
    B[f * nb + t] -= b[l];
    B[t * nb + f] -= b[l];
  }
  return B;
}

/// Connected-component label of every bus over the branches with b != 0.
std::vector<int> components(const Case& c, const std::vector<double>& b) {
  std::vector<int> parent(c.bus.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t l = 0; l < c.branch.size(); ++l) {
    if (b[l] == 0.0) continue;
    const int f = find(c.branch_from_idx[l]), t = find(c.branch_to_idx[l]);
    if (f != t) parent[f] = t;
  }
  std::vector<int> comp(c.bus.size());
  for (size_t k = 0; k < comp.size(); ++k) comp[k] = find(static_cast<int>(k));
  return comp;
}

void check_indices(const Case& c) {
  if (c.gen_bus_idx.size() != c.gen.size() || c.branch_from_idx.size() != c.branch.size() ||
      c.branch_to_idx.size() != c.branch.size()) {
    throw core::ConfigError("case '" + c.name +
                            "': expected derived index vectors, found none (call finalize())");
  }
}

}  // namespace

std::vector<double> make_ptdf(const Case& c, int slack_idx) {
  check_indices(c);
  const int nb = c.n_bus(), nl = c.n_branch();
  if (slack_idx < 0 || slack_idx >= nb) {
    throw core::ConfigError("make_ptdf: expected slack bus index in 0.." + std::to_string(nb - 1) +
                            ", found " + std::to_string(slack_idx));
  }
  const std::vector<double> b = branch_susceptance(c);
  const std::vector<int> comp = components(c, b);
  if (c.bus[slack_idx].type == 4)
    throw core::ConfigError("case '" + c.name + "': expected the slack bus " +
                            std::to_string(c.bus[slack_idx].id) + " energized, found type 4");
  for (int k = 0; k < nb; ++k) {
    if (c.bus[k].type != 4 && comp[k] != comp[slack_idx]) {
      throw core::ConfigError("case '" + c.name + "': expected a connected network, found bus " +
                              std::to_string(c.bus[k].id) + " islanded from slack bus " +
                              std::to_string(c.bus[slack_idx].id) + " (in-service branches only)");
    }
  }
  const std::vector<double> B = make_bbus(c, b);
  // Reduced B without the slack row/column and the type-4 buses (out of the network, their
  // columns zero); position map bus -> reduced index (-1 for those).
  std::vector<int> red(nb, -1);
  int m = 0;
  for (int k = 0; k < nb; ++k) {
    if (k != slack_idx && c.bus[k].type != 4) red[k] = m++;
  }
  std::vector<double> Br(static_cast<size_t>(m) * m);
  for (int i = 0; i < nb; ++i) {
    if (red[i] < 0) continue;
    for (int j = 0; j < nb; ++j) {
      if (red[j] >= 0)
        Br[static_cast<size_t>(red[i]) * m + red[j]] = B[static_cast<size_t>(i) * nb + j];
    }
  }
  const DenseLu lu(std::move(Br), m);
  if (!lu.ok()) {
    throw core::ConfigError("case '" + c.name +
                            "': expected a nonsingular reduced B matrix, found a singular one "
                            "(islanded network)");
  }
  // X = Bred^-1, column by column (X is symmetric; store column j as row j).
  std::vector<double> X(static_cast<size_t>(m) * m, 0.0);
  for (int j = 0; j < m; ++j) {
    double* col = &X[static_cast<size_t>(j) * m];
    col[j] = 1.0;
    lu.solve(col);
  }
  std::vector<double> ptdf(static_cast<size_t>(nl) * nb, 0.0);
  for (int l = 0; l < nl; ++l) {
    if (b[l] == 0.0) continue;
    const int f = red[c.branch_from_idx[l]], t = red[c.branch_to_idx[l]];
    double* row = &ptdf[static_cast<size_t>(l) * nb];
    for (int k = 0; k < nb; ++k) {
      const int j = red[k];
      if (j < 0) continue;
      const double* xj = &X[static_cast<size_t>(j) * m];  // column j of X
      const double xf = f >= 0 ? xj[f] : 0.0, xt = t >= 0 ? xj[t] : 0.0;
      row[k] = b[l] * (xf - xt);
    }
  }
  return ptdf;
}

DcPfResult run_dcpf(const Case& in) {
  check_indices(in);
  // The energized reading (grid/case/energized): bus types per island as MATPOWER's bustypes, an
  // island without an in-service gen de-energized (type 4), what touches a type-4 bus out of
  // service.
  std::vector<int> dead;
  const Case c = energize(in, &dead);
  const int nb = c.n_bus(), nl = c.n_branch(), ng = c.n_gen();
  DcPfResult res;
  res.bus_va_deg.resize(nb);
  for (int k = 0; k < nb; ++k) res.bus_va_deg[k] = c.bus[k].va_deg;
  res.branch_pf_mw.assign(nl, 0.0);
  res.gen_pg_mw.assign(ng, 0.0);
  for (int g = 0; g < ng; ++g) res.gen_pg_mw[g] = c.gen[g].status > 0 ? c.gen[g].pg_mw : 0.0;
  res.dead_buses = std::move(dead);
  std::vector<int> refs;  // one REF bus per energized island (or more, as the case gives them)
  for (int k = 0; k < nb; ++k)
    if (c.bus[k].type == 3) refs.push_back(k);
  // Without any reference nothing balances the load (the reference bus of an off gen used to
  // export the whole load with exit 0).
  if (refs.empty()) {
    res.message = "case '" + c.name +
                  "': expected an in-service gen at a reference bus (type 3) or at a PV bus "
                  "(type 2) to balance the load, found none";
    return res;
  }
  std::vector<char> is_ref(nb, 0);
  for (int k : refs) is_ref[k] = 1;

  std::vector<double> b;
  try {
    b = branch_susceptance(c);
  } catch (const core::ConfigError& e) {
    res.message = e.what();
    return res;  // zero reactance: no solution (success = false)
  }
  const std::vector<double> B = make_bbus(c, b);

  // Phase-shifter injections (p.u.): Pfinj = b·(−shift), Pbusinj = Cf·Pfinj − Ct·Pfinj.
  std::vector<double> pfinj(nl, 0.0), pbus(nb, 0.0);
  for (int l = 0; l < nl; ++l) {
    pfinj[l] = b[l] * (-c.branch[l].shift_deg * kDegToRad);
    pbus[c.branch_from_idx[l]] -= pfinj[l];
    pbus[c.branch_to_idx[l]] += pfinj[l];
  }
  for (int g = 0; g < ng; ++g) {
    if (c.gen[g].status > 0) pbus[c.gen_bus_idx[g]] += c.gen[g].pg_mw / c.base_mva;
  }
  for (int k = 0; k < nb; ++k)
    if (c.bus[k].type != 4) pbus[k] -= (c.bus[k].pd_mw + c.bus[k].gs_mw) / c.base_mva;

  std::vector<double> theta(nb);
  for (int k = 0; k < nb; ++k) theta[k] = c.bus[k].va_deg * kDegToRad;

  // Unknown angles: every non-reference, non-isolated bus.
  std::vector<int> pvpq;
  for (int k = 0; k < nb; ++k) {
    if (!is_ref[k] && c.bus[k].type != 4) pvpq.push_back(k);
  }
  const int m = static_cast<int>(pvpq.size());
  if (m > 0) {
    std::vector<double> Br(static_cast<size_t>(m) * m);
    std::vector<double> rhs(m);
    for (int i = 0; i < m; ++i) {
      const double* Bi = &B[static_cast<size_t>(pvpq[i]) * nb];
      for (int j = 0; j < m; ++j) Br[static_cast<size_t>(i) * m + j] = Bi[pvpq[j]];
      double r = pbus[pvpq[i]];
      for (int k : refs) r -= Bi[k] * theta[k];
      rhs[i] = r;
    }
    const DenseLu lu(std::move(Br), m);
    if (!lu.ok()) return res;
    lu.solve(rhs.data());
    for (int i = 0; i < m; ++i) theta[pvpq[i]] = rhs[i];
  }
  for (double t : theta) {
    if (!std::isfinite(t)) return res;
  }

  for (int l = 0; l < nl; ++l) {
    if (b[l] == 0.0) continue;
    const double dth = theta[c.branch_from_idx[l]] - theta[c.branch_to_idx[l]];
    res.branch_pf_mw[l] = (b[l] * dth + pfinj[l]) * c.base_mva;
  }
  // Slack generator: the first in-service gen at each reference bus takes the mismatch.
  for (int k : refs) {
    int refgen = -1;
    for (int g = 0; g < ng; ++g) {
      if (c.gen[g].status > 0 && c.gen_bus_idx[g] == k) {
        refgen = g;
        break;
      }
    }
    if (refgen < 0) continue;
    const double* Bk = &B[static_cast<size_t>(k) * nb];
    double inj = 0;
    for (int j = 0; j < nb; ++j) inj += Bk[j] * theta[j];
    res.gen_pg_mw[refgen] += (inj - pbus[k]) * c.base_mva;
  }
  for (int k = 0; k < nb; ++k) res.bus_va_deg[k] = theta[k] * 180.0 / std::numbers::pi;
  res.success = true;
  return res;
}

}  // namespace pz::grid
