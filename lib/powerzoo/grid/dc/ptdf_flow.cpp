// PtdfFlow: dense PTDF · injection products in a fixed summation order.
#include "powerzoo/grid/dc/ptdf_flow.hpp"

#include <algorithm>

#include "powerzoo/grid/dc/dc.hpp"

namespace pz::grid {

PtdfFlow::PtdfFlow(const Case& c, int slack_idx)
    : n_bus_(c.n_bus()),
      n_branch_(c.n_branch()),
      slack_(slack_idx),
      ptdf_(make_ptdf(c, slack_idx)) {}

double PtdfFlow::branch_flow(int l, const double* inj_mw, double offset_mw) const {
  const double* r = row(l);
  double s = offset_mw;
  for (int b = 0; b < n_bus_; ++b) s += r[b] * inj_mw[b];
  return s;
}

void PtdfFlow::flows(std::span<const double> inj_mw, std::span<double> flow_mw) const {
  for (int l = 0; l < n_branch_; ++l) {
    const double* r = row(l);
    double f = 0;
    for (int b = 0; b < n_bus_; ++b) f += r[b] * inj_mw[b];
    flow_mw[l] = f;
  }
}

void PtdfFlow::add_row(int l, double y, std::span<double> out) const {
  const double* r = row(l);
  for (int b = 0; b < n_bus_; ++b) out[b] += y * r[b];
}

void PtdfFlow::assign_outage(const PtdfFlow& base, int k, const double* lodf_col) {
  n_bus_ = base.n_bus_;
  n_branch_ = base.n_branch_;
  slack_ = base.slack_;
  ptdf_.resize(base.ptdf_.size());
  const double* rk = base.row(k);
  for (int l = 0; l < n_branch_; ++l) {
    const double* src = base.row(l);
    double* dst = &ptdf_[static_cast<size_t>(l) * n_bus_];
    const double f = lodf_col[l];
    if (l == k) {
      std::fill(dst, dst + n_bus_, 0.0);
    } else if (f == 0.0) {
      std::copy(src, src + n_bus_, dst);
    } else {
      for (int b = 0; b < n_bus_; ++b) dst[b] = src[b] + f * rk[b];
    }
  }
}

std::vector<double> PtdfFlow::columns(std::span<const int> bus_idx) const {
  const size_t n = bus_idx.size();
  std::vector<double> m(static_cast<size_t>(n_branch_) * n, 0.0);
  for (int l = 0; l < n_branch_; ++l) {
    const double* r = row(l);
    for (size_t j = 0; j < n; ++j) m[static_cast<size_t>(l) * n + j] = r[bus_idx[j]];
  }
  return m;
}

void PtdfFlow::unit_flows(std::span<const int> unit_bus, std::span<const double> slack_share,
                          std::span<const double> load_mw, std::span<double> p_mw,
                          std::span<double> flow_mw) const {
  const size_t nu = p_mw.size();
  double gen = 0, dem = 0;
  for (double v : p_mw) gen += v;
  for (double v : load_mw) dem += v;
  thread_local std::vector<double> inj;
  inj.assign(n_bus_, 0.0);
  for (size_t u = 0; u < nu; ++u) inj[unit_bus[u]] += p_mw[u];
  for (int b = 0; b < n_bus_; ++b) inj[b] -= load_mw[b];
  for (size_t u = 0; u < nu; ++u) p_mw[u] += (dem - gen) * slack_share[u];
  flows(inj, flow_mw);
}

}  // namespace pz::grid
