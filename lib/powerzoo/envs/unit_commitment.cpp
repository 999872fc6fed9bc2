// UnitCommitment implementation (PowerZooJax powerzoojax/envs/grid/unit_commitment.py) on the
// exact DC-OPF.
#include "powerzoo/envs/unit_commitment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/params.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/network_view.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"

namespace pz::envs {
namespace {
constexpr double kUnlimited = 1e6;
constexpr double kVoll = kUcVoll;  // $/MWh for unserved load / spilled generation in the OPF
// $/MWh of line overload in the dispatch OPF (soft line limits): what an operator does when the
// committed units cannot meet the ratings is redispatch to the least overload, not drop the
// limits. 100 × kVoll and ~700 × the costliest unit's marginal cost (case118 UC table: ≤ 140
// $/MWh), so the LP removes overload first (shedding or spilling at kVoll where that relieves a
// line), then cost; where the ratings can be met it is the hard-limit OPF (docs/tasks/tso.md).
constexpr double kOverloadPrice = kUcOverloadPrice;
// $/MWh added per unit index to the dispatch LP's costs: units of equal cost (case118 has 22 at
// 70 $/MWh) make the optimum a face, and the vertex a solver returns then depends on its path
// (warm basis, lazy rows, a checkpoint's cold start). The bias orders tied units by index, far
// below the 1 $/MWh gaps of the cost table; reported costs stay unbiased.
constexpr double kTieBreak = 1e-4;
}  // namespace

UnitCommitment::UnitCommitment(UnitCommitmentParams p)
    : p_(std::move(p)), forecast_({p_.forecast_horizon, p_.forecast_noise}) {
  grid::Case& c = p_.grid_case;
  const int nu = n_units();
  if (nu == 0 || c.n_gen() != nu)
    throw core::ConfigError("unit_commitment: expected one unit per gen of case '" + c.name +
                            "' (" + std::to_string(c.n_gen()) + "), found " + std::to_string(nu));
  if (static_cast<int>(p_.base_pd.size()) != c.n_bus())
    throw core::ConfigError("unit_commitment: base load has the wrong length");
  if (p_.net.empty() || p_.episode_starts.empty())
    throw core::ConfigError("unit_commitment: expected a net-load series and episode starts");
  for (int64_t s : p_.episode_starts)
    if (s < 0 || s + p_.horizon > static_cast<int64_t>(p_.net.size()))
      throw core::ConfigError("unit_commitment: episode start outside the net-load series");
  // The OPF model: unit limits, the reference's linear dispatch objective mc_c·p, no shunts.
  for (int u = 0; u < nu; ++u) {
    c.gen[u].status = 1;
    c.gen[u].pmin_mw = p_.units[u].pmin;
    c.gen[u].pmax_mw = p_.units[u].pmax;
  }
  c.gencost.resize(nu);
  for (int u = 0; u < nu; ++u) {
    c.gencost[u].model = 2;
    c.gencost[u].coeffs = {p_.units[u].mc_c, 0.0};
  }
  for (auto& b : c.bus) b.gs_mw = 0;
  c.finalize();
  grid::DcOpf probe(c);  // validates the network (islanding, reactances) once, here
  // Screening needs flows linear in (PG, PD) through the PTDF alone: no phase shifters.
  bool screen = p_.screen_dispatch;
  for (const auto& br : c.branch) screen = screen && (br.status <= 0 || br.shift_deg == 0.0);
  cap_.resize(c.n_branch());
  for (int l = 0; l < c.n_branch(); ++l)
    cap_[l] = c.branch[l].rate_a_mva > 0 ? c.branch[l].rate_a_mva : kUnlimited;
  if (screen) {
    const grid::PtdfFlow ptdf(c, c.ref_bus_idx);
    merit_.emplace(ptdf, c.gen_bus_idx, p_.base_pd, cap_, kVoll);
    lp_.emplace(ptdf, c.gen_bus_idx, p_.base_pd, cap_, kVoll, kOverloadPrice);
  }
  sum_pmax_ = 0;
  max_abs_b_ = 0;
  for (const auto& un : p_.units) {
    sum_pmax_ += un.pmax;
    max_abs_b_ = std::max(max_abs_b_, std::abs(un.mc_b));
  }
  sum_base_pd_ = 0;
  for (double v : p_.base_pd) sum_base_pd_ += v;
  max_step_cost_ = 0;
  for (int u = 0; u < nu; ++u)
    max_step_cost_ +=
        std::max(unit_cost(u, p_.units[u].pmax), 0.0) + p_.units[u].no_load_cost_per_step;

  spec_.id = "unit_commitment";
  spec_.obs_dim = 4 * nu + c.n_branch() + 4 + p_.forecast_horizon;
  spec_.act_dim = 2 * nu;
  spec_.obs_fields = tile_obs_fields({{"status", nu},
                                      {"time_in_state", nu},
                                      {"last_output", nu},
                                      {"marginal_cost", nu},
                                      {"branch_flow", c.n_branch()},
                                      {"total_load", 1},
                                      {"reserve_margin", 1},
                                      {"time_of_day", 2},
                                      {"load_forecast", p_.forecast_horizon}});
  spec_.act_low.assign(2 * nu, -1.0f);
  spec_.act_high.assign(2 * nu, 1.0f);
  spec_.cost_names = {"thermal_overload", "reserve_shortfall", "min_updown"};
  spec_.horizon = p_.horizon;
  spec_.dt_hours = p_.dt_hours;
  spec_.episode_sum_names = {"total_operating_cost", "total_commitment_switches",
                             "step_feasibility_rate", "unserved_energy_mwh", "spilled_energy_mwh"};
  spec_.network = network_view(c);
  spec_.trace_vectors = {{"unit_on", nu}, {"unit_p_mw", nu}, {"branch_p_mw", c.n_branch()}};
  setup_outages();
}

void UnitCommitment::write_trace(const State& st, std::span<float> out) const {
  const auto& s = static_cast<const UcState&>(st);
  const int nu = n_units();
  for (int u = 0; u < nu && u < static_cast<int>(out.size()); ++u)
    out[u] = static_cast<float>(s.status[u]);
  const int o =
      put_trace(out, put_trace(out, nu, s.last, nu), s.flow, static_cast<int>(cap_.size()));
  trace_outages(s, out, o);
}

double UnitCommitment::unit_cost(int u, double p) const {
  const UcUnit& un = p_.units[u];
  return un.mc_a / 3.0 * p * p * p + un.mc_b / 2.0 * p * p + un.mc_c * p;
}

int64_t UnitCommitment::index(const UcState& s, int t) const {
  const int64_t k = s.start + std::min(t, p_.horizon - 1);
  return std::min<int64_t>(k, static_cast<int64_t>(p_.net.size()) - 1);
}

double UnitCommitment::total_load(int64_t k) const {
  return sum_base_pd_ * p_.load_scale * p_.net[static_cast<size_t>(k)];
}

std::unique_ptr<State> UnitCommitment::make_state() const {
  auto s = std::make_unique<UcState>();
  const int nu = n_units();
  s->status.assign(nu, 0);
  s->tis.assign(nu, 0);
  s->last.assign(nu, 0.0);
  s->flow.assign(p_.grid_case.n_branch(), 0.0);
  if (lp_) s->lp = *lp_;
  outages_.make_state(s->out);
  return s;
}

void UnitCommitment::observe(UcState& s, std::span<float> obs) const {
  const int nu = n_units();
  size_t k = 0;
  for (int u = 0; u < nu; ++u) obs[k++] = static_cast<float>(s.status[u]);
  for (int u = 0; u < nu; ++u) obs[k++] = static_cast<float>(s.tis[u] / 200.0);
  for (int u = 0; u < nu; ++u)
    obs[k++] = static_cast<float>(s.last[u] / std::max(p_.units[u].pmax, 1.0));
  const double bnorm = std::max(max_abs_b_, 1.0);
  for (int u = 0; u < nu; ++u) obs[k++] = static_cast<float>(p_.units[u].mc_b / bnorm);
  for (size_t l = 0; l < cap_.size(); ++l)
    obs[k++] = static_cast<float>(s.flow[l] / std::max(std::abs(cap_[l]), 1.0));
  const double load = total_load(index(s, s.t));
  const double denom = std::max(sum_pmax_, 1.0);
  double on_cap = 0;
  for (int u = 0; u < nu; ++u) on_cap += s.status[u] * p_.units[u].pmax;
  obs[k++] = static_cast<float>(load / denom);
  obs[k++] = static_cast<float>((on_cap - load) / std::max(load, 1.0));
  time_of_day_features(s.t, p_.dt_hours, &obs[k]);
  k += 2;
  thread_local std::vector<double> fc;
  fc.resize(static_cast<size_t>(p_.forecast_horizon));
  for (int h = 1; h <= p_.forecast_horizon; ++h) fc[h - 1] = total_load(index(s, s.t + h));
  forecast_.apply(fc, s.forecast, fc);
  for (double v : fc) obs[k++] = static_cast<float>(v / denom);
  observe_outages(s, obs, k);
}

void UnitCommitment::reset(State& st, core::Rng& rng, std::span<float> obs,
                           const ResetOptions& opt) const {
  auto& s = static_cast<UcState&>(st);
  const int nu = n_units();
  s.start = choose_episode_start(p_.episode_starts, rng, opt);
  forecast_.begin_episode(s.forecast, rng, s.start);
  s.t = 0;
  outages_.reset(s.out, rng);  // draws nothing when no outages are configured
  for (int u = 0; u < nu; ++u) {
    s.status[u] = p_.units[u].status0;
    s.tis[u] = p_.units[u].tis0;
    if (unit_out(s, u) && s.status[u]) {  // out from step 0: it has just gone off
      s.status[u] = 0;
      s.tis[u] = 1;
    }
  }
  // Reset dispatch: OPF of the initial commitment with unbiased costs (as unit_commitment.py's
  // reset).
  grid::DcOpfOverrides o;
  o.balance_slack_cost = kVoll;
  o.line_overload_cost = kOverloadPrice;
  o.pmin_mw.resize(nu);
  o.pmax_mw.resize(nu);
  o.linear_cost_delta.resize(nu);
  for (int u = 0; u < nu; ++u) {
    o.pmin_mw[u] = p_.units[u].pmin * s.status[u];
    o.pmax_mw[u] = p_.units[u].pmax * s.status[u];
    o.linear_cost_delta[u] = kTieBreak * u;
  }
  const double f0 = p_.load_scale * p_.net[static_cast<size_t>(index(s, 0))];
  if (outages_.active())
    dispatch_outages(s, f0, o);
  else
    dispatch(s, f0, o);
  const grid::DcOpfResult& r = s.opf_result;
  if (r.ok()) {
    for (int u = 0; u < nu; ++u) s.last[u] = r.gen_pg_mw[u];
    s.flow = r.branch_pf_mw;
  } else {  // initial commitment cannot serve the load: start from its minimum outputs
    for (int u = 0; u < nu; ++u) s.last[u] = o.pmin_mw[u];
    std::fill(s.flow.begin(), s.flow.end(), 0.0);
  }
  observe(s, obs);
}

// Built at its first use: most steps never reach CLP, and a DcOpf of case118 (its PTDF and CLP
// model) costs more than a thousand steps, for every env state of a batch. A state's first
// solve starts cold either way, so when it is built does not change an answer.
grid::DcOpf& UnitCommitment::clp_opf(UcState& s) const {
  if (!s.opf) {
    s.opf = std::make_unique<grid::DcOpf>(p_.grid_case);
    s.opf->set_lazy_line_limits(true);
    s.opf->set_dispatch_only(true);          // the env reads the dispatch and flows, never the LMPs
    s.opf->set_reference_loads(p_.base_pd);  // bus loads are base_pd × load_scale × net
  }
  return *s.opf;
}

// The merit-order point is the OPF optimum when it meets every rating; otherwise the LP with soft
// limits (never infeasible: the least overload, then the least cost), by DispatchLp from the merit
// order's basis, or by CLP where DispatchLp gives up. Should CLP fail, the merit-order point (no
// limits) is the dispatch.
void UnitCommitment::dispatch(UcState& s, double f, const grid::DcOpfOverrides& o) const {
  const int nu = n_units();
  thread_local std::vector<double> mc;
  thread_local grid::MeritOrderResult mo, lp_out;
  mc.resize(nu);
  for (int u = 0; u < nu; ++u) mc[u] = p_.units[u].mc_c + o.linear_cost_delta[u];
  const grid::MeritOrderStatus ms =
      merit_ ? merit_->solve(f, o.pmin_mw, o.pmax_mw, mc, mo) : grid::MeritOrderStatus::kUnusable;
  const bool have_mo = ms != grid::MeritOrderStatus::kUnusable;
  grid::DcOpfResult& r = s.opf_result;
  r.status = grid::DcOpfStatus::kFailed;
  const grid::MeritOrderResult* take = nullptr;
  if (ms == grid::MeritOrderStatus::kOptimal) {
    take = &mo;
    ++s.n_merit;
  } else if (have_mo && s.lp && s.lp->solve(f, o.pmin_mw, o.pmax_mw, mc, lp_out)) {
    take = &lp_out;
    ++s.n_lp;
  } else {
    clp_opf(s).solve_scaled_into(f, o, r);
    ++s.n_clp;
    if (have_mo && !r.ok()) take = &mo;
  }
  if (take) {
    r.status = grid::DcOpfStatus::kOptimal;
    r.gen_pg_mw = take->p_mw;
    r.branch_pf_mw = take->flow_mw;
    r.balance_slack_mw = take->slack_mw;
  }
}

Step UnitCommitment::step(State& st, std::span<const float> action, core::Rng& rng,
                          std::span<float> obs, std::span<float> costs, Info* info) const {
  auto& s = static_cast<UcState&>(st);
  const int nu = n_units();
  thread_local std::vector<int> u_on;
  thread_local grid::DcOpfOverrides o;
  u_on.resize(nu);
  o.pmin_mw.resize(nu);
  o.pmax_mw.resize(nu);
  o.linear_cost_delta.resize(nu);
  o.line_limits = true;
  o.balance_slack_cost = kVoll;
  o.line_overload_cost = kOverloadPrice;
  double startup = 0, noload = 0;
  for (int u = 0; u < nu; ++u) {
    const UcUnit& un = p_.units[u];
    const float a_c = action[u];
    int on = a_c > 0.0f ? 1 : 0;  // NaN → off
    if (s.status[u] == 1 && s.tis[u] < un.min_up) on = 1;
    if (s.status[u] == 0 && s.tis[u] < un.min_down) on = 0;
    if (unit_out(s, u)) on = 0;  // unavailable: off whatever the action and min up time
    u_on[u] = on;
    if (on && !s.status[u]) startup += un.startup_cost;
    noload += on * un.no_load_cost_per_step;
    const double lo = std::max(un.pmin, s.last[u] - un.ramp_down_mw);
    const double hi = std::min(un.pmax, s.last[u] + un.ramp_up_mw);
    const double elo = lo * on, ehi = hi * on;
    double a_d = static_cast<double>(action[nu + u]);
    a_d = std::isfinite(a_d) ? std::clamp(a_d, -1.0, 1.0) : 0.0;
    const double target = 0.5 * (elo + ehi) + a_d * 0.5 * (ehi - elo);
    o.pmin_mw[u] = elo;  // an inverted window (elo > ehi) is pinned to ehi by the OPF
    o.pmax_mw[u] = ehi;
    o.linear_cost_delta[u] = -p_.dispatch_preference * target + kTieBreak * u;
  }
  const int64_t k = index(s, s.t);
  if (outages_.active())
    dispatch_outages(s, p_.load_scale * p_.net[static_cast<size_t>(k)], o);
  else
    dispatch(s, p_.load_scale * p_.net[static_cast<size_t>(k)], o);
  const grid::DcOpfResult& r = s.opf_result;
  const double total_load_mw = total_load(k);
  double on_cap = 0;
  for (int u = 0; u < nu; ++u) on_cap += u_on[u] * p_.units[u].pmax;
  const double short_mw = std::max(0.0, total_load_mw * (1.0 + p_.reserve_margin) - on_cap);
  const bool res_viol = p_.enable_reserve && short_mw > 1e-6;
  int switches = 0;
  for (int u = 0; u < nu; ++u) {
    const bool changed = u_on[u] != s.status[u];
    switches += changed;
    s.tis[u] = changed ? 1 : s.tis[u] + 1;
    s.status[u] = u_on[u];
  }
  Step out;
  double gen_cost = 0, c_th = 0, shed = 0;
  int n_th = 0;
  if (r.ok()) {
    // Under outages: summed over the islands, with the load of de-energized buses.
    shed = outages_.active() ? s.shed_mw : std::max(r.balance_slack_mw, 0.0);
    for (int u = 0; u < nu; ++u) {
      s.last[u] = r.gen_pg_mw[u];
      gen_cost += unit_cost(u, s.last[u]);
    }
    s.flow = r.branch_pf_mw;
    for (size_t l = 0; l < cap_.size(); ++l) {
      const double v = std::max(s.flow[l] - cap_[l], 0.0) + std::max(-cap_[l] - s.flow[l], 0.0);
      c_th += v;
      n_th += v > 1e-6;
    }
  } else {
    out.terminated = true;
    for (int u = 0; u < nu; ++u) s.last[u] = 0.5 * (o.pmin_mw[u] + o.pmax_mw[u]);
    std::fill(s.flow.begin(), s.flow.end(), 0.0);
  }
  s.t += 1;
  // Failure: charge the all-units-at-pmax cost for this and every remaining step.
  const double fail_cost =
      out.terminated ? max_step_cost_ * static_cast<double>(p_.horizon - s.t + 1) : 0.0;
  const double op_cost = gen_cost + startup + noload;
  costs[0] = static_cast<float>(p_.cost_thermal_weight * c_th);
  costs[1] = static_cast<float>(p_.enable_reserve ? short_mw : 0.0);
  costs[2] = 0.0f;
  if (outages_.active()) {
    costs[3] = static_cast<float>(shed);
    outages_.end_step(s.out, s.t, rng);  // records the solved status; the next step's
  }
  observe(s, obs);
  out.reward = static_cast<float>(-p_.reward_scale * (op_cost + kVoll * shed + fail_cost));
  out.truncated = !out.terminated && s.t >= p_.horizon;
  if (info) {
    const bool safe = r.ok() && n_th == 0 && !res_viol && shed <= 1e-6;
    info->gen_cost = gen_cost;
    info->n_violations = n_th + (res_viol ? 1 : 0) + (shed > 1e-6 ? 1 : 0);
    info->is_safe = safe;
    info->status = r.ok() ? StepStatus::kOk : StepStatus::kSolverFailed;
    info->sums[0] = op_cost;
    info->sums[1] = switches;
    info->sums[2] = safe ? 1.0 / p_.horizon : 0.0;
    info->sums[3] = shed * p_.dt_hours;
    const double spill = outages_.active() ? s.spill_mw : std::max(-r.balance_slack_mw, 0.0);
    info->sums[4] = r.ok() ? spill * p_.dt_hours : 0.0;
  }
  return out;
}

void UnitCommitment::save_state(const State& st, std::vector<double>& out) const {
  const auto& s = static_cast<const UcState&>(st);
  save_clock(s.t, s.start, out);
  out.insert(out.end(), s.status.begin(), s.status.end());
  out.insert(out.end(), s.tis.begin(), s.tis.end());
  out.insert(out.end(), s.last.begin(), s.last.end());
  out.insert(out.end(), s.flow.begin(), s.flow.end());
  forecast_.save(s.forecast, out);
  outages_.save_state(s.out, out);
}

size_t UnitCommitment::load_state(State& st, std::span<const double> in) const {
  auto& s = static_cast<UcState&>(st);
  const size_t nu = s.status.size(), nl = s.flow.size();
  const size_t n = 2 + 3 * nu + nl + forecast_.state_size();
  if (in.size() < n)
    throw core::ConfigError("checkpoint: unit_commitment state has " + std::to_string(in.size()) +
                            " values, expected " + std::to_string(n));
  load_clock(in, s.t, s.start);
  if (s.t < 0 || s.t > p_.horizon || s.start < 0 ||
      s.start + p_.horizon > static_cast<int64_t>(p_.net.size()))
    throw core::ConfigError("checkpoint: unit_commitment state is inconsistent with this env");
  size_t k = 2;
  for (size_t u = 0; u < nu; ++u) s.status[u] = in[k++] > 0.5 ? 1 : 0;
  // Time in state counts steps from tis0 (>= 0) up, one per step: any non-negative int is a state
  // some run can reach; NaN or 1e214 is a damaged checkpoint (and undefined as an int).
  for (size_t u = 0; u < nu; ++u)
    s.tis[u] = state_int(in[k++], 0, std::numeric_limits<int>::max() / 2, "time in state");
  // The last dispatch bounds the next LP's ramp window (0 for a unit that was off): outside
  // [min(0, pmin), pmax] it is a damaged checkpoint, and 1e300 gave CLP bounds it asserts on.
  for (size_t u = 0; u < nu; ++u) {
    const auto& un = p_.units[u];
    const double p = in[k++], tol = 1e-6 * std::max(1.0, un.pmax);
    if (!(p >= std::min(0.0, un.pmin) - tol && p <= un.pmax + tol))
      throw core::ConfigError(
          "checkpoint: unit_commitment unit " + std::to_string(u) +
          " last dispatch: expected a value in [" + core::format_number(std::min(0.0, un.pmin)) +
          ", " + core::format_number(un.pmax) + "] MW, found " + core::format_number(p));
    s.last[u] = p;
  }
  for (size_t l = 0; l < nl; ++l) s.flow[l] = in[k++];
  forecast_.load(s.forecast, in.subspan(k));
  if (s.opf) s.opf->reset_warm_start();
  return n + outages_.load_state(s.out, in.subspan(n));
}

// The registry entry: the env is built from a task preset's data, so `[env] id` alone selects
// its default preset (tasks/ registers the presets, applied to this entry).
namespace {

EnvEntry unit_commitment_entry() {
  EnvEntry e;
  e.id = "unit_commitment";
  e.description =
      "DC unit commitment (task tso): the agent commits units and biases an exact DC-OPF "
      "dispatch; costs thermal_overload, reserve_shortfall, min_updown";
  e.default_task = "tso";
  return e;
}

const Registrar kRegistrar{unit_commitment_entry()};

}  // namespace
}  // namespace pz::envs
