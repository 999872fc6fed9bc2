// TransGrid AC modes (PowerZooJax trans.py's physics 1 / solver_mode 2): Newton–Raphson power flow
// of the dispatch or AC-OPF dispatch, apparent-power and voltage-band costs, Vm in the observation.
#include <algorithm>
#include <cmath>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/envs/trans_grid/trans_grid_outage_net.hpp"
#include "powerzoo/grid/ac/ac_dark.hpp"

namespace pz::envs {
namespace {
constexpr double kViolationTol = 1e-6;  // MVA and p.u.: the DC mode's threshold
using Solver = TransGridParams::Solver;
}  // namespace

void TransGrid::setup_ac(bool ac_opf) {
  const grid::Case& c = p_.grid_case;
  vmin_.resize(c.n_bus());
  vmax_.resize(c.n_bus());
  for (int b = 0; b < c.n_bus(); ++b) {
    vmin_[b] = p_.vm_min > 0 ? p_.vm_min : c.bus[b].vmin_pu;
    vmax_[b] = p_.vm_max > 0 ? p_.vm_max : c.bus[b].vmax_pu;
    if (vmin_[b] > vmax_[b])
      throw core::ConfigError(
          "TransGrid: expected vm_min <= vm_max at bus " + std::to_string(c.bus[b].id) +
          ", found " + core::format_number(vmin_[b]) + " > " + core::format_number(vmax_[b]));
  }
  grid::AcPowerFlow probe(c);  // the AC data checks (file, row, column) before any work
  if (ac_opf) grid::AcOpf opf_probe(opf_case_);
}

void TransGrid::make_ac_state(GridState& s) const {
  const grid::Case& c = p_.grid_case;
  s.acpf = std::make_unique<grid::AcPowerFlow>(c);
  if (p_.solver == Solver::kAcOpf || p_.report_opf_gap)
    s.acopf = std::make_unique<grid::AcOpf>(opf_case_);
  s.vm.assign(c.n_bus(), 1.0);
  s.va_deg.assign(c.n_bus(), 0.0);
  s.qflow_mvar.assign(c.n_branch(), 0.0);
  s.ac_valid = false;
}

void TransGrid::bus_qload(int64_t k, std::vector<double>& q) const {
  const grid::Case& c = p_.grid_case;
  q.resize(c.n_bus());
  const double f = load_factor(k);
  for (int b = 0; b < c.n_bus(); ++b) q[b] = c.bus[b].qd_mvar * f;
}

void TransGrid::ac_costs(const grid::Case& c, const std::vector<double>& pf,
                         const std::vector<double>& qf, const std::vector<double>& pt,
                         const std::vector<double>& qt, const std::vector<double>& vm,
                         AcCosts& out) const {
  for (size_t l = 0; l < cap_.size(); ++l) {
    const double s = std::max(std::hypot(pf[l], qf[l]), std::hypot(pt[l], qt[l]));
    const double v = std::max(s - cap_[l], 0.0);
    out.thermal_mva += v;
    out.n_thermal += v > kViolationTol;
  }
  for (int b = 0; b < c.n_bus(); ++b) {
    if (c.bus[b].type == 4) continue;  // de-energized (in the case or by an outage)
    const double v = std::max(vm[b] - vmax_[b], 0.0) + std::max(vmin_[b] - vm[b], 0.0);
    out.voltage_pu += v;
    out.n_voltage += v > kViolationTol;
  }
}

TransGrid::AcCosts TransGrid::ac_power_flow(GridState& s, const std::vector<double>& p,
                                            const std::vector<double>& q, bool warm) const {
  thread_local std::vector<double> pg, pd, qd, vm0, va0;
  pg.assign(p_.grid_case.n_gen(), 0.0);
  for (int u = 0; u < n_units(); ++u) pg[unit_gen_[u]] = s.p_mw[u];
  const grid::Case& c = step_case(s);
  grid::AcPfInput in;
  in.bus_pd_mw = p;
  in.bus_qd_mvar = q;
  in.gen_pg_mw = pg;
  vm0 = s.vm;
  va0 = s.va_deg;
  if (outages_.active()) {  // de-energized buses: no load; a bus back in service starts flat
    pd = p;
    qd = q;
    for (int b = 0; b < c.n_bus(); ++b) {
      if (c.bus[b].type == 4) pd[b] = qd[b] = 0;
      if (vm0[b] <= 0) vm0[b] = 1.0, va0[b] = 0.0;  // de-energized in the last solve
    }
    in.bus_pd_mw = pd;
    in.bus_qd_mvar = qd;
  }
  if (warm) {
    in.vm0_pu = vm0;
    in.va0_deg = va0;
  }
  grid::AcPfOptions o;
  o.enforce_q_lims = p_.enforce_q_lims;
  o.q_lims_at_ref = false;  // the reference: the slack bus is unlimited
  // No generator in service anywhere: nothing is energized (every bus of type 4), an outcome of
  // the step (all load unserved, Vm = 0), not a solver to build.
  if (outages_.active() && outage_net(s).n_refs == 0)
    s.ac = grid::dark_acpf(c);
  else
    step_acpf(s).solve_into(in, o, s.ac);
  AcCosts out;
  out.ok = s.ac.success;
  if (!out.ok) return out;
  for (int u = 0; u < n_units(); ++u)  // out units (and those of de-energized islands) at 0
    s.p_mw[u] = c.gen[unit_gen_[u]].status > 0 ? s.ac.gen_pg_mw[unit_gen_[u]] : 0.0;
  std::copy(s.ac.branch_pf_mw.begin(), s.ac.branch_pf_mw.end(), s.flow_mw.begin());
  std::copy(s.ac.branch_qf_mvar.begin(), s.ac.branch_qf_mvar.end(), s.qflow_mvar.begin());
  std::copy(s.ac.bus_vm_pu.begin(), s.ac.bus_vm_pu.end(), s.vm.begin());
  std::copy(s.ac.bus_va_deg.begin(), s.ac.bus_va_deg.end(), s.va_deg.begin());
  dark_buses(s);
  s.ac_valid = true;
  ac_costs(c, s.ac.branch_pf_mw, s.ac.branch_qf_mvar, s.ac.branch_pt_mw, s.ac.branch_qt_mvar,
           s.ac.bus_vm_pu, out);
  return out;
}

TransGrid::AcCosts TransGrid::ac_opf_dispatch(GridState& s, const std::vector<double>& p,
                                              const std::vector<double>& q) const {
  thread_local grid::AcOpfResult r;
  solve_ac_opf(s, p, q, r);
  AcCosts out;
  out.ok = r.ok();
  if (!out.ok) return out;
  const grid::Case& c = step_case(s);
  for (int u = 0; u < n_units(); ++u)
    s.p_mw[u] = c.gen[unit_gen_[u]].status > 0 ? r.gen_pg_mw[unit_gen_[u]] : 0.0;
  std::copy(r.branch_pf_mw.begin(), r.branch_pf_mw.end(), s.flow_mw.begin());
  std::copy(r.branch_qf_mvar.begin(), r.branch_qf_mvar.end(), s.qflow_mvar.begin());
  std::copy(r.bus_vm_pu.begin(), r.bus_vm_pu.end(), s.vm.begin());
  std::copy(r.bus_va_deg.begin(), r.bus_va_deg.end(), s.va_deg.begin());
  dark_buses(s);
  s.ac_valid = true;
  out.opf_cost = r.objective;
  ac_costs(c, r.branch_pf_mw, r.branch_qf_mvar, r.branch_pt_mw, r.branch_qt_mvar, r.bus_vm_pu, out);
  return out;
}

// A bus de-energized by the outages is type 4 in the edited case, which the AC solvers report at
// the case's VM; `grid acpf --out-of-service` reports such an island at Vm = 0, and so does the
// observation (the next solve starts it at 1 p.u. if it is back).
void TransGrid::dark_buses(GridState& s) const {
  if (!outages_.active()) return;
  const OutageNet& n = outage_net(s);
  for (size_t b = 0; b < n.dead.size(); ++b)
    if (n.dead[b]) s.vm[b] = s.va_deg[b] = 0.0;
}

void TransGrid::solve_ac_opf(GridState& s, const std::vector<double>& p,
                             const std::vector<double>& q, grid::AcOpfResult& r) const {
  if (!outages_.active()) {
    s.acopf->solve_into(p, q, {}, r);
    return;
  }
  thread_local std::vector<double> pd, qd;  // de-energized buses: no load
  const grid::Case& c = step_case(s);
  if (outage_net(s).n_refs == 0) {  // nothing energized: nothing to dispatch, nothing served
    r = grid::dark_acopf(c);
    return;
  }
  pd = p;
  qd = q;
  for (int b = 0; b < c.n_bus(); ++b)
    if (c.bus[b].type == 4) pd[b] = qd[b] = 0;
  step_acopf(s).solve_into(pd, qd, {}, r);
}

// The reset dispatch's AC power flow from the case's start (the observation's flows and Vm);
// if it does not converge the DC flows and Vm = 1 stand in.
void TransGrid::reset_ac(GridState& s, int64_t k, const std::vector<double>& load) const {
  thread_local std::vector<double> q;
  bus_qload(k, q);
  std::fill(s.vm.begin(), s.vm.end(), 1.0);
  std::fill(s.va_deg.begin(), s.va_deg.end(), 0.0);
  std::fill(s.qflow_mvar.begin(), s.qflow_mvar.end(), 0.0);
  s.ac_valid = false;
  if (s.acopf) s.acopf->reset_warm_start();
  const std::vector<double> p_dc = s.p_mw;
  if (!ac_power_flow(s, load, q, false).ok) s.p_mw = p_dc;
}

Step TransGrid::step_ac(GridState& s, std::span<const float> action, core::Rng& rng,
                        std::span<float> obs, std::span<float> costs, Info* info) const {
  thread_local std::vector<double> load, q;
  const int64_t k = profile_index(s, s.t);
  bus_load(k, load);
  bus_qload(k, q);
  bool dispatch_failed = false;
  AcCosts ac;
  s.unserved_mw = 0;
  if (outages_.active()) {
    const grid::Case& c = step_case(s);
    for (int b = 0; b < c.n_bus(); ++b)
      if (c.bus[b].type == 4) s.unserved_mw += load[b];
  }
  if (p_.solver == Solver::kAcOpf) {
    ac = ac_opf_dispatch(s, load, q);
  } else {
    grid::DcOpfResult dc;
    if (p_.opf_dispatch) dc = solve_dc_opf(s, load);
    if (p_.opf_dispatch && dc.ok()) {
      for (int u = 0; u < n_units(); ++u) s.p_mw[u] = dc.gen_pg_mw[unit_gen_[u]];
    } else {
      dispatch_failed = p_.opf_dispatch;
      for (int u = 0; u < n_units(); ++u) {  // a failed OPF step ignores the action too (step())
        const double a =
            p_.opf_dispatch ? 0.0 : std::clamp(static_cast<double>(action[u]), -1.0, 1.0);
        s.p_mw[u] = unit_on(s, u) ? 0.5 * (pmin_[u] + pmax_[u]) + a * 0.5 * (pmax_[u] - pmin_[u])
                                  : 0.0;  // an out unit produces nothing, whatever the action
      }
    }
    ac = ac_power_flow(s, load, q, s.ac_valid);
  }
  if (!ac.ok) {  // collapsed: DC flows for the record, every bus at Vm = 0 for the cost
    if (outages_.active()) {
      const double unserved = s.unserved_mw;
      dc_flow_outages(s, load);
      s.unserved_mw = unserved;
    } else {
      dc_flow(load, s.p_mw, s.flow_mw);
    }
    std::fill(s.qflow_mvar.begin(), s.qflow_mvar.end(), 0.0);
    s.ac_valid = false;
    for (int b = 0; b < p_.grid_case.n_bus(); ++b)
      if (p_.grid_case.bus[b].type != 4) ac.voltage_pu += vmin_[b];
    ac.n_voltage = p_.grid_case.n_bus();
  }
  double opf_cost = ac.opf_cost;
  bool opf_ok = ac.ok;
  if (p_.report_opf_gap && p_.solver == Solver::kAcPf) {
    thread_local grid::AcOpfResult r;
    solve_ac_opf(s, load, q, r);
    opf_ok = r.ok();
    opf_cost = r.objective;
  }
  StepEnd e;
  e.thermal = ac.thermal_mva;
  e.voltage = ac.voltage_pu;
  e.n_violations = ac.n_thermal + ac.n_voltage;
  e.failed = !ac.ok || dispatch_failed;
  e.failed_unsafe = false;  // a failed solve counts every bus as a voltage violation already
  e.gap_ok = p_.report_opf_gap && opf_ok;
  e.gap_cost = opf_cost;
  return finish_step(s, e, rng, obs, costs, info);
}

}  // namespace pz::envs
