// AC power flow results: generator outputs after the solve (MATPOWER pfsoln), the Q-limit check
// of runpf (pf.enforce_q_lims = 1) and the MATPOWER-named result arrays.
#include <cmath>
#include <limits>
#include <numbers>

#include "powerzoo/grid/ac/acpf_impl.hpp"

namespace pz::grid {

namespace {
constexpr double kDeg = std::numbers::pi / 180.0;
constexpr double kEps = std::numeric_limits<double>::epsilon();
}  // namespace

// The bus's reactive output Q = Im(S)·base + QD goes to its gens: equally if it has one or the
// bus's total range is zero, else each gen gets Qmin + (Q − ΣQmin)/(ΣQmax − ΣQmin)·(its range),
// with infinite limits replaced by a proxy M (Σ over the bus of |Q/n| + finite |limits|).
void AcPowerFlow::Impl::pfsoln() {
  const double base = c.base_mva;
  for (int b = 0; b < nb; ++b) {
    if (bt[b] != AcBusType::kPv && bt[b] != AcBusType::kRef) continue;
    const int g0 = gens_ptr[b], g1 = gens_ptr[b + 1];
    if (g0 == g1) continue;
    const Complex s = v[b] * std::conj(cur[b]);
    const double qtot = s.imag() * base + qd[b];
    const int n = g1 - g0;
    if (n == 1) {
      qg[gens_at_bus[g0]] = qtot;
    } else {
      double m_proxy = 0;
      for (int k = g0; k < g1; ++k) {
        const Gen& gen = c.gen[gens_at_bus[k]];
        m_proxy += std::abs(qtot / n);
        if (std::isfinite(gen.qmax_mvar)) m_proxy += std::abs(gen.qmax_mvar);
        if (std::isfinite(gen.qmin_mvar)) m_proxy += std::abs(gen.qmin_mvar);
      }
      auto lim = [&](double q) { return std::isinf(q) ? (q > 0 ? m_proxy : -m_proxy) : q; };
      double sum_min = 0, sum_max = 0;
      for (int k = g0; k < g1; ++k) {
        sum_min += lim(c.gen[gens_at_bus[k]].qmin_mvar);
        sum_max += lim(c.gen[gens_at_bus[k]].qmax_mvar);
      }
      const bool zero_range = std::abs(sum_min - sum_max) < 10 * kEps;
      for (int k = g0; k < g1; ++k) {
        const Gen& gen = c.gen[gens_at_bus[k]];
        const double lo = lim(gen.qmin_mvar), hi = lim(gen.qmax_mvar);
        qg[gens_at_bus[k]] = zero_range
                                 ? lo + (qtot - sum_min) / n
                                 : lo + (qtot - sum_min) / (sum_max - sum_min + kEps) * (hi - lo);
      }
    }
    if (bt[b] == AcBusType::kRef) {
      double others = 0;
      for (int k = g0 + 1; k < g1; ++k) others += pg[gens_at_bus[k]];
      pg[gens_at_bus[g0]] = s.real() * base + pd[b] - others;
    }
  }
}

bool AcPowerFlow::Impl::enforce_q_limits(const AcPfOptions& opt, bool& infeasible) {
  infeasible = false;
  thread_local std::vector<int> mx, mn, remaining;
  mx.clear();
  mn.clear();
  remaining.clear();
  for (int g = 0; g < ng; ++g) {
    if (!gen_in[g]) continue;
    const AcBusType t = bt[c.gen_bus_idx[g]];
    const bool exempt = !opt.q_lims_at_ref && t == AcBusType::kRef;
    if (t == AcBusType::kOff || exempt) continue;
    if (t == AcBusType::kPv || t == AcBusType::kRef) remaining.push_back(g);
    if (qg[g] > c.gen[g].qmax_mvar + opt.q_lim_tol_mvar) mx.push_back(g);
    if (qg[g] < c.gen[g].qmin_mvar - opt.q_lim_tol_mvar) mn.push_back(g);
  }
  if (mx.empty() && mn.empty()) return false;
  // MATPOWER's infeasibility test: every remaining PV/REF gen violates, all the same limit.
  if ((mx.empty() || mn.empty()) && (mx.empty() ? mn : mx) == remaining) {
    infeasible = true;
    return true;
  }
  for (int g : mx) qg[g] = c.gen[g].qmax_mvar;
  for (int g : mn) qg[g] = c.gen[g].qmin_mvar;
  for (const auto* list : {&mx, &mn})
    for (int g : *list) {
      type[c.gen_bus_idx[g]] = 1;
      limited.push_back(g);
    }
  return true;
}

void AcPowerFlow::Impl::write_result(AcPfResult& out) const {
  const double base = c.base_mva;
  out.bus_vm_pu.resize(nb);
  out.bus_va_deg.resize(nb);
  out.n_dead_buses = 0;
  for (int b = 0; b < nb; ++b) {
    if (!net.bus_on()[b]) {  // type 4: kept as in the case (MATPOWER int2ext)
      out.bus_vm_pu[b] = c.bus[b].vm_pu;
      out.bus_va_deg[b] = c.bus[b].va_deg;
    } else if (bt[b] == AcBusType::kOff) {
      out.bus_vm_pu[b] = 0;
      out.bus_va_deg[b] = 0;
      ++out.n_dead_buses;
    } else {
      out.bus_vm_pu[b] = vm[b];
      out.bus_va_deg[b] = va[b] / kDeg;
    }
  }
  out.branch_pf_mw.assign(nl, 0.0);
  out.branch_qf_mvar.assign(nl, 0.0);
  out.branch_pt_mw.assign(nl, 0.0);
  out.branch_qt_mvar.assign(nl, 0.0);
  out.total_losses_mw = 0;
  for (int l = 0; l < nl; ++l) {
    if (!net.branch_on()[l]) continue;
    const int f = c.branch_from_idx[l], t = c.branch_to_idx[l];
    const BranchAdmittance& y = net.branch_y()[l];
    const Complex sf = v[f] * std::conj(y.yff * v[f] + y.yft * v[t]) * base;
    const Complex st = v[t] * std::conj(y.ytf * v[f] + y.ytt * v[t]) * base;
    out.branch_pf_mw[l] = sf.real();
    out.branch_qf_mvar[l] = sf.imag();
    out.branch_pt_mw[l] = st.real();
    out.branch_qt_mvar[l] = st.imag();
    out.total_losses_mw += sf.real() + st.real();
  }
  out.gen_pg_mw.resize(ng);
  out.gen_qg_mvar.resize(ng);
  for (int g = 0; g < ng; ++g) {
    const bool live = gen_in[g] && bt[c.gen_bus_idx[g]] != AcBusType::kOff;
    out.gen_pg_mw[g] = live ? pg[g] : 0.0;
    out.gen_qg_mvar[g] = live ? qg[g] : 0.0;
  }
  out.n_islands = net.n_islands();
  out.q_limited_gens = limited;
}

}  // namespace pz::grid
