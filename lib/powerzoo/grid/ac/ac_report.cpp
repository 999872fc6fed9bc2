// Formatting of AC power-flow and AC-OPF results as JSON (MATPOWER field names) or text tables.
#include "powerzoo/grid/ac/ac_report.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "powerzoo/grid/ac/acopf.hpp"

namespace pz::grid {

namespace {

template <typename... Args>
std::string fmt(const char* f, Args... args) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, f, args...);
  return std::string(buf, n > 0 ? std::min<size_t>(n, sizeof buf - 1) : 0);
}

double at(const std::vector<double>& v, size_t k) { return k < v.size() ? v[k] : 0.0; }

/// The case's id columns (bus ids, branch ends, gen buses) into j.
void ids(const Case& c, nlohmann::ordered_json& j, const char* which) {
  std::vector<int> v;
  if (std::string(which) == "bus") {
    for (const Bus& b : c.bus) v.push_back(b.id);
    j["bus_id"] = v;
  } else if (std::string(which) == "branch") {
    std::vector<int> to;
    for (const Branch& br : c.branch) {
      v.push_back(br.from);
      to.push_back(br.to);
    }
    j["branch_from"] = v;
    j["branch_to"] = to;
  } else {
    for (const Gen& g : c.gen) v.push_back(g.bus);
    j["gen_bus"] = v;
  }
}

/// Branch table shared by both reports: flows at both ends and |S| loading against RATE_A.
std::string branch_table(const Case& c, const std::vector<double>& pf,
                         const std::vector<double>& qf, const std::vector<double>& pt,
                         const std::vector<double>& qt) {
  std::string out = "\nBranches\n";
  out += fmt("%5s %6s %6s %7s %12s %12s %12s %12s %10s\n", "row", "from", "to", "status", "Pf (MW)",
             "Qf (MVAr)", "Pt (MW)", "Qt (MVAr)", "loading");
  for (size_t k = 0; k < c.branch.size(); ++k) {
    const Branch& br = c.branch[k];
    const double s = std::max(std::hypot(at(pf, k), at(qf, k)), std::hypot(at(pt, k), at(qt, k)));
    const std::string loading =
        br.rate_a_mva > 0 ? fmt("%9.1f%%", 100.0 * s / br.rate_a_mva) : std::string("-");
    out += fmt("%5zu %6d %6d %7d %12.4f %12.4f %12.4f %12.4f %10s\n", k + 1, br.from, br.to,
               br.status, at(pf, k), at(qf, k), at(pt, k), at(qt, k), loading.c_str());
  }
  return out;
}

}  // namespace

std::string acpf_report(const Case& c, const AcPfResult& r, bool json) {
  const size_t nb = c.bus.size(), ng = c.gen.size();
  std::vector<int> limited;
  for (int g : r.q_limited_gens) limited.push_back(g + 1);
  if (json) {
    nlohmann::ordered_json j;
    j["case"] = c.name;
    j["success"] = r.success;
    j["status"] = to_string(r.status);
    j["iterations"] = r.iterations;
    j["max_mismatch_pu"] = r.max_mismatch_pu;
    ids(c, j, "bus");
    j["bus_vm_pu"] = r.bus_vm_pu;
    j["bus_va_deg"] = r.bus_va_deg;
    ids(c, j, "branch");
    j["branch_pf_mw"] = r.branch_pf_mw;
    j["branch_qf_mvar"] = r.branch_qf_mvar;
    j["branch_pt_mw"] = r.branch_pt_mw;
    j["branch_qt_mvar"] = r.branch_qt_mvar;
    ids(c, j, "gen");
    j["gen_pg_mw"] = r.gen_pg_mw;
    j["gen_qg_mvar"] = r.gen_qg_mvar;
    j["total_losses_mw"] = r.total_losses_mw;
    j["n_islands"] = r.n_islands;
    j["n_dead_buses"] = r.n_dead_buses;
    j["q_limited_gens"] = limited;
    return j.dump() + "\n";
  }
  std::string out =
      fmt("AC power flow (Newton-Raphson): %s (%zu buses, %zu branches, %zu gens, baseMVA %g) %s\n",
          c.name.c_str(), nb, c.branch.size(), ng, c.base_mva,
          r.success ? "converged" : "NOT converged");
  out += fmt("status %s after %d iterations, max mismatch %.3e p.u.; losses %.6f MW\n",
             to_string(r.status), r.iterations, r.max_mismatch_pu, r.total_losses_mw);
  out += fmt("islands %d, de-energized buses %d", r.n_islands, r.n_dead_buses);
  std::string ql;
  for (int g : limited) ql += (ql.empty() ? "" : ", ") + std::to_string(g);
  out += "; gens at a Q limit (rows): " + (ql.empty() ? std::string("none") : ql) + "\n\nBuses\n";
  out += fmt("%6s %4s %12s %12s %12s %12s\n", "bus", "type", "Pd (MW)", "Qd (MVAr)", "Vm (pu)",
             "Va (deg)");
  for (size_t k = 0; k < nb; ++k) {
    const Bus& b = c.bus[k];
    out += fmt("%6d %4d %12.4f %12.4f %12.6f %12.6f\n", b.id, b.type, b.pd_mw, b.qd_mvar,
               at(r.bus_vm_pu, k), at(r.bus_va_deg, k));
  }
  out += branch_table(c, r.branch_pf_mw, r.branch_qf_mvar, r.branch_pt_mw, r.branch_qt_mvar);
  out += "\nGenerators\n";
  out += fmt("%5s %6s %7s %12s %12s %12s %12s\n", "row", "bus", "status", "Pg (MW)", "Qg (MVAr)",
             "Qmin (MVAr)", "Qmax (MVAr)");
  for (size_t k = 0; k < ng; ++k) {
    const Gen& g = c.gen[k];
    out += fmt("%5zu %6d %7d %12.4f %12.4f %12.4f %12.4f\n", k + 1, g.bus, g.status,
               at(r.gen_pg_mw, k), at(r.gen_qg_mvar, k), g.qmin_mvar, g.qmax_mvar);
  }
  return out;
}

