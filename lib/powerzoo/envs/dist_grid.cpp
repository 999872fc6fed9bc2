// DistGrid implementation (PowerZooJax powerzoojax/envs/grid/dist.py) on the exact radial power
// flow, with Battery, Renewable and FlexLoad bundles injecting P and Q at their buses.
#include "powerzoo/envs/dist_grid.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/network_view.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/grid/dist/feeder.hpp"

namespace pz::envs {
namespace {
constexpr double kUnlimited = 1e6;  // reference sentinel for rate_a = 0

void check_bus(int bus, int nb, const std::string& what, const std::vector<char>& live) {
  if (bus < 0 || bus >= nb)
    throw core::ConfigError("DistGrid: " + what + " bus position " + std::to_string(bus) +
                            " outside the case (0.." + std::to_string(nb - 1) + ")");
  // A device on a bus cut off from the substation would act on nothing.
  if (!live[bus])
    throw core::ConfigError("DistGrid: " + what + " at bus position " + std::to_string(bus) +
                            " is on a de-energized bus (type 4, or cut off from the substation); "
                            "its actions would have no effect");
}

// The params with the case as the feeder is energized (grid/dist/feeder, the reading of
// `powerzoo grid distflow`): buses cut off from the substation type 4, their gens and branches out.
DistGridParams energized(DistGridParams p) {
  p.grid_case = grid::read_feeder(p.grid_case).c;
  return p;
}

void check_windows(const std::vector<std::vector<double>>& shapes,
                   const std::vector<int64_t>& starts, int horizon, const std::string& what) {
  for (const auto& sh : shapes)
    for (int64_t st : starts)
      if (st < 0 || st + horizon > static_cast<int64_t>(sh.size()))
        throw core::ConfigError("DistGrid: an episode window runs past the end of a " + what);
}
}  // namespace

DistGrid::DistGrid(DistGridParams p)
    : p_(energized(std::move(p))),
      net_(p_.grid_case),
      bat_(p_.batteries, p_.dt_hours, p_.battery_q_control),
      ren_(p_.renewables, p_.dt_hours, p_.renewable_curtailment, p_.renewable_q_control),
      flex_(p_.flexloads, p_.dt_hours) {
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
  if (p_.horizon < 1) throw core::ConfigError("DistGrid: expected horizon >= 1");
  if (!p_.shapes.empty() || !p_.cf_shapes.empty()) {
    if (p_.episode_starts.empty())
      throw core::ConfigError("DistGrid: profiles need at least one episode start");
    for (const auto* starts : {&p_.episode_starts, &p_.train_starts}) {
      check_windows(p_.shapes, *starts, p_.horizon, "load shape");
      check_windows(p_.cf_shapes, *starts, p_.horizon, "capacity-factor shape");
    }
  }
  if (!(p_.v_min < p_.v_max)) throw core::ConfigError("DistGrid: expected v_min < v_max");
  for (const auto& d : p_.flexloads) check_bus(d.bus, nb, "FlexLoad", net_.live());
  for (const auto& d : p_.batteries) check_bus(d.bus, nb, "battery", net_.live());
  for (const auto& d : p_.renewables) check_bus(d.bus, nb, "renewable", net_.live());
  if (!p_.renewables.empty()) {
    if (p_.cf_shapes.empty())
      throw core::ConfigError("DistGrid: renewables need at least one capacity-factor shape");
    if (p_.renewable_shape.empty()) p_.renewable_shape.assign(p_.renewables.size(), 0);
    if (p_.renewable_shape.size() != p_.renewables.size())
      throw core::ConfigError("DistGrid: renewable_shape must have one entry per renewable");
    for (int s : p_.renewable_shape)
      if (s < 0 || s >= static_cast<int>(p_.cf_shapes.size()))
        throw core::ConfigError("DistGrid: renewable_shape refers to a missing shape");
  }
  if (p_.include_der && net_.ref_bus() != 0)
    throw core::ConfigError("DistGrid: the DER action expects the slack at bus position 0");
  // Gens in service at energized buses other than the substation: fixed PQ injections (PG, QG),
  // as grid::solve_case sets them.
  for (int g = 0; g < c.n_gen(); ++g) {
    const int b = c.gen_bus_idx[g];
    if (c.gen[g].status <= 0 || b == net_.ref_bus()) continue;
    gen_bus_.push_back(b);
    gen_p_mw_.push_back(c.gen[g].pg_mw);
    gen_q_mvar_.push_back(c.gen[g].qg_mvar);
  }
  for (int k = 0; k < c.n_branch(); ++k) {
    if (c.branch[k].status <= 0) continue;
    lines_.push_back(k);
    cap_.push_back(c.branch[k].rate_a_mva > 0 ? c.branch[k].rate_a_mva : kUnlimited);
    line_fwd_.push_back(net_.from_is_sending(k) ? 1 : 0);
  }
  double sp = 0, sq = 0;
  for (const auto& b : c.bus) {
    sp += b.pd_mw;
    sq += b.qd_mvar;
  }
  p_ref_ = std::max(sp, 1e-8 * c.base_mva);
  q_ref_ = std::max(sq, 1e-8 * c.base_mva);

  forecast_ = Forecast(p_.forecast);
  const int nl = n_lines();
  n_der_ = p_.include_der ? nb - 1 : 0;
  spec_.id = "dist_grid";
  spec_.obs_dim = 3 * nb + 2 * nl + 2 + bat_.obs_dim() + ren_.obs_dim() + flex_.obs_dim();
  spec_.act_dim = n_der_ + bat_.action_dim() + ren_.action_dim() + flex_.action_dim();
  std::vector<std::pair<std::string, int>> fields = {{"bus_voltage", nb}, {"line_p", nl},
                                                     {"line_q", nl},      {"bus_p_load", nb},
                                                     {"bus_q_load", nb},  {"time_of_day", 2}};
  if (bat_.n_devices() > 0) fields.emplace_back("battery", bat_.obs_dim());
  if (ren_.n_devices() > 0) fields.emplace_back("renewable", ren_.obs_dim());
  fields.emplace_back("flexload", flex_.obs_dim());
  spec_.obs_fields = tile_obs_fields(fields);
  spec_.act_low.assign(spec_.act_dim, -1.0f);
  spec_.act_high.assign(spec_.act_dim, 1.0f);
  spec_.cost_names = {"voltage_violation", "thermal_overload", "resource"};
  spec_.horizon = p_.horizon;
  spec_.dt_hours = p_.dt_hours;
  spec_.episode_sum_names = {"total_loss_mwh", "total_curtailed_mwh", "total_shifted_mwh"};
  spec_.reference_action.assign(spec_.act_dim, 0.0f);  // no-control
  spec_.reduction_names = {"network_loss_reduction_pct", "", ""};
  spec_.network = network_view(p_.grid_case, lines_);
  spec_.trace_vectors = {
      {"bus_vm_pu", nb}, {"bus_net_load_mw", nb}, {"branch_p_mw", nl}, {"branch_q_mvar", nl}};
  auto add = [this](const char* name, int n) {
    if (n > 0) spec_.trace_vectors.push_back({name, n});
  };
  add("battery_soc_frac", bat_.n_devices());
  add("battery_p_mw", bat_.n_devices());
  add("battery_q_mvar", bat_.n_devices());
  add("renewable_p_mw", ren_.n_devices());
  add("renewable_q_mvar", ren_.n_devices());
  add("renewable_curtail_frac", ren_.n_devices());
  add("flexload_curtailed_mw", flex_.n_devices());
  add("flexload_shift_out_mw", flex_.n_devices());
  setup_outages();
  // After branch_status, so every field of the env without forecasts keeps its offset.
  if (forecast_.horizon() > 0) {
    const int h = forecast_.horizon();
    spec_.obs_fields.push_back({"load_forecast", {spec_.obs_dim, h}});
    spec_.obs_dim += h;
    if (ren_.n_devices() > 0) {
      spec_.obs_fields.push_back({"pv_forecast", {spec_.obs_dim, h}});
      spec_.obs_dim += h;
    }
  }
}

void DistGrid::write_trace(const State& st, std::span<float> out) const {
  const auto& s = static_cast<const GridState&>(st);
  const std::vector<const std::vector<double>*> parts = {&s.v,
                                                         &s.pl,
                                                         &s.p_line_mw,
                                                         &s.q_line_mvar,
                                                         &s.battery.soc,
                                                         &s.battery.p_mw,
                                                         &s.battery.q_mvar,
                                                         &s.renewable.p_mw,
                                                         &s.renewable.q_mvar,
                                                         &s.renewable.curtail_frac,
                                                         &s.flex.curtailed,
                                                         &s.flex.shift_out};
  // trace_vectors lists the bundles' entries only for present devices; parts in the same order.
  const std::vector<int> sizes = {n_bus(),          n_bus(),           n_lines(),
                                  n_lines(),        bat_.n_devices(),  bat_.n_devices(),
                                  bat_.n_devices(), ren_.n_devices(),  ren_.n_devices(),
                                  ren_.n_devices(), flex_.n_devices(), flex_.n_devices()};
  int o = 0;
  for (size_t i = 0; i < parts.size(); ++i)
    if (sizes[i] > 0) o = put_trace(out, o, *parts[i], sizes[i]);
  if (outages_.tracks_branches())
    for (int k : lines_) out[o++] = s.out.solved_branch_on[k];
}

std::unique_ptr<State> DistGrid::make_state() const {
  auto s = std::make_unique<GridState>();
  s->v.assign(n_bus(), 1.0);
  s->p_line_mw.assign(n_lines(), 0.0);
  s->q_line_mvar.assign(n_lines(), 0.0);
  s->battery = bat_.make_state();
  s->renewable = ren_.make_state();
  s->flex = flex_.make_state();
  outages_.make_state(s->out);
  s->live = net_.live();
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

void DistGrid::net_load(int64_t k, std::vector<double>& p_mw, std::vector<double>& q_mvar) const {
  bus_load(k, p_mw, q_mvar);
  for (size_t g = 0; g < gen_bus_.size(); ++g) {
    p_mw[gen_bus_[g]] -= gen_p_mw_[g];
    q_mvar[gen_bus_[g]] -= gen_q_mvar_[g];
  }
}

void DistGrid::capacity_factors(int64_t k, std::vector<double>& cf) const {
  cf.resize(p_.renewables.size());
  for (size_t d = 0; d < cf.size(); ++d)
    cf[d] = p_.cf_shapes[p_.renewable_shape[d]][static_cast<size_t>(k)];
}

// Exact radial AC power flow of the net loads in s.pl / s.ql; on success stores voltages,
// sending-end flows and losses.
bool DistGrid::solve(GridState& s, const grid::RadialNetwork& net) const {
  grid::DistFlowResult& r = s.flow;
  net.solve_into(s.pl, s.ql, p_.v_slack, p_.solver_tol, p_.solver_max_iter, 0.0, false, s.work, r);
  bool ok = r.converged && std::isfinite(r.total_losses_mw);
  for (double v : r.bus_vm_pu) ok = ok && std::isfinite(v);
  if (!ok) return false;
  std::copy(r.bus_vm_pu.begin(), r.bus_vm_pu.end(), s.v.begin());
  for (int i = 0; i < n_lines(); ++i) {
    const int k = lines_[i];
    s.p_line_mw[i] = line_fwd_[i] ? r.branch_pf_mw[k] : r.branch_pt_mw[k];
    s.q_line_mvar[i] = line_fwd_[i] ? r.branch_qf_mvar[k] : r.branch_qt_mvar[k];
  }
  s.loss_mw = r.total_losses_mw;
  return true;
}

void DistGrid::write_forecasts(GridState& s, std::span<float> out) const {
  const int h = forecast_.horizon();
  if (h == 0) return;
  thread_local std::vector<double> fc, pl, ql, cf;
  fc.resize(static_cast<size_t>(h));
  for (int k = 1; k <= h; ++k) {
    bus_load(s.start + std::min(s.t + k, p_.horizon - 1), pl, ql);
    double tot = 0;
    for (double x : pl) tot += x;
    fc[k - 1] = tot / p_ref_;
  }
  forecast_.apply(fc, s.forecast, fc);
  for (int k = 0; k < h; ++k) out[k] = static_cast<float>(fc[k]);
  if (ren_.n_devices() == 0) return;
  for (int k = 1; k <= h; ++k) {
    capacity_factors(s.start + std::min(s.t + k, p_.horizon - 1), cf);
    double avail = 0;
    for (size_t d = 0; d < cf.size(); ++d) avail += p_.renewables[d].cap_mw * cf[d];
    fc[k - 1] = avail / p_ref_;
  }
  forecast_.apply(fc, s.forecast, fc);
  for (int k = 0; k < h; ++k) out[h + k] = static_cast<float>(fc[k]);
}

void DistGrid::observe(GridState& s, std::span<float> obs) const {
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
  bat_.observe(s.battery, obs.subspan(k, bat_.obs_dim()));
  k += bat_.obs_dim();
  ren_.observe(s.renewable, obs.subspan(k, ren_.obs_dim()));
  k += ren_.obs_dim();
  flex_.observe(s.flex, obs.subspan(k, flex_.obs_dim()));
  k += flex_.obs_dim();
  if (outages_.observes_branches())
    for (int line : lines_) obs[k++] = s.out.branch_on[line];
  write_forecasts(s, obs.subspan(k, forecast_obs_dim()));
}

void DistGrid::reset_state(GridState& s, core::Rng& rng, const ResetOptions& opt) const {
  s.t = 0;
  const bool train_draw = opt.episode < 0 && !p_.train_starts.empty();
  s.start = choose_episode_start(train_draw ? p_.train_starts : p_.episode_starts, rng, opt);
  forecast_.begin_episode(s.forecast, rng, s.start);  // does not advance rng
  bat_.reset(s.battery);
  if (ren_.n_devices() > 0) capacity_factors(s.start, s.cf);
  ren_.reset(s.renewable, s.cf);
  flex_.reset(s.flex);
  outages_.reset(s.out, rng);  // draws nothing when no outages are configured
  const grid::RadialNetwork& net = energize(s);
  net_load(s.start, s.pl, s.ql);
  if (!solve(s, net)) {  // keep a finite observation even for an unsolvable first load
    for (int b = 0; b < n_bus(); ++b) s.v[b] = s.live[b] ? 1.0 : 0.0;
    std::fill(s.p_line_mw.begin(), s.p_line_mw.end(), 0.0);
    std::fill(s.q_line_mvar.begin(), s.q_line_mvar.end(), 0.0);
    s.loss_mw = 0;
  }
}

void DistGrid::reset(State& st, core::Rng& rng, std::span<float> obs,
                     const ResetOptions& opt) const {
  auto& s = static_cast<GridState&>(st);
  reset_state(s, rng, opt);
  observe(s, obs);
}

DistGridOutcome DistGrid::advance(GridState& s, std::span<const float> action_in,
                                  std::span<float> costs, core::Rng& rng) const {
  const int nb = n_bus();
  const int64_t k = s.start + std::min(s.t, p_.horizon - 1);
  const grid::RadialNetwork& net = energize(s);
  const std::span<const float> action = idle_dead_devices(s, action_in);
  net_load(k, s.pl, s.ql);
  if (p_.include_der) {
    const double mid = 0.5 * (p_.der_low_mw + p_.der_high_mw);
    const double half = 0.5 * (p_.der_high_mw - p_.der_low_mw);
    for (int b = 1; b < nb; ++b) {
      const double a0 = action[b - 1];
      const double a = std::isfinite(a0) ? std::clamp(a0, -1.0, 1.0) : 0.0;
      s.pl[b] -= mid + a * half;
    }
  }
  DistGridOutcome out;
  const size_t nmax = std::max({p_.batteries.size(), p_.renewables.size(), p_.flexloads.size()});
  s.inj_p.resize(nmax);
  s.inj_q.resize(nmax);
  const int nbat = bat_.n_devices(), nren = ren_.n_devices(), nflex = flex_.n_devices();
  if (nbat > 0) {
    std::span<double> ip(s.inj_p.data(), nbat), iq(s.inj_q.data(), nbat);
    std::fill(iq.begin(), iq.end(), 0.0);
    out.battery =
        bat_.step(s.battery, action.subspan(battery_act_offset(), bat_.action_dim()), ip, iq);
    for (int d = 0; d < nbat; ++d) {
      s.pl[p_.batteries[d].bus] -= ip[d];
      s.ql[p_.batteries[d].bus] -= iq[d];
    }
  }
  if (nren > 0) {
    capacity_factors(k, s.cf);
    std::span<double> ip(s.inj_p.data(), nren), iq(s.inj_q.data(), nren);
    std::fill(iq.begin(), iq.end(), 0.0);
    out.renewable = ren_.step(
        s.renewable, action.subspan(renewable_act_offset(), ren_.action_dim()), s.cf, ip, iq);
    for (int d = 0; d < nren; ++d) {
      s.pl[p_.renewables[d].bus] -= ip[d];
      s.ql[p_.renewables[d].bus] -= iq[d];
    }
  }
  {
    std::span<double> ip(s.inj_p.data(), nflex);
    std::fill(ip.begin(), ip.end(), 0.0);
    out.flexload = flex_.step(s.flex, action.subspan(flex_act_offset(), flex_.action_dim()), ip);
    for (int d = 0; d < nflex; ++d) s.pl[p_.flexloads[d].bus] -= ip[d];
  }
  out.resource_cost = out.flexload.cost + out.battery.cost_sum() + out.renewable.cost_sum();

  out.ok = solve(s, net);
  out.loss_mw = s.loss_mw;
  const std::vector<char>& live = s.live;
  if (out.ok) {
    for (int b = 0; b < nb; ++b) {
      if (!live[b]) continue;  // de-energized: no voltage to hold in band
      const double v = s.v[b];
      out.n_voltage += (v < p_.v_min || v > p_.v_max);
      out.cost_continuous += std::max(v - p_.v_max, 0.0) + std::max(p_.v_min - v, 0.0);
    }
    for (int i = 0; i < n_lines(); ++i) {
      // |S| only near or above the rating (most lines are far below it, 1e6 when unlimited).
      const double p = s.p_line_mw[i], q = s.q_line_mvar[i];
      if (p * p + q * q < 0.99 * cap_[i] * cap_[i]) continue;
      const double sf = std::hypot(p, q);
      out.n_thermal += sf > cap_[i];
      out.cost_continuous += std::max(sf - cap_[i], 0.0);
    }
  } else {
    // No operating point: count every bus as out of band and charge the total demand as loss
    // (a solver failure must never look better than a solved step). State keeps the last solve.
    const int n_live = static_cast<int>(std::count(live.begin(), live.end(), 1));
    out.n_voltage = n_live;
    out.cost_continuous = n_live * (p_.v_max - p_.v_min);
    double loss = 0;
    for (int b = 0; b < nb; ++b)
      if (b != net_.ref_bus() && live[b]) loss += std::abs(s.pl[b]);
    out.loss_mw = std::isfinite(loss) ? loss : 0;
  }
  s.t += 1;
  costs[0] = static_cast<float>(out.n_voltage);
  costs[1] = static_cast<float>(out.n_thermal);
  costs[2] = static_cast<float>(out.resource_cost);
  if (outages_.active()) {
    out.unserved_mw = unserved_mw(s, k);
    costs[3] = static_cast<float>(out.unserved_mw);
    outages_.end_step(s.out, s.t, rng);  // records the solved status; the next step's
  }
  return out;
}

Step DistGrid::step(State& st, std::span<const float> action, core::Rng& rng, std::span<float> obs,
                    std::span<float> costs, Info* info) const {
  auto& s = static_cast<GridState&>(st);
  const DistGridOutcome o = advance(s, action, costs, rng);
  observe(s, obs);
  Step out;
  out.reward = static_cast<float>(-p_.loss_penalty_weight * o.loss_mw);
  out.truncated = s.t >= p_.horizon;
  out.terminated = !o.ok;
  if (info) {
    const int nv = o.n_voltage + o.n_thermal;
    info->gen_cost = 0;
    info->n_violations = nv;
    info->is_safe = o.ok && nv == 0 && o.unserved_mw <= 1e-6;
    info->status = o.ok ? StepStatus::kOk : StepStatus::kSolverFailed;
    info->sums[0] = o.loss_mw * p_.dt_hours;
    info->sums[1] = o.flexload.curtailed_mw * p_.dt_hours;
    info->sums[2] = o.flexload.shift_out_mw * p_.dt_hours;
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
  for (const auto* v :
       {&f.curtailed, &f.shift_out, &f.shift_in, &s.battery.soc, &s.battery.p_mw, &s.battery.q_mvar,
        &s.renewable.cf, &s.renewable.p_mw, &s.renewable.q_mvar, &s.renewable.curtail_frac})
    out.insert(out.end(), v->begin(), v->end());
  outages_.save_state(s.out, out);
  forecast_.save(s.forecast, out);  // nothing without forecast noise
}

size_t DistGrid::load_state(State& st, std::span<const double> in) const {
  auto& s = static_cast<GridState&>(st);
  const size_t nb = static_cast<size_t>(n_bus()), nl = static_cast<size_t>(n_lines());
  const size_t nd = static_cast<size_t>(flex_.n_devices());
  const size_t nbat = static_cast<size_t>(bat_.n_devices());
  const size_t nren = static_cast<size_t>(ren_.n_devices());
  const size_t n =
      3 + nb + 2 * nl + nd * devices::FlexLoadState::kSlots + 5 * nd + 3 * nbat + 4 * nren;
  if (in.size() < n)
    throw core::ConfigError("checkpoint: dist_grid state has " + std::to_string(in.size()) +
                            " values, expected " + std::to_string(n));
  size_t k = 0;
  load_clock(in.subspan(k), s.t, s.start);
  k += 2;
  // The window must lie inside every shape the step reads (a start past the data read freed
  // memory in a fuzzed checkpoint).
  bool window_ok = s.t <= p_.horizon;
  for (const auto* set : {&p_.shapes, &p_.cf_shapes})
    for (const auto& sh : *set)
      window_ok = window_ok && s.start + p_.horizon <= static_cast<int64_t>(sh.size());
  if (!window_ok)
    throw core::ConfigError("checkpoint: dist_grid state (step " + std::to_string(s.t) +
                            ", window start " + std::to_string(s.start) +
                            ") is inconsistent with this env (horizon " +
                            std::to_string(p_.horizon) + ")");
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
  constexpr int kSlots = devices::FlexLoadState::kSlots;
  for (size_t d = 0; d < nd; ++d) f.head[d] = state_int(in[k++], 0, kSlots - 1, "flexload head");
  for (size_t d = 0; d < nd; ++d) f.size[d] = state_int(in[k++], 0, kSlots, "flexload size");
  take(f.curtailed, nd);
  take(f.shift_out, nd);
  take(f.shift_in, nd);
  take(s.battery.soc, nbat);
  take(s.battery.p_mw, nbat);
  take(s.battery.q_mvar, nbat);
  take(s.renewable.cf, nren);
  take(s.renewable.p_mw, nren);
  take(s.renewable.q_mvar, nren);
  take(s.renewable.curtail_frac, nren);
  k += outages_.load_state(s.out, in.subspan(k));
  k += forecast_.load(s.forecast, in.subspan(k));
  // Energized in the last solved network: exactly the buses with a voltage (0 when cut off).
  s.live.resize(nb);
  for (size_t b = 0; b < nb; ++b) s.live[b] = s.v[b] > 0 ? 1 : 0;
  return k;
}

// The registry entry: the env is built from a task preset's data, so `[env] id` alone selects
// its default preset (tasks/ registers the presets, applied to this entry).
namespace {

EnvEntry dist_grid_entry() {
  EnvEntry e;
  e.id = "dist_grid";
  e.description =
      "radial distribution feeder (exact DistFlow) with FlexLoad demand response; the dso task "
      "preset: case33bw, six flexible loads, AEMO feeder shapes; costs voltage_violation, "
      "thermal_overload, resource";
  e.params = outage_params({"branch"});  // branch outages (dist_grid_outage.cpp; docs/outages.md)
  e.default_task = "dso";
  return e;
}

const Registrar kRegistrar{dist_grid_entry()};

}  // namespace
}  // namespace pz::envs
