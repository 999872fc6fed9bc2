// DC-OPF flows: the fixed injections' flows (from loads or scaled reference loads) and the
// flows of a dispatch through the PTDF columns at the gen buses.
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/dc/column_axpy.hpp"
#include "powerzoo/grid/dc/dcopf_impl.hpp"

namespace pz::grid {

// Demand and the flow of the fixed injections (loads, shunts, phase shifters) on every
// in-service branch, from loads pd or from factor × the reference loads (pd null).
void DcOpf::Impl::fixed_flows(const std::vector<double>* pd, double factor) {
  base_flow.assign(nl, 0.0);
  if (!pd) {
    demand_ = factor * ref_demand + gs_demand;
    for (int l = 0; l < nl; ++l) base_flow[l] = factor * ref_flow[l] + off_flow[l];
    return;
  }
  inj.resize(nb);
  double demand = 0;
  for (int k = 0; k < nb; ++k) {
    demand += (*pd)[k] + c.bus[k].gs_mw;
    inj[k] = -(*pd)[k] - c.bus[k].gs_mw - pbusinj[k];
  }
  demand_ = demand;
  for (int l = 0; l < nl; ++l)
    if (b[l] != 0.0) base_flow[l] = ptdf.branch_flow(l, inj.data(), pfinj[l]);
}

void DcOpf::Impl::set_reference_loads(const std::vector<double>& pd) {
  if (static_cast<int>(pd.size()) != nb)
    throw core::ConfigError("DcOpf: expected " + std::to_string(nb) +
                            " reference bus loads, found " + std::to_string(pd.size()));
  ref_pd = pd;  // set_branch_outage recomputes the flows on its PTDF
  ref_flow.assign(nl, 0.0);
  off_flow.assign(nl, 0.0);
  std::vector<double> load(nb), fixed(nb);
  ref_demand = gs_demand = 0;
  for (int k = 0; k < nb; ++k) {
    ref_demand += pd[k];
    gs_demand += c.bus[k].gs_mw;
    load[k] = -pd[k];
    fixed[k] = -c.bus[k].gs_mw - pbusinj[k];
  }
  for (int l = 0; l < nl; ++l) {
    if (b[l] == 0.0) continue;
    ref_flow[l] = ptdf.branch_flow(l, load.data());
    off_flow[l] = ptdf.branch_flow(l, fixed.data(), pfinj[l]);
  }
}

/// out[l] = base_flow[l] + Σ_j PTDF[l, bus_j]·x[j] for every branch (0 out of service); the
/// balance slack sits at the reference bus, whose PTDF column is zero.
void DcOpf::Impl::flows_at(const double* x, double* out) const {
  for (int l = 0; l < nl; ++l) out[l] = base_flow[l];
  add_columns(gmat.data(), static_cast<size_t>(nl), x, static_cast<int>(on_gens.size()), out, nl);
}

}  // namespace pz::grid
