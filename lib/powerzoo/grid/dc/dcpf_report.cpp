// Formatting of a DC power-flow result as JSON (MATPOWER field names) or aligned text tables.
#include "powerzoo/grid/dc/dcpf_report.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "powerzoo/grid/dc/dcopf.hpp"

namespace pz::grid {

namespace {

/// printf-style formatting into a std::string.
template <typename... Args>
std::string fmt(const char* f, Args... args) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, f, args...);
  if (n < static_cast<int>(sizeof buf)) return std::string(buf, n > 0 ? n : 0);
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), f, args...);
  s.resize(static_cast<size_t>(n));
  return s;
}

double at(const std::vector<double>& v, size_t k) { return k < v.size() ? v[k] : 0.0; }

}  // namespace

std::string dcpf_report(const Case& c, const DcPfResult& r, bool json) {
  const size_t nb = c.bus.size(), nl = c.branch.size(), ng = c.gen.size();
  if (json) {
    nlohmann::ordered_json j;  // keeps the MATPOWER field order
    j["case"] = c.name;
    j["success"] = r.success;
    std::vector<int> bus_id(nb), from(nl), to(nl), gen_bus(ng);
    for (size_t k = 0; k < nb; ++k) bus_id[k] = c.bus[k].id;
    for (size_t k = 0; k < nl; ++k) {
      from[k] = c.branch[k].from;
      to[k] = c.branch[k].to;
    }
    for (size_t k = 0; k < ng; ++k) gen_bus[k] = c.gen[k].bus;
    j["bus_id"] = bus_id;
    j["bus_va_deg"] = r.bus_va_deg;
    j["branch_from"] = from;
    j["branch_to"] = to;
    j["branch_pf_mw"] = r.branch_pf_mw;
    j["gen_bus"] = gen_bus;
    j["gen_pg_mw"] = r.gen_pg_mw;
    std::vector<int> dead_bus;
    for (int k : r.dead_buses) dead_bus.push_back(c.bus[k].id);
    j["dead_bus"] = dead_bus;
    return j.dump() + "\n";
  }
  std::string out;
  double total_pg = 0, total_pd = 0, total_gs = 0;
  for (size_t k = 0; k < ng; ++k) total_pg += at(r.gen_pg_mw, k);
  for (const Bus& b : c.bus) {
    total_pd += b.pd_mw;
    total_gs += b.gs_mw;
  }
  out += fmt("DC power flow: %s (%zu buses, %zu branches, %zu gens, baseMVA %g) %s\n",
             c.name.c_str(), nb, nl, ng, c.base_mva, r.success ? "converged" : "FAILED");
  out += fmt("total PG %.4f MW, PD %.4f MW, GS %.4f MW\n", total_pg, total_pd, total_gs);
  if (!r.dead_buses.empty()) {  // MATPOWER leaves them dark; say so rather than drop the load
    std::string ids;
    double dead_pd = 0;
    for (int k : r.dead_buses) {
      ids += (ids.empty() ? "" : ", ") + std::to_string(c.bus[k].id);
      dead_pd += c.bus[k].pd_mw;
    }
    out +=
        fmt("de-energized (island without an in-service gen): bus %s, %.4f MW of PD not served\n",
            ids.c_str(), dead_pd);
  }
  out += "\n";

  out += "Buses\n";
  out += fmt("%6s %4s %12s %12s %12s\n", "bus", "type", "Pd (MW)", "Gs (MW)", "Va (deg)");
  for (size_t k = 0; k < nb; ++k) {
    const Bus& b = c.bus[k];
    out +=
        fmt("%6d %4d %12.4f %12.4f %12.6f\n", b.id, b.type, b.pd_mw, b.gs_mw, at(r.bus_va_deg, k));
  }
  out += "\nBranches\n";
  out += fmt("%5s %6s %6s %7s %12s %12s %10s\n", "row", "from", "to", "status", "Pf (MW)",
             "rateA (MVA)", "loading");
  for (size_t k = 0; k < nl; ++k) {
    const Branch& br = c.branch[k];
    const double pf = at(r.branch_pf_mw, k);
    const std::string loading =
        br.rate_a_mva > 0 ? fmt("%9.1f%%", 100.0 * std::abs(pf) / br.rate_a_mva) : std::string("-");
    out += fmt("%5zu %6d %6d %7d %12.4f %12.1f %10s\n", k + 1, br.from, br.to, br.status, pf,
               br.rate_a_mva, loading.c_str());
  }
  out += "\nGenerators\n";
  out += fmt("%5s %6s %7s %12s %12s %12s\n", "row", "bus", "status", "Pg (MW)", "Pmin (MW)",
             "Pmax (MW)");
  for (size_t k = 0; k < ng; ++k) {
    const Gen& g = c.gen[k];
    out += fmt("%5zu %6d %7d %12.4f %12.4f %12.4f\n", k + 1, g.bus, g.status, at(r.gen_pg_mw, k),
               g.pmin_mw, g.pmax_mw);
  }
  return out;
}

