// TransGrid's solvers of the current outage set: the edited case read by MATPOWER's rules
// (grid::energize: each island with an in-service generator gets its own reference, an island
// without one is de-energized), built when a step's set differs from the previous step's and kept
// in the env state, so a long outage costs one factorization (PTDF, DC-OPF model, AC Jacobian
// pattern) and then normal steps. The DC-OPF is solved per energized island, as MATPOWER's
// rundcopf does with its per-bus balance (each island balances its own load).
#include "powerzoo/envs/trans_grid/trans_grid_outage_net.hpp"

#include "powerzoo/envs/outages.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/island_dcopf.hpp"

namespace pz::envs {

OutageNet& TransGrid::outage_net(GridState& s) const {
  if (s.net && s.net->branch_on == s.out.branch_on && s.net->gen_on == s.out.gen_on) return *s.net;
  auto n = std::make_shared<OutageNet>();
  n->branch_on = s.out.branch_on;
  n->gen_on = s.out.gen_on;
  // The env's unit limits where the OPF modes set them (opf_case_); the flows do not read them.
  const grid::Case& c = opf_case_.n_bus() > 0 ? opf_case_ : p_.grid_case;
  std::vector<int> dead;
  n->net = outage_case(c, n->branch_on, n->gen_on, &dead);
  n->dead.assign(c.n_bus(), 0);
  for (int b : dead) n->dead[b] = 1;
  for (const auto& b : n->net.bus) n->n_refs += b.type == 3;
  s.net = std::move(n);
  return *s.net;
}

// The first in-service unit at the REF bus takes the imbalance, as grid::run_dcpf's first
// in-service gen at each reference bus (units are in case gen-row order).
void TransGrid::build_outage_ptdf(OutageNet& n) const {
  const grid::Case& c = n.net;
  n.ptdf = grid::PtdfFlow(c, c.ref_bus_idx);
  n.shift_flow = shifter_flows(c, n.ptdf);
  n.share.assign(n_units(), 0.0);
  for (int u = 0; u < n_units(); ++u)
    if (unit_bus_[u] == c.ref_bus_idx && c.gen[unit_gen_[u]].status > 0) {
      n.share[u] = 1.0;
      break;
    }
  n.ptdf_built = true;
}

bool TransGrid::cached_dc_flows(GridState& s, const std::vector<double>& load) const {
  // Each env state keeps its own PTDF [n_branch x n_bus]: beyond 32 MB (case2383-sized
  // networks), a DC power flow per step instead of that much memory per env.
  constexpr size_t kMaxCachedPtdf = size_t{1} << 22;
  const grid::Case& c = p_.grid_case;
  if (static_cast<size_t>(c.n_branch()) * c.n_bus() > kMaxCachedPtdf) return false;
  OutageNet& n = outage_net(s);
  if (n.n_refs != 1) return false;  // several islands with generators: grid::run_dcpf
  if (!n.ptdf_built) build_outage_ptdf(n);
  thread_local std::vector<double> ld;
  ld = load;
  for (int b = 0; b < c.n_bus(); ++b)
    if (n.dead[b]) {
      s.unserved_mw += load[b];
      ld[b] = 0;
    }
  for (int u = 0; u < n_units(); ++u)
    if (n.net.gen[unit_gen_[u]].status <= 0) s.p_mw[u] = 0;  // out, or on a de-energized bus
  n.ptdf.unit_flows(unit_bus_, n.share, ld, s.p_mw, s.flow_mw);
  for (size_t l = 0; l < n.shift_flow.size(); ++l) s.flow_mw[l] += n.shift_flow[l];
  return true;
}

int TransGrid::opf_lodf_branch(const GridState& s) const {
  if (!opf_by_lodf_) return -2;
  const grid::Case& c = opf_case_;
  for (int g = 0; g < c.n_gen(); ++g)
    if (s.out.gen_on[g] != (c.gen[g].status > 0)) return -2;
  int k = -1;
  for (int l = 0; l < c.n_branch(); ++l)
    if (c.branch[l].status > 0 && !s.out.branch_on[l]) {
      if (k >= 0) return -2;
      k = l;
    }
  if (k >= 0 && (!lodf_ || lodf_->islands(k) || c.branch[k].shift_deg != 0.0)) return -2;
  return k;
}

// One branch out (or none): the env's own DC-OPF model updated by the branch's LODF column and
// re-solved warm (grid::DcOpf::set_branch_outage), equal to the edited case's model to rounding,
// at about the cost of an intact step; any other set: the edited case's models per island.
grid::DcOpfResult TransGrid::solve_dc_opf(GridState& s, const std::vector<double>& load) const {
  if (!outages_.active()) return s.opf->solve(load);
  const int k = opf_lodf_branch(s);
  if (k >= -1) {
    s.opf->set_branch_outage(k, k >= 0 ? lodf_->column(k) : nullptr);
    return s.opf->solve(load);
  }
  OutageNet& n = outage_net(s);
  if (!n.opf) n.opf = std::make_unique<grid::IslandDcOpf>(n.net);
  return n.opf->solve(load);  // the loads of de-energized buses are not served
}

const grid::Case& TransGrid::step_case(GridState& s) const {
  return outages_.active() ? outage_net(s).net : p_.grid_case;
}

grid::AcPowerFlow& TransGrid::step_acpf(GridState& s) const {
  if (!outages_.active()) return *s.acpf;
  OutageNet& n = outage_net(s);
  if (!n.acpf) n.acpf = std::make_unique<grid::AcPowerFlow>(n.net);
  return *n.acpf;
}

grid::AcOpf& TransGrid::step_acopf(GridState& s) const {
  if (!outages_.active()) return *s.acopf;
  OutageNet& n = outage_net(s);
  if (!n.acopf) n.acopf = std::make_unique<grid::AcOpf>(n.net);
  return *n.acopf;
}

}  // namespace pz::envs
