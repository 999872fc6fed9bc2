// TransGrid implementation: DC power flow on a PTDF with slack attribution (PowerZooJax
// powerzoojax/envs/grid/power_flow.py and trans.py).
#include "powerzoo/envs/trans_grid/trans_grid.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/network_view.hpp"
#include "powerzoo/envs/trans_grid/trans_grid_outage_net.hpp"
#include "powerzoo/grid/case/energized.hpp"

namespace pz::envs {
namespace {
constexpr double kUnlimited = 1e6;        // reference sentinel for rate_a = 0
constexpr double kViolationTolMw = 1e-6;  // same threshold as the eval violation rate
}  // namespace

TransGrid::TransGrid(TransGridParams p) : p_(std::move(p)) {
  // The case as the `grid` commands read it (grid/case/energized): a reference bus without an
  // in-service gen hands over to the first PV bus with one (it used to stay the slack and inject
  // the missing power for free), islands without a gen and type-4 buses are de-energized and
  // their loads not served, branches and gens touching them are out.
  p_.grid_case = grid::energize(p_.grid_case);
  const grid::Case& c = p_.grid_case;
  for (int g = 0; g < c.n_gen(); ++g) {
    if (c.gen[g].status <= 0) continue;
    unit_gen_.push_back(g);
    unit_bus_.push_back(c.gen_bus_idx[g]);
    pmin_.push_back(c.gen[g].pmin_mw);
    pmax_.push_back(c.gen[g].pmax_mw);
  }
  if (unit_gen_.empty())
    throw core::ConfigError("case '" + c.name + "': expected at least one in-service generator");
  if (static_cast<int>(c.gencost.size()) < c.n_gen())  // reward = −generation cost
    throw core::ConfigError("case '" + c.name + "': expected an mpc.gencost row per generator (" +
                            std::to_string(c.n_gen()) + ") for the generation cost, found " +
                            std::to_string(c.gencost.size()));
  const int nu = n_units();
  if (!p_.pmin_override.empty()) {
    if (static_cast<int>(p_.pmin_override.size()) != nu)
      throw core::ConfigError("TransGrid: pmin override has the wrong length");
    pmin_ = p_.pmin_override;
  }
  if (!p_.pmax_override.empty()) {
    if (static_cast<int>(p_.pmax_override.size()) != nu)
      throw core::ConfigError("TransGrid: pmax override has the wrong length");
    pmax_ = p_.pmax_override;
  }
  for (int b = 0; b < c.n_bus(); ++b) {
    if (c.bus[b].pd_mw != 0.0 && c.bus[b].type != 4) {
      load_bus_.push_back(b);
      load_pd_.push_back(c.bus[b].pd_mw);
    }
  }
  const int slack = p_.slack_bus_idx >= 0 ? p_.slack_bus_idx : c.ref_bus_idx;
  p_.slack_bus_idx = slack;
  slack_share_.assign(nu, 0.0);
  int n_at_slack = 0;
  for (int u = 0; u < nu; ++u) n_at_slack += unit_bus_[u] == slack;
  for (int u = 0; u < nu; ++u)
    if (unit_bus_[u] == slack) slack_share_[u] = 1.0 / n_at_slack;
  ptdf_ = grid::PtdfFlow(c, slack);
  build_shift_flows(c);
  cap_.resize(c.n_branch());
  for (int l = 0; l < c.n_branch(); ++l)
    cap_[l] = c.branch[l].rate_a_mva > 0 ? c.branch[l].rate_a_mva : kUnlimited;
  sum_pmax_ = 0;
  for (double v : pmax_) sum_pmax_ += v;
  if (!p_.profile.empty() && p_.episode_starts.empty())
    throw core::ConfigError("TransGrid: a profile needs at least one episode start");

  spec_.id = "trans_grid";
  const int n_vm = ac() ? c.n_bus() : 0;
  spec_.obs_dim = c.n_branch() + n_vm + static_cast<int>(load_bus_.size()) + nu + 2;
  spec_.act_dim = nu;
  spec_.obs_fields = ac() ? tile_obs_fields({{"branch_flow", c.n_branch()},
                                             {"bus_vm", n_vm},
                                             {"load", static_cast<int>(load_bus_.size())},
                                             {"unit_output", nu},
                                             {"time_of_day", 2}})
                          : tile_obs_fields({{"branch_flow", c.n_branch()},
                                             {"load", static_cast<int>(load_bus_.size())},
                                             {"unit_output", nu},
                                             {"time_of_day", 2}});
  spec_.act_low.assign(nu, -1.0f);
  spec_.act_high.assign(nu, 1.0f);
  spec_.cost_names = {"thermal_overload", "voltage_violation", "power_balance", "resource"};
  spec_.horizon = p_.horizon;
  spec_.dt_hours = p_.dt_hours;
  if (p_.report_opf_gap) spec_.episode_sum_names = {"policy_gen_cost_usd", "opf_gen_cost_usd"};
  spec_.network = network_view(c);
  spec_.trace_vectors = {{"unit_p_mw", nu}, {"branch_p_mw", c.n_branch()}};
  if (ac())
    spec_.trace_vectors.insert(spec_.trace_vectors.end(),
                               {{"branch_q_mvar", c.n_branch()}, {"bus_vm_pu", c.n_bus()}});
  const bool ac_opf = p_.solver == TransGridParams::Solver::kAcOpf || (ac() && p_.report_opf_gap);
  if (p_.opf_dispatch || p_.report_opf_gap || ac_opf) {
    opf_case_ = c;
    for (int u = 0; u < nu; ++u) {
      opf_case_.gen[unit_gen_[u]].pmin_mw = pmin_[u];
      opf_case_.gen[unit_gen_[u]].pmax_mw = pmax_[u];
    }
    if (p_.opf_dispatch || (p_.report_opf_gap && !ac()))
      grid::DcOpf probe(opf_case_);  // validate the OPF data up front
  }
  if (ac()) setup_ac(ac_opf);
  setup_outages(c);
}

void TransGrid::write_trace(const State& st, std::span<float> out) const {
  const auto& s = static_cast<const GridState&>(st);
  const int nl = p_.grid_case.n_branch();
  int o = put_trace(out, put_trace(out, 0, s.p_mw, n_units()), s.flow_mw, nl);
  if (ac()) o = put_trace(out, put_trace(out, o, s.qflow_mvar, nl), s.vm, p_.grid_case.n_bus());
  trace_outages(s, out, o);
}

std::unique_ptr<State> TransGrid::make_state() const {
  auto s = std::make_unique<GridState>();
  s->p_mw.assign(n_units(), 0.0);
  s->flow_mw.assign(p_.grid_case.n_branch(), 0.0);
  if (p_.opf_dispatch || (p_.report_opf_gap && !ac()))
    s->opf = std::make_unique<grid::DcOpf>(opf_case_);
  if (ac()) make_ac_state(*s);
  outages_.make_state(s->out);
  return s;
}

int64_t TransGrid::profile_index(const GridState& s, int t) const {
  return s.start + std::min(t, p_.horizon - 1);
}

double TransGrid::load_factor(int64_t k) const {
  return p_.load_scale *
         (p_.profile.empty() ? 1.0 : p_.profile[static_cast<size_t>(k)] / p_.profile_mean);
}

void TransGrid::bus_load(int64_t k, std::vector<double>& load) const {
  load.assign(p_.grid_case.n_bus(), 0.0);
  const double f = load_factor(k);
  for (size_t i = 0; i < load_bus_.size(); ++i) load[load_bus_[i]] += load_pd_[i] * f;
}

double TransGrid::generation_cost(const std::vector<double>& p) const {
  double cost = 0;
  for (int u = 0; u < n_units(); ++u)
    cost += grid::gen_cost(p_.grid_case.gencost[unit_gen_[u]], p[u]);
  return cost;
}

// Phase shifters (MATPOWER makeBdc): Pfinj = b·(−shift) on each branch, Pbusinj = Cf·Pfinj −
// Ct·Pfinj, and F = PTDF·(P − Pbusinj) + Pfinj; the shifters' part is a constant per branch.
// Without this the env ignored SHIFT that `grid dcpf` and the DC-OPF model.
std::vector<double> shifter_flows(const grid::Case& c, const grid::PtdfFlow& ptdf) {
  const int nl = c.n_branch(), nb = c.n_bus();
  std::vector<double> pfinj(nl, 0.0), pbusinj(nb, 0.0);
  bool any = false;
  for (int l = 0; l < nl; ++l) {
    const auto& br = c.branch[l];
    if (br.status <= 0 || br.shift_deg == 0.0) continue;
    any = true;
    pfinj[l] =
        -br.shift_deg * (std::numbers::pi / 180.0) / (br.x_pu * br.effective_tap()) * c.base_mva;
    pbusinj[c.branch_from_idx[l]] += pfinj[l];
    pbusinj[c.branch_to_idx[l]] -= pfinj[l];
  }
  std::vector<double> out;
  if (!any) return out;
  out.resize(nl);
  for (int l = 0; l < nl; ++l) {
    double f = pfinj[l];
    for (int b = 0; b < nb; ++b) f -= ptdf.at(l, b) * pbusinj[b];
    out[l] = f;
  }
  return out;
}

void TransGrid::build_shift_flows(const grid::Case& c) { shift_flow_ = shifter_flows(c, ptdf_); }

// Reference dc_pf: slack-bus units absorb G − D; flows = PTDF · (Au p − load) (slack column 0).
void TransGrid::dc_flow(const std::vector<double>& load, std::vector<double>& p,
                        std::vector<double>& flow) const {
  ptdf_.unit_flows(unit_bus_, slack_share_, load, p, flow);
  for (size_t l = 0; l < shift_flow_.size(); ++l) flow[l] += shift_flow_[l];
}

void TransGrid::observe(const GridState& s, std::span<float> obs) const {
  size_t k = 0;
  for (size_t l = 0; l < cap_.size(); ++l) {
    const double f = ac() ? std::hypot(s.flow_mw[l], s.qflow_mvar[l]) : s.flow_mw[l];
    obs[k++] = static_cast<float>(f / std::max(std::abs(cap_[l]), 1.0));
  }
  if (ac())
    for (double v : s.vm) obs[k++] = static_cast<float>(v);
  const double f = p_.load_scale *
                   (p_.profile.empty()
                        ? 1.0
                        : p_.profile[static_cast<size_t>(profile_index(s, s.t))] / p_.profile_mean);
  const double denom = std::max(sum_pmax_, 1.0);
  for (double pd : load_pd_) obs[k++] = static_cast<float>(pd * f / denom);
  for (int u = 0; u < n_units(); ++u)
    obs[k++] = static_cast<float>(s.p_mw[u] / std::max(pmax_[u], 1.0));
  time_of_day_features(s.t, p_.dt_hours, &obs[k]);
  k += 2;
  observe_outages(s, obs, k);
}

void TransGrid::reset(State& st, core::Rng& rng, std::span<float> obs,
                      const ResetOptions& opt) const {
  auto& s = static_cast<GridState&>(st);
  s.t = 0;
  s.episode_cost = 0;
  s.start = p_.profile.empty() ? 0 : choose_episode_start(p_.episode_starts, rng, opt);
  outages_.reset(s.out, rng);  // draws nothing when no outages are configured
  if (s.net) {  // each episode's OPF solves start cold; the PTDF and AC power flow are kept
    s.net->opf.reset();
    s.net->acopf.reset();
  }
  s.unserved_mw = 0;
  thread_local std::vector<double> load;
  bus_load(profile_index(s, 0), load);
  // Proportional dispatch of total demand between unit limits (PowerZooJax's
  // proportional_dispatch in power_flow.py).
  double dem = 0, smin = 0, head = 0;
  for (double v : load) dem += v;
  for (int u = 0; u < n_units(); ++u) {
    smin += pmin_[u];
    head += pmax_[u] - pmin_[u];
  }
  const double rem = std::clamp(dem - smin, 0.0, head);
  const double ratio = head > 0 ? rem / head : 0.0;
  for (int u = 0; u < n_units(); ++u)
    s.p_mw[u] = std::clamp(pmin_[u] + ratio * (pmax_[u] - pmin_[u]), pmin_[u], pmax_[u]);
  if (outages_.active()) {
    for (int u = 0; u < n_units(); ++u)
      if (!unit_on(s, u)) s.p_mw[u] = 0;
    dc_flow_outages(s, load);
  } else {
    dc_flow(load, s.p_mw, s.flow_mw);
  }
  if (ac()) reset_ac(s, profile_index(s, 0), load);
  observe(s, obs);
}

Step TransGrid::step(State& st, std::span<const float> action, core::Rng& rng, std::span<float> obs,
                     std::span<float> costs, Info* info) const {
  auto& s = static_cast<GridState&>(st);
  if (ac()) return step_ac(s, action, rng, obs, costs, info);
  thread_local std::vector<double> load;
  bus_load(profile_index(s, s.t), load);
  grid::DcOpfResult opf;
  if (s.opf) opf = solve_dc_opf(s, load);
  if (p_.opf_dispatch && opf.ok()) {
    for (int u = 0; u < n_units(); ++u) s.p_mw[u] = opf.gen_pg_mw[unit_gen_[u]];
    if (outages_.active())
      dc_flow_outages(s, load);  // balanced per island: the slack adjustment is ~0
    else
      dc_flow(load, s.p_mw, s.flow_mw);  // balanced: the slack adjustment is ~0
  } else {
    // The OPF modes ignore the action, also when the OPF fails (the step that ends the episode):
    // every unit at the middle of its range, so a failed step's costs never depend on the policy.
    for (int u = 0; u < n_units(); ++u) {
      const double a =
          p_.opf_dispatch ? 0.0 : std::clamp(static_cast<double>(action[u]), -1.0, 1.0);
      s.p_mw[u] = 0.5 * (pmin_[u] + pmax_[u]) + a * 0.5 * (pmax_[u] - pmin_[u]);
    }
    if (outages_.active()) {
      for (int u = 0; u < n_units(); ++u)
        if (!unit_on(s, u)) s.p_mw[u] = 0;  // an out unit produces nothing, whatever the action
      dc_flow_outages(s, load);
    } else {
      dc_flow(load, s.p_mw, s.flow_mw);
    }
  }
  double c_th = 0;
  int n_viol = 0;
  for (size_t l = 0; l < cap_.size(); ++l) {
    const double v = std::max(s.flow_mw[l] - cap_[l], 0.0) + std::max(-cap_[l] - s.flow_mw[l], 0.0);
    c_th += v;
    n_viol += v > kViolationTolMw;  // an exact OPF binds lines at cap ± 1e-13
  }
  StepEnd e;
  e.thermal = c_th;
  e.n_violations = n_viol;
  e.failed = p_.opf_dispatch && !opf.ok();
  // An infeasible OPF ended the episode as "feasible": it is unsafe whatever the flows.
  e.failed_unsafe = true;
  e.gap_ok = p_.report_opf_gap && opf.ok();
  e.gap_cost = opf.objective;
  return finish_step(s, e, rng, obs, costs, info);
}

// The end of a step of every mode: unit-limit violations and generation cost of s.p_mw (an out
// unit has neither: no limits, no cost, a constant gencost term included), the cost vector, the
// outage status the next step solves, the observation, reward, termination and info.
Step TransGrid::finish_step(GridState& s, const StepEnd& e, core::Rng& rng, std::span<float> obs,
                            std::span<float> costs, Info* info) const {
  double c_bal = 0, gen_cost = 0;
  for (int u = 0; u < n_units(); ++u) {
    if (!unit_on(s, u)) continue;
    c_bal += std::max(s.p_mw[u] - pmax_[u], 0.0) + std::max(pmin_[u] - s.p_mw[u], 0.0);
    if (outages_.active())
      gen_cost += grid::gen_cost(p_.grid_case.gencost[unit_gen_[u]], s.p_mw[u]);
  }
  if (!outages_.active()) gen_cost = generation_cost(s.p_mw);
  s.episode_cost += gen_cost;
  s.t += 1;
  costs[0] = static_cast<float>(p_.cost_thermal_weight * e.thermal);
  costs[1] = static_cast<float>(e.voltage);
  costs[2] = static_cast<float>(c_bal);
  costs[3] = 0.0f;
  if (outages_.active()) {
    costs[4] = static_cast<float>(s.unserved_mw);
    outages_.end_step(s.out, s.t, rng);  // records the solved status; the next step's
  }
  observe(s, obs);
  Step out;
  out.reward = static_cast<float>(-p_.reward_scale * gen_cost);
  out.truncated = s.t >= p_.horizon;
  const bool finite = std::isfinite(gen_cost) && std::isfinite(e.thermal);
  if (!finite || e.failed) out.terminated = true;
  if (info) {
    info->gen_cost = gen_cost;
    info->n_violations = e.n_violations;
    // Safe = every constraint of the cost vector holds (thermal, voltage and unit limits, no
    // unserved load).
    info->is_safe = !(e.failed && e.failed_unsafe) && e.n_violations == 0 && c_bal <= 1e-6 &&
                    s.unserved_mw <= 1e-6;
    info->status = !finite    ? StepStatus::kNonFinite
                   : e.failed ? StepStatus::kSolverFailed
                              : StepStatus::kOk;
    if (e.gap_ok) {
      info->sums[0] = gen_cost * p_.dt_hours;
      info->sums[1] = e.gap_cost * p_.dt_hours;
    }
  }
  return out;
}

void TransGrid::save_state(const State& st, std::vector<double>& out) const {
  const auto& s = static_cast<const GridState&>(st);
  save_clock(s.t, s.start, out);
  out.push_back(s.episode_cost);
  out.insert(out.end(), s.p_mw.begin(), s.p_mw.end());
  out.insert(out.end(), s.flow_mw.begin(), s.flow_mw.end());
  if (ac()) {  // the next step's warm start and the AC observation
    out.push_back(s.ac_valid ? 1.0 : 0.0);
    out.insert(out.end(), s.vm.begin(), s.vm.end());
    out.insert(out.end(), s.va_deg.begin(), s.va_deg.end());
    out.insert(out.end(), s.qflow_mvar.begin(), s.qflow_mvar.end());
  }
  outages_.save_state(s.out, out);
}

size_t TransGrid::load_state(State& st, std::span<const double> in) const {
  auto& s = static_cast<GridState&>(st);
  if (s.opf) s.opf->reset_warm_start();
  if (s.acopf) s.acopf->reset_warm_start();
  s.net.reset();  // derived from s.out: rebuilt (cold) on the next step
  const size_t n_ac = ac() ? 1 + 2 * s.vm.size() + s.qflow_mvar.size() : 0;
  const size_t n = 3 + s.p_mw.size() + s.flow_mw.size() + n_ac;
  if (in.size() < n)
    throw core::ConfigError("checkpoint: trans_grid state has " + std::to_string(in.size()) +
                            " values, expected " + std::to_string(n));
  load_clock(in, s.t, s.start);
  if (s.t > p_.horizon ||
      (!p_.profile.empty() && s.start + p_.horizon > static_cast<int64_t>(p_.profile.size())))
    throw core::ConfigError(
        "checkpoint: trans_grid state (step " + std::to_string(s.t) + ", window start " +
        std::to_string(s.start) + ") is inconsistent with this env (horizon " +
        std::to_string(p_.horizon) + ", " + std::to_string(p_.profile.size()) + " profile steps)");
  s.episode_cost = in[2];
  std::copy(in.begin() + 3, in.begin() + 3 + s.p_mw.size(), s.p_mw.begin());
  size_t k = 3 + s.p_mw.size();
  std::copy(in.begin() + k, in.begin() + k + s.flow_mw.size(), s.flow_mw.begin());
  k += s.flow_mw.size();
  if (ac()) {
    s.ac_valid = in[k++] != 0.0;
    for (auto* v : {&s.vm, &s.va_deg, &s.qflow_mvar}) {
      std::copy(in.begin() + k, in.begin() + k + v->size(), v->begin());
      k += v->size();
    }
  }
  return n + outages_.load_state(s.out, in.subspan(n));
}

}  // namespace pz::envs
