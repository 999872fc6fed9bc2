// AC results of a network with nothing energized (see ac_dark.hpp).
#include "powerzoo/grid/ac/ac_dark.hpp"

#include <algorithm>

namespace pz::grid {

bool nothing_energized(const Case& energized) {
  return std::none_of(energized.bus.begin(), energized.bus.end(),
                      [](const Bus& b) { return b.type != 4; });
}

AcPfResult dark_acpf(const Case& c) {
  AcPfResult r;
  r.status = AcPfStatus::kConverged;
  r.success = true;
  const size_t nb = c.n_bus(), nl = c.n_branch(), ng = c.n_gen();
  r.bus_vm_pu.assign(nb, 0.0);
  r.bus_va_deg.assign(nb, 0.0);
  for (auto* v : {&r.branch_pf_mw, &r.branch_qf_mvar, &r.branch_pt_mw, &r.branch_qt_mvar})
    v->assign(nl, 0.0);
  r.gen_pg_mw.assign(ng, 0.0);
  r.gen_qg_mvar.assign(ng, 0.0);
  return r;
}

AcOpfResult dark_acopf(const Case& c) {
  AcOpfResult r;
  r.status = AcOpfStatus::kOptimal;
  const size_t nb = c.n_bus(), nl = c.n_branch(), ng = c.n_gen();
  for (auto* v :
       {&r.bus_vm_pu, &r.bus_va_deg, &r.bus_lam_p, &r.bus_lam_q, &r.bus_mu_vmax, &r.bus_mu_vmin})
    v->assign(nb, 0.0);
  for (auto* v : {&r.gen_pg_mw, &r.gen_qg_mvar, &r.gen_mu_pmax, &r.gen_mu_pmin, &r.gen_mu_qmax,
                  &r.gen_mu_qmin})
    v->assign(ng, 0.0);
  for (auto* v : {&r.branch_pf_mw, &r.branch_qf_mvar, &r.branch_pt_mw, &r.branch_qt_mvar,
                  &r.branch_mu_sf, &r.branch_mu_st})
    v->assign(nl, 0.0);
  return r;
}

}  // namespace pz::grid
