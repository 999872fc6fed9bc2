// DistGrid implementation (reference envs-grid.md §8.3) on the exact radial power flow.
#include "powerzoo/envs/dist_grid.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/episode.hpp"

namespace pz::envs {
namespace {
constexpr double kUnlimited = 1e6;  // reference sentinel for rate_a = 0
}  // namespace

DistGrid::DistGrid(DistGridParams p)
    : p_(std::move(p)), net_(p_.grid_case), flex_(p_.flexloads, p_.dt_hours) {
  const grid::Case& c = p_.grid_case;
  const int nb = c.n_bus();
  if (p_.bus_p_mw.empty()) {
    for (const auto& b : c.bus) {
      p_.bus_p_mw.push_back(b.pd_mw);
      p_.bus_q_mvar.push_back(b.qd_mvar);
    }
  }
  if (static_cast<int>(p_.bus_p_mw.size()) != nb || static_cast<int>(p_.bus_q_mvar.size()) != nb)
    throw core::ConfigError("DistGrid: bus loads must have one entry per bus");
  if (p_.bus_shape.empty()) p_.bus_shape.assign(nb, -1);
  if (static_cast<int>(p_.bus_shape.size()) != nb)
    throw core::ConfigError("DistGrid: bus_shape must have one entry per bus");
  for (int s : p_.bus_shape)
    if (s >= static_cast<int>(p_.shapes.size()))
      throw core::ConfigError("DistGrid: bus_shape refers to a missing shape");
  if (!p_.shapes.empty()) {
    if (p_.episode_starts.empty())
      throw core::ConfigError("DistGrid: load shapes need at least one episode start");
    for (const auto& sh : p_.shapes)
      for (int64_t st : p_.episode_starts)
        if (st < 0 || st + p_.horizon > static_cast<int64_t>(sh.size()))
          throw core::ConfigError("DistGrid: an episode window runs past the end of a shape");
  }
  if (p_.horizon < 1) throw core::ConfigError("DistGrid: expected horizon >= 1");
  if (!(p_.v_min < p_.v_max)) throw core::ConfigError("DistGrid: expected v_min < v_max");
  for (const auto& d : p_.flexloads)
    if (d.bus < 0 || d.bus >= nb)
      throw core::ConfigError("DistGrid: FlexLoad bus position " + std::to_string(d.bus) +
                              " outside the case");
  if (p_.include_der && net_.ref_bus() != 0)
    throw core::ConfigError("DistGrid: the DER action expects the slack at bus position 0");
  for (int k = 0; k < c.n_branch(); ++k) {
    if (c.branch[k].status <= 0) continue;
    lines_.push_back(k);
    cap_.push_back(c.branch[k].rate_a_mva > 0 ? c.branch[k].rate_a_mva : kUnlimited);
  }
  double sp = 0, sq = 0;
  for (const auto& b : c.bus) {
    sp += b.pd_mw;
    sq += b.qd_mvar;
  }
  p_ref_ = std::max(sp, 1e-8 * c.base_mva);
  q_ref_ = std::max(sq, 1e-8 * c.base_mva);

  const int nl = n_lines();
  const int n_der = p_.include_der ? nb - 1 : 0;
  spec_.id = "dist_grid";
  spec_.obs_dim = 3 * nb + 2 * nl + 2 + flex_.obs_dim();
  spec_.act_dim = n_der + flex_.action_dim();
  spec_.obs_fields = tile_obs_fields({{"bus_voltage", nb},
                                      {"line_p", nl},
                                      {"line_q", nl},
                                      {"bus_p_load", nb},
                                      {"bus_q_load", nb},
                                      {"time_of_day", 2},
                                      {"flexload", flex_.obs_dim()}});
  spec_.act_low.assign(spec_.act_dim, -1.0f);
  spec_.act_high.assign(spec_.act_dim, 1.0f);
  spec_.cost_names = {"voltage_violation", "thermal_overload", "resource"};
  spec_.horizon = p_.horizon;
  spec_.dt_hours = p_.dt_hours;
  spec_.episode_sum_names = {"total_loss_mwh", "total_curtailed_mwh", "total_shifted_mwh"};
  spec_.reference_action.assign(spec_.act_dim, 0.0f);  // no-control
  spec_.reduction_names = {"network_loss_reduction_pct", "", ""};
}

std::unique_ptr<State> DistGrid::make_state() const {
  auto s = std::make_unique<GridState>();
  s->v.assign(n_bus(), 1.0);
  s->p_line_mw.assign(n_lines(), 0.0);
  s->q_line_mvar.assign(n_lines(), 0.0);
  s->flex = flex_.make_state();
  return s;
}

void DistGrid::bus_load(int64_t k, std::vector<double>& p_mw, std::vector<double>& q_mvar) const {
  const int nb = n_bus();
  p_mw.resize(nb);
  q_mvar.resize(nb);
  for (int b = 0; b < nb; ++b) {
    const int sh = p_.bus_shape[b];
    const double f = sh >= 0 ? p_.shapes[sh][static_cast<size_t>(k)] : 1.0;
    p_mw[b] = p_.bus_p_mw[b] * f;
    q_mvar[b] = p_.bus_q_mvar[b] * f;
  }
}

// Exact radial AC power flow; on success stores voltages, sending-end flows and losses.
bool DistGrid::solve(GridState& s, const std::vector<double>& p,
                     const std::vector<double>& q) const {
  const grid::DistFlowResult r = net_.solve(p, q, p_.v_slack, p_.solver_tol, p_.solver_max_iter);
  bool ok = r.converged && std::isfinite(r.total_losses_mw);
  for (double v : r.bus_vm_pu) ok = ok && std::isfinite(v);
  if (!ok) return false;
  s.v = r.bus_vm_pu;
  for (int i = 0; i < n_lines(); ++i) {
    const int k = lines_[i];
    const bool fwd = net_.from_is_sending(k);
    s.p_line_mw[i] = fwd ? r.branch_pf_mw[k] : r.branch_pt_mw[k];
    s.q_line_mvar[i] = fwd ? r.branch_qf_mvar[k] : r.branch_qt_mvar[k];
  }
  s.loss_mw = r.total_losses_mw;
  return true;
}

void DistGrid::observe(const GridState& s, std::span<float> obs) const {
  thread_local std::vector<double> pl, ql;
  bus_load(s.start + std::min(s.t, p_.horizon - 1), pl, ql);
  size_t k = 0;
  const int nb = n_bus();
  for (int b = 0; b < nb; ++b) obs[k++] = static_cast<float>((s.v[b] - 1.0) / 0.1);
  for (int i = 0; i < n_lines(); ++i) obs[k++] = static_cast<float>(s.p_line_mw[i] / p_ref_);
  for (int i = 0; i < n_lines(); ++i) obs[k++] = static_cast<float>(s.q_line_mvar[i] / q_ref_);
  for (int b = 0; b < nb; ++b) obs[k++] = static_cast<float>(pl[b] / p_ref_);
  for (int b = 0; b < nb; ++b) obs[k++] = static_cast<float>(ql[b] / q_ref_);
  time_of_day_features(s.t, p_.dt_hours, &obs[k]);
  k += 2;
  flex_.observe(s.flex, obs.subspan(k, flex_.obs_dim()));
}

void DistGrid::reset(State& st, core::Rng& rng, std::span<float> obs,
                     const ResetOptions& opt) const {
  auto& s = static_cast<GridState&>(st);
  s.t = 0;
  s.start = choose_episode_start(p_.episode_starts, rng, opt);
  flex_.reset(s.flex);
  thread_local std::vector<double> pl, ql;
  bus_load(s.start, pl, ql);
  if (!solve(s, pl, ql)) {  // keep a finite observation even for an unsolvable first load
    s.v.assign(n_bus(), 1.0);
    s.p_line_mw.assign(n_lines(), 0.0);
    s.q_line_mvar.assign(n_lines(), 0.0);
    s.loss_mw = 0;
  }
  observe(s, obs);
}

Step DistGrid::step(State& st, std::span<const float> action, core::Rng&, std::span<float> obs,
                    std::span<float> costs, Info* info) const {
  auto& s = static_cast<GridState&>(st);
  const int nb = n_bus();
  thread_local std::vector<double> pl, ql;
  thread_local std::vector<double> inj;
  bus_load(s.start + std::min(s.t, p_.horizon - 1), pl, ql);
  int off = 0;
  if (p_.include_der) {
    const double mid = 0.5 * (p_.der_low_mw + p_.der_high_mw);
    const double half = 0.5 * (p_.der_high_mw - p_.der_low_mw);
    for (int b = 1; b < nb; ++b) {
      const double a0 = action[b - 1];
      const double a = std::isfinite(a0) ? std::clamp(a0, -1.0, 1.0) : 0.0;
      pl[b] -= mid + a * half;
    }
    off = nb - 1;
  }
  inj.assign(flex_.n_devices(), 0.0);
  const devices::FlexLoadStep fs = flex_.step(s.flex, action.subspan(off, flex_.action_dim()), inj);
  for (int d = 0; d < flex_.n_devices(); ++d) pl[p_.flexloads[d].bus] -= inj[d];

  const bool ok = solve(s, pl, ql);
  int n_v = 0, n_th = 0;
  double loss = s.loss_mw;
  if (ok) {
    for (double v : s.v) n_v += (v < p_.v_min || v > p_.v_max);
    for (int i = 0; i < n_lines(); ++i)
      n_th += std::hypot(s.p_line_mw[i], s.q_line_mvar[i]) > cap_[i];
  } else {
    // No operating point: count every bus as out of band and charge the total demand as loss
    // (a solver failure must never look better than a solved step). State keeps the last solve.
    n_v = nb;
    loss = 0;
    for (int b = 1; b < nb; ++b) loss += std::abs(pl[b]);
    if (!std::isfinite(loss)) loss = 0;
  }
  s.t += 1;
  costs[0] = static_cast<float>(n_v);
  costs[1] = static_cast<float>(n_th);
  costs[2] = static_cast<float>(fs.cost);
  observe(s, obs);
  Step out;
  out.reward = static_cast<float>(-p_.loss_penalty_weight * loss);
  out.truncated = s.t >= p_.horizon;
  out.terminated = !ok;
  if (info) {
    info->gen_cost = 0;
    info->n_violations = n_v + n_th;
    info->is_safe = ok && n_v + n_th == 0;
    info->status = ok ? StepStatus::kOk : StepStatus::kSolverFailed;
    info->sums[0] = loss * p_.dt_hours;
    info->sums[1] = fs.curtailed_mw * p_.dt_hours;
    info->sums[2] = fs.shift_out_mw * p_.dt_hours;
  }
  return out;
}

void DistGrid::save_state(const State& st, std::vector<double>& out) const {
  const auto& s = static_cast<const GridState&>(st);
  save_clock(s.t, s.start, out);
  out.push_back(s.loss_mw);
  out.insert(out.end(), s.v.begin(), s.v.end());
  out.insert(out.end(), s.p_line_mw.begin(), s.p_line_mw.end());
  out.insert(out.end(), s.q_line_mvar.begin(), s.q_line_mvar.end());
  const auto& f = s.flex;
  out.insert(out.end(), f.buf.begin(), f.buf.end());
  for (int x : f.head) out.push_back(x);
  for (int x : f.size) out.push_back(x);
  out.insert(out.end(), f.curtailed.begin(), f.curtailed.end());
  out.insert(out.end(), f.shift_out.begin(), f.shift_out.end());
  out.insert(out.end(), f.shift_in.begin(), f.shift_in.end());
}

size_t DistGrid::load_state(State& st, std::span<const double> in) const {
  auto& s = static_cast<GridState&>(st);
  const size_t nb = static_cast<size_t>(n_bus()), nl = static_cast<size_t>(n_lines());
  const size_t nd = static_cast<size_t>(flex_.n_devices());
  const size_t n = 3 + nb + 2 * nl + nd * devices::FlexLoadState::kSlots + 5 * nd;
  if (in.size() < n)
    throw core::ConfigError("checkpoint: dist_grid state has " + std::to_string(in.size()) +
                            " values, expected " + std::to_string(n));
  size_t k = 0;
  load_clock(in.subspan(k), s.t, s.start);
  k += 2;
  s.loss_mw = in[k++];
  auto take = [&](std::vector<double>& v, size_t m) {
    v.assign(in.begin() + k, in.begin() + k + m);
    k += m;
  };
  take(s.v, nb);
  take(s.p_line_mw, nl);
  take(s.q_line_mvar, nl);
  auto& f = s.flex;
  take(f.buf, nd * devices::FlexLoadState::kSlots);
  f.head.resize(nd);
  f.size.resize(nd);
  for (size_t d = 0; d < nd; ++d) f.head[d] = static_cast<int>(in[k++]);
  for (size_t d = 0; d < nd; ++d) f.size[d] = static_cast<int>(in[k++]);
  take(f.curtailed, nd);
  take(f.shift_out, nd);
  take(f.shift_in, nd);
  return k;
}

}  // namespace pz::envs