/// DC-OPF result with MATPOWER field names (JSON) or as aligned text tables.
std::string dcopf_report(const Case& c, const DcOpfResult& r, bool json) {
  const size_t nb = c.bus.size(), nl = c.branch.size(), ng = c.gen.size();
  std::vector<int> binding;
  for (int l : r.binding_branches) binding.push_back(l + 1);
  if (json) {
    nlohmann::ordered_json j;
    j["case"] = c.name;
    j["success"] = r.ok();
    j["status"] = to_string(r.status);
    if (!r.ok()) j["message"] = r.message;
    j["objective"] = r.objective;
    std::vector<int> bus_id(nb), from(nl), to(nl), gen_bus(ng);
    for (size_t k = 0; k < nb; ++k) bus_id[k] = c.bus[k].id;
    for (size_t k = 0; k < nl; ++k) {
      from[k] = c.branch[k].from;
      to[k] = c.branch[k].to;
    }
    for (size_t k = 0; k < ng; ++k) gen_bus[k] = c.gen[k].bus;
    j["bus_id"] = bus_id;
    j["bus_va_deg"] = r.bus_va_deg;
    j["bus_lam_p"] = r.bus_lam_p;
    j["branch_from"] = from;
    j["branch_to"] = to;
    j["branch_pf_mw"] = r.branch_pf_mw;
    j["branch_mu_sf"] = r.branch_mu_sf;
    j["branch_mu_st"] = r.branch_mu_st;
    j["binding_branches"] = binding;  // 1-based rows, as the MATPOWER goldens
    j["gen_bus"] = gen_bus;
    j["gen_pg_mw"] = r.gen_pg_mw;
    return j.dump() + "\n";
  }
  std::string out;
  double total_pg = 0, total_pd = 0, total_gs = 0;
  for (double p : r.gen_pg_mw) total_pg += p;
  for (const Bus& b : c.bus) {
    total_pd += b.pd_mw;
    total_gs += b.gs_mw;
  }
  out += fmt("DC optimal power flow: %s (%zu buses, %zu branches, %zu gens, baseMVA %g) %s\n",
             c.name.c_str(), nb, nl, ng, c.base_mva, r.ok() ? "optimal" : "FAILED");
  if (!r.ok()) {
    out += fmt("status %s: %s\n", to_string(r.status), r.message.c_str());
    return out;
  }
  out += fmt("objective %.6f $/h; total PG %.4f MW, PD %.4f MW, GS %.4f MW\n", r.objective,
             total_pg, total_pd, total_gs);
  std::string bl;
  for (int l : binding) bl += (bl.empty() ? "" : ", ") + std::to_string(l);
  out += "binding branches (rows): " + (bl.empty() ? std::string("none") : bl) + "\n\n";
  out += "Buses\n";
  out += fmt("%6s %4s %12s %12s %12s %14s\n", "bus", "type", "Pd (MW)", "Gs (MW)", "Va (deg)",
             "LMP ($/MWh)");
  for (size_t k = 0; k < nb; ++k) {
    const Bus& b = c.bus[k];
    out += fmt("%6d %4d %12.4f %12.4f %12.6f %14.6f\n", b.id, b.type, b.pd_mw, b.gs_mw,
               r.bus_va_deg[k], r.bus_lam_p[k]);
  }
  out += "\nBranches\n";
  out += fmt("%5s %6s %6s %7s %12s %12s %10s %12s %12s\n", "row", "from", "to", "status", "Pf (MW)",
             "rateA (MVA)", "loading", "mu_sf", "mu_st");
  for (size_t k = 0; k < nl; ++k) {
    const Branch& br = c.branch[k];
    const double pf = r.branch_pf_mw[k];
    const std::string loading =
        br.rate_a_mva > 0 ? fmt("%9.1f%%", 100.0 * std::abs(pf) / br.rate_a_mva) : std::string("-");
    out += fmt("%5zu %6d %6d %7d %12.4f %12.1f %10s %12.6f %12.6f\n", k + 1, br.from, br.to,
               br.status, pf, br.rate_a_mva, loading.c_str(), r.branch_mu_sf[k], r.branch_mu_st[k]);
  }
  out += "\nGenerators\n";
  out += fmt("%5s %6s %7s %12s %12s %12s\n", "row", "bus", "status", "Pg (MW)", "Pmin (MW)",
             "Pmax (MW)");
  for (size_t k = 0; k < ng; ++k) {
    const Gen& g = c.gen[k];
    out += fmt("%5zu %6d %7d %12.4f %12.4f %12.4f\n", k + 1, g.bus, g.status, r.gen_pg_mw[k],
               g.pmin_mw, g.pmax_mw);
  }
  return out;
}

}  // namespace pz::grid
