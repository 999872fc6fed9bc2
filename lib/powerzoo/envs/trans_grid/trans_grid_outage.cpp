// TransGrid under outages (DC agent dispatch): the network of each step's element status solved
// exactly. One branch out (not a bridge, not a phase shifter) is the base PTDF flow plus a rank-one
// LODF update, post-outage flow F'_l = F_l + LODF[l, k]·F_k (Wood & Wollenberg, "Power
// Generation, Operation, and Control", 2nd ed., §11.3), which costs O(n_branch) on top of a
// normal step; generator outages that leave a unit at the slack bus keep the base PTDF (the
// network is unchanged). Everything else (several branches, a bridge, the slack bus's last unit)
// is a DC power flow of the edited case (islands as MATPOWER reads them, an island without a
// generator de-energized and its load counted as unserved): the PTDF of the edited network when
// one island keeps generators (cached per outage set, trans_grid_outage_net.cpp), grid::run_dcpf
// when several do.
#include <algorithm>

#include "powerzoo/envs/network_view.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dc.hpp"

namespace pz::envs {

void TransGrid::setup_outages(const grid::Case& c) {
  outages_ = OutageProcess(p_.outages, c, p_.horizon);
  if (!outages_.active()) return;
  if (outages_.tracks_branches()) lodf_.emplace(c);
  if (p_.opf_dispatch || (p_.report_opf_gap && !ac())) {
    std::vector<int> dead;
    const grid::Case e = grid::energize(opf_case_, &dead);
    int n_refs = 0;
    for (const auto& b : e.bus) n_refs += b.type == 3;
    opf_by_lodf_ = dead.empty() && n_refs == 1 && e.ref_bus_idx == opf_case_.ref_bus_idx;
  }
  const int nl = c.n_branch(), nu = n_units();
  // Appended after time_of_day, so every field of the env without outages keeps its offset.
  // The traces always carry the tracked kinds; the observation unless outage_status_obs = false.
  if (outages_.observes_branches()) {
    spec_.obs_fields.push_back({"branch_status", {spec_.obs_dim, nl}});
    spec_.obs_dim += nl;
  }
  if (outages_.observes_gens()) {
    spec_.obs_fields.push_back({"gen_status", {spec_.obs_dim, nu}});
    spec_.obs_dim += nu;
  }
  if (outages_.tracks_branches()) spec_.trace_vectors.push_back({"branch_status", nl});
  if (outages_.tracks_gens()) spec_.trace_vectors.push_back({"gen_status", nu});
  spec_.cost_names.push_back("unserved_load");
}

void TransGrid::observe_outages(const GridState& s, std::span<float> obs, size_t k) const {
  if (outages_.observes_branches())
    for (uint8_t on : s.out.branch_on) obs[k++] = on;
  if (outages_.observes_gens())
    for (int u = 0; u < n_units(); ++u) obs[k++] = s.out.gen_on[unit_gen_[u]];
}

int TransGrid::trace_outages(const GridState& s, std::span<float> out, int o) const {
  if (outages_.tracks_branches())
    for (uint8_t on : s.out.solved_branch_on) out[o++] = on;
  if (outages_.tracks_gens())
    for (int u = 0; u < n_units(); ++u) out[o++] = s.out.solved_gen_on[unit_gen_[u]];
  return o;
}

// A bridge k out: the buses S cut off from the reference's side form an island. If S has a PV bus
// with a unit in service (MATPOWER's bustypes: the first one becomes S's reference, and the first
// unit at it takes S's mismatch, as run_dcpf), that unit balances S; otherwise S is de-energized
// (its units produce nothing, its load is unserved). Either way S's net injection is zero, so the
// intact network carries nothing over k and its flows are those of the network without k: one
// PTDF pass, the cost of a normal step.
void TransGrid::bridge_flows(GridState& s, const std::vector<double>& load, int k,
                             const std::vector<double>& share) const {
  const grid::Case& c = p_.grid_case;
  const std::vector<int>& cut = lodf_->cut_buses(k);  // ascending
  thread_local std::vector<char> in_cut;
  thread_local std::vector<double> ld;
  in_cut.assign(c.n_bus(), 0);
  for (int b : cut) in_cut[b] = 1;
  int ref_unit = -1;
  for (int b : cut) {
    if (c.bus[b].type != 2) continue;
    for (int u = 0; u < n_units() && ref_unit < 0; ++u)
      if (unit_bus_[u] == b && unit_on(s, u)) ref_unit = u;
    if (ref_unit >= 0) break;
  }
  ld = load;
  double mismatch = 0;
  for (int b : cut) mismatch += load[b];
  for (int u = 0; u < n_units(); ++u)
    if (in_cut[unit_bus_[u]]) {
      if (ref_unit < 0) s.p_mw[u] = 0;  // de-energized with its bus
      mismatch -= s.p_mw[u];
    }
  if (ref_unit >= 0) {
    s.p_mw[ref_unit] += mismatch;
  } else {
    for (int b : cut) {
      s.unserved_mw += load[b];
      ld[b] = 0;
    }
  }
  ptdf_.unit_flows(unit_bus_, share, ld, s.p_mw, s.flow_mw);
  for (size_t l = 0; l < shift_flow_.size(); ++l) s.flow_mw[l] += shift_flow_[l];
  s.flow_mw[k] = 0;
  if (ref_unit < 0)  // branches of a de-energized island are out (energize)
    for (int l = 0; l < c.n_branch(); ++l)
      if (in_cut[c.branch_from_idx[l]] || in_cut[c.branch_to_idx[l]]) s.flow_mw[l] = 0;
}

void TransGrid::dc_flow_outages(GridState& s, const std::vector<double>& load) const {
  const grid::Case& c = p_.grid_case;
  const int nl = c.n_branch(), nu = n_units();
  s.unserved_mw = 0;
  int n_out = 0, k_out = -1;
  for (int l = 0; l < nl; ++l)
    if (c.branch[l].status > 0 && !s.out.branch_on[l]) ++n_out, k_out = l;
  // The slack bus's units that are still in service share the imbalance.
  thread_local std::vector<double> share;
  share.assign(nu, 0.0);
  int n_slack = 0;
  for (int u = 0; u < nu; ++u) n_slack += slack_share_[u] > 0 && unit_on(s, u);
  for (int u = 0; u < nu; ++u)
    if (slack_share_[u] > 0 && unit_on(s, u)) share[u] = 1.0 / n_slack;
  const bool shifter = k_out >= 0 && c.branch[k_out].shift_deg != 0.0;
  // The env's slack is the case's reference bus unless a test moved it (slack_bus_idx): then
  // only the intact network keeps the env's own convention.
  const bool own_slack = p_.slack_bus_idx == c.ref_bus_idx;
  if (n_slack > 0 && n_out == 1 && !shifter && own_slack && lodf_->islands(k_out)) {
    bridge_flows(s, load, k_out, share);
    return;
  }
  if (n_slack > 0 && n_out <= 1 && !shifter && (n_out == 0 || !lodf_->islands(k_out)) &&
      (own_slack || n_out == 0)) {
    ptdf_.unit_flows(unit_bus_, share, load, s.p_mw, s.flow_mw);
    for (size_t l = 0; l < shift_flow_.size(); ++l) s.flow_mw[l] += shift_flow_[l];
    if (k_out >= 0) {
      const double fk = s.flow_mw[k_out];
      const double* col = lodf_->column(k_out);
      for (int l = 0; l < nl; ++l) s.flow_mw[l] += col[l] * fk;
      s.flow_mw[k_out] = 0;
    }
    return;
  }
  // One energized island with a generator: the PTDF of the edited network, factored once per
  // outage set (a long multi-branch outage then costs a normal step).
  if (cached_dc_flows(s, load)) return;
  // Several islands with generators: the edited case with the step's loads and dispatch (no bus
  // shunt conductance: the env's loads are PD only, as in its PTDF flows).
  grid::Case e = c;
  for (int l = 0; l < nl; ++l)
    if (!s.out.branch_on[l]) e.branch[l].status = 0;
  for (int g = 0; g < c.n_gen(); ++g) {
    if (!s.out.gen_on[g]) e.gen[g].status = 0;
    e.gen[g].pg_mw = 0;
  }
  for (int u = 0; u < nu; ++u) e.gen[unit_gen_[u]].pg_mw = s.p_mw[u];
  for (int b = 0; b < c.n_bus(); ++b) {
    e.bus[b].pd_mw = load[b];
    e.bus[b].gs_mw = 0;
  }
  const grid::DcPfResult r = grid::run_dcpf(e);
  if (!r.success) {  // no gen left anywhere: nothing is served, nothing flows
    std::fill(s.flow_mw.begin(), s.flow_mw.end(), 0.0);
    for (double v : load) s.unserved_mw += v;
    return;
  }
  s.flow_mw = r.branch_pf_mw;
  for (int u = 0; u < nu; ++u) s.p_mw[u] = unit_on(s, u) ? r.gen_pg_mw[unit_gen_[u]] : 0.0;
  for (int b : r.dead_buses) s.unserved_mw += load[b];
}

}  // namespace pz::envs
