// Radial AC power flow by backward/forward sweep on squared voltages (DistFlow).
//
// Branch model (MATPOWER): an ideal transformer τ·e^{jφ} at the from end, then a π section with
// series impedance z = r + jx and charging b/2 at both of its ends. Let w' be the squared voltage
// at the two ends of the π section (w_from/τ² at the from end, w_to at the to end). For a branch
// with sending end s and receiving end j, and S_j the total demand seen at bus j (its load and
// shunt plus everything fed downstream of it):
//   out  = S_j − j·(b/2)·w'_j                              (power leaving the series element)
//   in   = out + z·|out|²/w'_j                             (series loss from the receiving current)
//   S_s += in − j·(b/2)·w'_s                               (injection into the branch at s)
//   w'_j = w'_s − 2(r P_in + x Q_in) + (r²+x²)(P_in²+Q_in²)/w'_s
// The first three are the backward sweep (leaves to root, with the current voltages), the last the
// forward sweep. At the fixed point these are exactly the AC power-flow equations of the tree.
#include "powerzoo/grid/dist/distflow.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numbers>
#include <stdexcept>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/dist/feeder.hpp"

namespace pz::grid {

namespace {

std::string branch_name(const Case& c, int k) {
  return "branch " + std::to_string(k + 1) + " (from " + std::to_string(c.branch[k].from) + " to " +
         std::to_string(c.branch[k].to) + ")";
}

}  // namespace

RadialNetwork::RadialNetwork(const Case& raw) {
  using core::ConfigError;
  if (!(raw.base_mva > 0) || !std::isfinite(raw.base_mva))
    throw ConfigError(feeder_label(raw) + ": expected baseMVA > 0, found " +
                      std::to_string(raw.base_mva));
  // The feeder as every reader of the file sees it (grid/dist/feeder): the substation is the
  // root, buses cut off from it are de-energized and their branches out of service.
  const Feeder fd = read_feeder(raw);
  const Case& c = fd.c;
  const int nb = c.n_bus();
  const int nl = c.n_branch();
  base_mva_ = c.base_mva;
  ref_ = fd.root;
  live_ = fd.live;

  from_.assign(nl, -1);
  to_.assign(nl, -1);
  r_.assign(nl, 0);
  x_.assign(nl, 0);
  b_.assign(nl, 0);
  tap_.assign(nl, 1);
  shift_deg_.assign(nl, 0);
  active_.assign(nl, 0);
  std::vector<std::vector<int>> incident(nb);
  for (int k = 0; k < nl; ++k) {
    const Branch& br = c.branch[k];
    from_[k] = c.branch_from_idx[k];
    to_[k] = c.branch_to_idx[k];
    r_[k] = br.r_pu;
    x_[k] = br.x_pu;
    b_[k] = br.b_pu;
    tap_[k] = br.effective_tap();
    shift_deg_[k] = br.shift_deg;
    active_[k] = br.status > 0 ? 1 : 0;  // energize set every branch touching a dead bus to 0
    if (!active_[k]) continue;
    incident[from_[k]].push_back(k);
    if (to_[k] != from_[k]) incident[to_[k]].push_back(k);
  }

  gs_.assign(nb, 0);
  bs_.assign(nb, 0);
  for (int i = 0; i < nb; ++i) {
    gs_[i] = c.bus[i].gs_mw / base_mva_;
    bs_[i] = c.bus[i].bs_mvar / base_mva_;
  }

  // Loop detection in branch-row order (union-find): the first in-service branch whose ends are
  // already connected by earlier in-service rows is the one that closes a loop.
  {
    std::vector<int> root(nb);
    for (int i = 0; i < nb; ++i) root[i] = i;
    auto find = [&](int a) {
      while (root[a] != a) {
        root[a] = root[root[a]];
        a = root[a];
      }
      return a;
    };
    for (int k = 0; k < nl; ++k) {
      if (!active_[k]) continue;
      const int a = find(from_[k]), b = find(to_[k]);
      if (a == b)
        throw ConfigError(feeder_label(raw) + ": " + branch_name(c, k) +
                          " closes a loop; a radial network is required (open it, e.g. set its "
                          "status to 0)");
      root[a] = b;
    }
  }

  // Breadth-first search from the substation; neighbours in branch-row order (incident lists
  // are built in row order). The graph is a forest here, so no branch reaches a visited bus.
  parent_.assign(nb, -1);
  parent_branch_.assign(nb, -1);
  send_.assign(nl, -1);
  recv_.assign(nl, -1);
  order_.clear();
  order_.reserve(nb);
  std::vector<char> seen(nb, 0);
  std::deque<int> queue{ref_};
  seen[ref_] = 1;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    order_.push_back(u);
    for (int k : incident[u]) {
      if (k == parent_branch_[u]) continue;
      const int v = from_[k] == u ? to_[k] : from_[k];
      seen[v] = 1;
      parent_[v] = u;
      parent_branch_[v] = k;
      send_[k] = u;
      recv_[k] = v;
      queue.push_back(v);
    }
  }
  // read_feeder made the energized buses exactly the substation's island.
  for (int i = 0; i < nb; ++i)
    if (static_cast<bool>(seen[i]) != static_cast<bool>(live_[i]))
      throw std::logic_error("RadialNetwork: the tree disagrees with the feeder's live buses");
  edges_.clear();
  for (size_t idx = 1; idx < order_.size(); ++idx) {
    const int j = order_[idx], k = parent_branch_[j];
    const double tap = tap_[k];
    edges_.push_back(Edge{j, parent_[j], k, r_[k], x_[k], r_[k] * r_[k] + x_[k] * x_[k],
                          0.5 * b_[k], tap, tap * tap, j == from_[k], parent_[j] == from_[k]});
  }
}