std::string acopf_report(const Case& c, const AcOpfResult& r, bool json) {
  const size_t nb = c.bus.size(), ng = c.gen.size();
  if (json) {
    nlohmann::ordered_json j;
    j["case"] = c.name;
    j["success"] = r.ok();
    j["status"] = to_string(r.status);
    if (!r.ok()) j["message"] = r.message;
    j["objective"] = r.objective;
    j["iterations"] = r.iterations;
    ids(c, j, "bus");
    j["bus_vm_pu"] = r.bus_vm_pu;
    j["bus_va_deg"] = r.bus_va_deg;
    j["bus_lam_p"] = r.bus_lam_p;
    j["bus_lam_q"] = r.bus_lam_q;
    j["bus_mu_vmax"] = r.bus_mu_vmax;
    j["bus_mu_vmin"] = r.bus_mu_vmin;
    ids(c, j, "gen");
    j["gen_pg_mw"] = r.gen_pg_mw;
    j["gen_qg_mvar"] = r.gen_qg_mvar;
    j["gen_mu_pmax"] = r.gen_mu_pmax;
    j["gen_mu_pmin"] = r.gen_mu_pmin;
    j["gen_mu_qmax"] = r.gen_mu_qmax;
    j["gen_mu_qmin"] = r.gen_mu_qmin;
    ids(c, j, "branch");
    j["branch_pf_mw"] = r.branch_pf_mw;
    j["branch_qf_mvar"] = r.branch_qf_mvar;
    j["branch_pt_mw"] = r.branch_pt_mw;
    j["branch_qt_mvar"] = r.branch_qt_mvar;
    j["branch_mu_sf"] = r.branch_mu_sf;
    j["branch_mu_st"] = r.branch_mu_st;
    j["total_losses_mw"] = r.total_losses_mw;
    return j.dump() + "\n";
  }
  std::string out =
      fmt("AC optimal power flow (Ipopt): %s (%zu buses, %zu branches, %zu gens, baseMVA %g) %s\n",
          c.name.c_str(), nb, c.branch.size(), ng, c.base_mva, r.ok() ? "optimal" : "FAILED");
  if (!r.ok()) return out + fmt("status %s: %s\n", to_string(r.status), r.message.c_str());
  out += fmt("objective %.6f $/h after %d iterations; losses %.6f MW\n\nBuses\n", r.objective,
             r.iterations, r.total_losses_mw);
  out += fmt("%6s %4s %12s %12s %12s %14s %14s\n", "bus", "type", "Pd (MW)", "Vm (pu)", "Va (deg)",
             "LMP P ($/MWh)", "LMP Q");
  for (size_t k = 0; k < nb; ++k) {
    const Bus& b = c.bus[k];
    out += fmt("%6d %4d %12.4f %12.6f %12.6f %14.6f %14.6f\n", b.id, b.type, b.pd_mw,
               r.bus_vm_pu[k], r.bus_va_deg[k], r.bus_lam_p[k], r.bus_lam_q[k]);
  }
  out += branch_table(c, r.branch_pf_mw, r.branch_qf_mvar, r.branch_pt_mw, r.branch_qt_mvar);
  out += "\nGenerators\n";
  out += fmt("%5s %6s %7s %12s %12s %12s %12s\n", "row", "bus", "status", "Pg (MW)", "Qg (MVAr)",
             "Pmin (MW)", "Pmax (MW)");
  for (size_t k = 0; k < ng; ++k) {
    const Gen& g = c.gen[k];
    out += fmt("%5zu %6d %7d %12.4f %12.4f %12.4f %12.4f\n", k + 1, g.bus, g.status, r.gen_pg_mw[k],
               r.gen_qg_mvar[k], g.pmin_mw, g.pmax_mw);
  }
  return out;
}

}  // namespace pz::grid