DistFlowResult RadialNetwork::solve(const std::vector<double>& p_mw,
                                    const std::vector<double>& q_mvar, double v_slack_pu,
                                    double tol, int max_iter, double va_slack_deg) const {
  DistFlowWorkspace ws;
  DistFlowResult res;
  solve_into(p_mw, q_mvar, v_slack_pu, tol, max_iter, va_slack_deg, true, ws, res);
  return res;
}

void RadialNetwork::solve_into(std::span<const double> p_mw, std::span<const double> q_mvar,
                               double v_slack_pu, double tol, int max_iter, double va_slack_deg,
                               bool want_angles, DistFlowWorkspace& work,
                               DistFlowResult& res) const {
  const int nb = n_bus();
  const int nl = n_branch();
  res.iterations = 0;
  res.converged = false;
  res.total_losses_mw = 0;
  const double v_fill = std::isfinite(v_slack_pu) ? v_slack_pu : 0.0;
  // Only a call that returns before the sweeps leaves these defaults; write_result overwrites
  // every entry otherwise (a reused result then costs no fill).
  auto defaults = [&] {
    res.bus_vm_pu.assign(nb, v_fill);
    res.bus_va_deg.assign(nb, va_slack_deg);
    for (auto* v : {&res.branch_pf_mw, &res.branch_qf_mvar, &res.branch_pt_mw, &res.branch_qt_mvar})
      v->assign(nl, 0.0);
  };
  bool ok_input = static_cast<int>(p_mw.size()) == nb && static_cast<int>(q_mvar.size()) == nb &&
                  v_slack_pu > 0 && std::isfinite(v_slack_pu) && std::isfinite(va_slack_deg);
  for (int i = 0; ok_input && i < nb; ++i)
    ok_input = std::isfinite(p_mw[i]) && std::isfinite(q_mvar[i]);
  if (!ok_input) {
    defaults();
    return;
  }
  if (static_cast<int>(res.bus_vm_pu.size()) != nb ||
      static_cast<int>(res.branch_pf_mw.size()) != nl)
    defaults();
  if (!want_angles) std::fill(res.bus_va_deg.begin(), res.bus_va_deg.end(), va_slack_deg);
  std::vector<double>& p = work.p;
  std::vector<double>& q = work.q;
  p.resize(nb);
  q.resize(nb);
  for (int i = 0; i < nb; ++i) {
    p[i] = p_mw[i] / base_mva_;
    q[i] = q_mvar[i] / base_mva_;
  }

  const double w0 = v_slack_pu * v_slack_pu;
  std::vector<double>& w = work.w;
  w.assign(nb, w0);
  std::vector<double>&sp = work.sp, &sq = work.sq;  // demand seen at each bus
  sp.resize(nb);
  sq.resize(nb);
  // Indexed by branch row; every in-service row is written by the first backward sweep.
  std::vector<double>&pin = work.pin, &qin = work.qin, &pout = work.pout, &qout = work.qout;
  if (static_cast<int>(pin.size()) != nl) {
    pin.assign(nl, 0);
    qin.assign(nl, 0);
    pout.assign(nl, 0);
    qout.assign(nl, 0);
  }
  // The tree edges in BFS order (edges_[idx − 1] is bus order_[idx] and its parent branch): one
  // contiguous record each, so a sweep reads no index chains. π-section end voltage² of the
  // edge's ends: behind the transformer (÷ tap²) at the branch's from end.
  auto w_recv = [](const Edge& e, const std::vector<double>& wv) {
    return e.recv_is_from ? wv[e.recv] / e.tap2 : wv[e.recv];
  };
  auto w_send = [](const Edge& e, const std::vector<double>& wv) {
    return e.send_is_from ? wv[e.send] / e.tap2 : wv[e.send];
  };

  // Backward sweep with voltages w: fills sp/sq, pin/qin, pout/qout. False on non-finite values.
  auto backward = [&]() {
    for (int i = 0; i < nb; ++i) {
      sp[i] = p[i] + gs_[i] * w[i];
      sq[i] = q[i] - bs_[i] * w[i];
    }
    for (int idx = static_cast<int>(edges_.size()) - 1; idx >= 0; --idx) {
      const Edge& e = edges_[idx];
      const int j = e.recv, s = e.send, k = e.branch;
      const double wr = w_recv(e, w);
      const double ws = w_send(e, w);
      const double po = sp[j];
      const double qo = sq[j] - e.half_b * wr;
      const double i2 = (po * po + qo * qo) / wr;
      pout[k] = po;
      qout[k] = qo;
      pin[k] = po + e.r * i2;
      qin[k] = qo + e.x * i2;
      sp[s] += pin[k];
      sq[s] += qin[k] - e.half_b * ws;
      if (!std::isfinite(pin[k]) || !std::isfinite(qin[k])) return false;
    }
    return true;
  };

  // Forward sweep: new voltages from w and the branch flows; returns max |Δw| (NaN on collapse).
  std::vector<double>& wn = work.wn;
  wn.assign(nb, w0);
  auto forward = [&]() {
    wn[ref_] = w0;
    double dmax = 0;
    for (const Edge& e : edges_) {
      const int j = e.recv, k = e.branch;
      const double ws = w_send(e, wn);
      const double wr = ws - 2.0 * (e.r * pin[k] + e.x * qin[k]) +
                        e.z2 * (pin[k] * pin[k] + qin[k] * qin[k]) / ws;
      if (!(wr > 0) || !std::isfinite(wr)) return std::nan("");
      wn[j] = e.recv_is_from ? wr * e.tap * e.tap : wr;
      dmax = std::max(dmax, std::abs(wn[j] - w[j]));
    }
    return dmax;
  };

  bool ok = true;
  int it = 0;
  bool conv = false;
  while (it < max_iter) {
    if (!backward()) {
      ok = false;
      break;
    }
    const double d = forward();
    ++it;
    if (std::isnan(d)) {
      ok = false;
      break;
    }
    w.swap(wn);
    if (d < tol) {
      conv = true;
      break;
    }
  }
  res.iterations = it;
  // Branch flows consistent with the final voltages.
  if (ok && !backward()) ok = false;
  // The sweep can settle on a solution of the branch equations that no network operates at: a
  // load far beyond the feeder's transfer limit gave |V| = 645 p.u. behind a phase reversal. On
  // the physical side every branch's angle difference is below 90°, i.e.
  // Re(V_s V_r*) = w_s − (r P_in + x Q_in) > 0.
  for (size_t idx = 0; ok && conv && idx < edges_.size(); ++idx) {
    const Edge& e = edges_[idx];
    if (!(w_send(e, w) - (e.r * pin[e.branch] + e.x * qin[e.branch]) > 0)) ok = false;
  }
  res.converged = ok && conv;

  if (want_angles) res.bus_va_deg[ref_] = va_slack_deg;
  write_result(work, want_angles, res);
}

// Voltages, angles (if wanted), branch end flows and losses of the converged sweep in `work`.
void RadialNetwork::write_result(const DistFlowWorkspace& work, bool want_angles,
                                 DistFlowResult& res) const {
  const int nb = n_bus();
  const int nl = n_branch();
  const std::vector<double>&w = work.w, &sp = work.sp, &sq = work.sq;
  const std::vector<double>&pin = work.pin, &qin = work.qin, &pout = work.pout;
  auto wend = [&](int k, int i) { return i == from_[k] ? w[i] / (tap_[k] * tap_[k]) : w[i]; };
  const double deg = 180.0 / std::numbers::pi;
  // A de-energized bus has no voltage (0, as grid acpf reports it).
  for (int i = 0; i < nb; ++i) res.bus_vm_pu[i] = live_[i] ? std::sqrt(std::max(w[i], 0.0)) : 0.0;
  for (int i = 0; i < nb; ++i)
    if (!live_[i]) res.bus_va_deg[i] = 0.0;
  // Angles: V'_j·conj(V'_s) = w'_s − (r P_in + x Q_in) − j(x P_in − r Q_in) across the series
  // element; the from end's internal angle is θ_from − shift.
  for (size_t idx = 1; want_angles && idx < order_.size(); ++idx) {
    const int j = order_[idx];
    const int k = parent_branch_[j];
    const int s = parent_[j];
    const double ws = wend(k, s);
    const double d =
        std::atan2(-(x_[k] * pin[k] - r_[k] * qin[k]), ws - (r_[k] * pin[k] + x_[k] * qin[k])) *
        deg;
    const double th_s = res.bus_va_deg[s] - (s == from_[k] ? shift_deg_[k] : 0.0);
    res.bus_va_deg[j] = th_s + d + (j == from_[k] ? shift_deg_[k] : 0.0);
  }
  double loss = 0;
  for (int k = 0; k < nl; ++k) {
    if (!active_[k]) {
      res.branch_pf_mw[k] = res.branch_qf_mvar[k] = res.branch_pt_mw[k] = res.branch_qt_mvar[k] = 0;
      continue;
    }
    const int s = send_[k];
    const int j = recv_[k];
    const double ps = pin[k] * base_mva_;
    const double qs = (qin[k] - 0.5 * b_[k] * wend(k, s)) * base_mva_;
    const double pr = -sp[j] * base_mva_;
    const double qr = -sq[j] * base_mva_;
    if (s == from_[k]) {
      res.branch_pf_mw[k] = ps;
      res.branch_qf_mvar[k] = qs;
      res.branch_pt_mw[k] = pr;
      res.branch_qt_mvar[k] = qr;
    } else {
      res.branch_pf_mw[k] = pr;
      res.branch_qf_mvar[k] = qr;
      res.branch_pt_mw[k] = ps;
      res.branch_qt_mvar[k] = qs;
    }
    loss += (pin[k] - pout[k]) * base_mva_;
  }
  res.total_losses_mw = loss;
}

DistFlowResult solve_case(const Case& raw, double tol, int max_iter) {
  const RadialNetwork net(raw);
  const Feeder fd = read_feeder(raw);  // gens on de-energized buses are out of service here
  const Case& c = fd.c;
  const int nb = c.n_bus();
  std::vector<double> p(nb), q(nb);
  for (int i = 0; i < nb; ++i) {
    p[i] = c.bus[i].pd_mw;
    q[i] = c.bus[i].qd_mvar;
  }
  const int ref = net.ref_bus();
  double v_slack = c.bus[ref].vm_pu;
  bool have_ref_gen = false;
  for (int g = 0; g < c.n_gen(); ++g) {
    if (c.gen[g].status <= 0) continue;
    const int b = c.gen_bus_idx[g];
    if (b == ref) {
      if (!have_ref_gen) v_slack = c.gen[g].vg_pu;
      have_ref_gen = true;
    } else {
      p[b] -= c.gen[g].pg_mw;
      q[b] -= c.gen[g].qg_mvar;
    }
  }
  return net.solve(p, q, v_slack, tol, max_iter, c.bus[ref].va_deg);
}

}  // namespace pz::grid
