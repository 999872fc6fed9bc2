// Formatting of the N-1 screen and the SCOPF result (see security_report.hpp).
#include "powerzoo/grid/dc/security_report.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "powerzoo/core/format.hpp"

namespace pz::grid {

namespace {

using core::format_printf;

std::vector<int> bus_ids(const Case& c, const std::vector<int>& idx) {
  std::vector<int> out;
  for (int k : idx) out.push_back(c.bus[k].id);
  return out;
}

std::string id_list(const std::vector<int>& ids, size_t max = 12) {
  std::string s;
  for (size_t i = 0; i < ids.size() && i < max; ++i)
    s += (s.empty() ? "" : " ") + std::to_string(ids[i]);
  if (ids.size() > max) s += " ... (" + std::to_string(ids.size()) + " buses)";
  return s;
}

nlohmann::ordered_json outage_json(const Case& c, const N1Outage& o) {
  nlohmann::ordered_json j;
  const Branch& br = c.branch[o.branch];
  j["branch"] = o.branch + 1;
  j["from"] = br.from;
  j["to"] = br.to;
  j["pre_flow_mw"] = o.pre_flow_mw;
  j["method"] = o.islands ? "islands" : "lodf";
  j["success"] = o.success;
  j["island_buses"] = bus_ids(c, o.cut_buses);
  j["dead_buses"] = bus_ids(c, o.dead_buses);
  j["max_loading_pct"] = o.max_loading_pct;
  nlohmann::ordered_json ov = nlohmann::ordered_json::array();
  for (int l : o.overloads) {
    const double rate = c.branch[l].rate_a_mva;
    ov.push_back({{"branch", l + 1},
                  {"flow_mw", o.flow_mw[l]},
                  {"rate_a_mva", rate},
                  {"loading_pct", 100.0 * std::abs(o.flow_mw[l]) / rate}});
  }
  j["overloads"] = ov;
  j["branch_pf_mw"] = o.flow_mw;
  return j;
}

}  // namespace

std::string n1_report(const Case& c, const N1Screen& s, bool json) {
  int with_overloads = 0;
  for (const N1Outage& o : s.outages) with_overloads += o.overloads.empty() ? 0 : 1;
  if (json) {
    nlohmann::ordered_json j;
    j["case"] = c.name;
    j["success"] = s.base.success;
    j["branch_pf_mw"] = s.base.branch_pf_mw;
    j["n_contingencies"] = s.outages.size();
    j["n_lodf"] = s.n_lodf;
    j["n_resolved"] = s.n_resolved;
    j["n_with_overloads"] = with_overloads;
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const N1Outage& o : s.outages) list.push_back(outage_json(c, o));
    j["contingencies"] = list;
    return j.dump() + "\n";
  }
  std::string out = format_printf(
      "N-1 branch screen: %s (%d buses, %d branches)%s\n", c.name.c_str(), c.n_bus(), c.n_branch(),
      s.base.success ? "" : " FAILED: the base DC power flow did not solve");
  if (!s.base.success) return out;
  out += format_printf(
      "%zu outages: %d by LODF, %d islanding (re-solved); %d overload a branch over RATE_A\n\n",
      s.outages.size(), s.n_lodf, s.n_resolved, with_overloads);
  out += format_printf("%5s %6s %6s %11s %8s %9s  %s\n", "row", "from", "to", "pre (MW)", "method",
                       "max load", "overloads (row: MW, % of RATE_A) / islands");
  for (const N1Outage& o : s.outages) {
    if (o.overloads.empty() && !o.islands) continue;
    const Branch& br = c.branch[o.branch];
    std::string what;
    for (int l : o.overloads)
      what += format_printf("%s%d: %.2f, %.1f%%", what.empty() ? "" : "; ", l + 1, o.flow_mw[l],
                            100.0 * std::abs(o.flow_mw[l]) / c.branch[l].rate_a_mva);
    if (o.islands) {
      if (!what.empty()) what += "; ";
      what += "cuts off bus " + id_list(bus_ids(c, o.cut_buses));
      what += o.dead_buses.empty() ? " (own reference)" : " (de-energized)";
      if (!o.success) what += " FAILED";
    }
    out += format_printf("%5d %6d %6d %11.4f %8s %8.1f%%  %s\n", o.branch + 1, br.from, br.to,
                         o.pre_flow_mw, o.islands ? "islands" : "lodf", o.max_loading_pct,
                         what.c_str());
  }
  return out;
}

std::string scopf_report(const Case& c, const ScopfResult& r, bool json) {
  if (json) {
    nlohmann::ordered_json j;
    j["case"] = c.name;
    j["success"] = r.ok();
    j["status"] = to_string(r.status);
    if (!r.ok()) j["message"] = r.message;
    j["objective"] = r.objective;
    j["dcopf_objective"] = r.dcopf_objective;
    j["n_contingencies"] = r.n_contingencies;
    std::vector<int> isl;
    for (int l : r.islanding) isl.push_back(l + 1);
    j["islanding_branches"] = isl;
    j["base_rows"] = r.base_rows;
    j["contingency_rows"] = r.contingency_rows;
    j["rounds"] = r.rounds;
    nlohmann::ordered_json b = nlohmann::ordered_json::array();
    for (const ScopfBinding& x : r.binding)
      b.push_back({{"outage", x.outage + 1},
                   {"branch", x.branch + 1},
                   {"flow_mw", x.flow_mw},
                   {"rate_a_mva", x.rate_a_mva},
                   {"mu", x.mu}});
    j["binding"] = b;
    std::vector<int> gen_bus, from, to;
    for (const Gen& g : c.gen) gen_bus.push_back(g.bus);
    for (const Branch& br : c.branch) {
      from.push_back(br.from);
      to.push_back(br.to);
    }
    j["gen_bus"] = gen_bus;
    j["gen_pg_mw"] = r.gen_pg_mw;
    j["branch_from"] = from;
    j["branch_to"] = to;
    j["branch_pf_mw"] = r.branch_pf_mw;
    return j.dump() + "\n";
  }
  std::string out = format_printf(
      "security-constrained DC-OPF (preventive N-1): %s (%d buses, %d branches, %d gens) %s\n",
      c.name.c_str(), c.n_bus(), c.n_branch(), c.n_gen(), r.ok() ? "optimal" : "FAILED");
  if (!r.ok())
    return out + format_printf("status %s: %s\n", to_string(r.status), r.message.c_str());
  out += format_printf("objective %.6f $/h (DC-OPF without contingencies %.6f $/h, +%.6f)\n",
                       r.objective, r.dcopf_objective, r.objective - r.dcopf_objective);
  out += format_printf(
      "%d branch outages secured, %zu islanding left out; %d base and %d contingency flow rows "
      "added in %d solves\n\n",
      r.n_contingencies, r.islanding.size(), r.base_rows, r.contingency_rows, r.rounds);
  out += "Binding limits\n";
  out += format_printf("%8s %6s %12s %12s %12s\n", "outage", "branch", "Pf (MW)", "rateA (MVA)",
                       "mu ($/MWh)");
  for (const ScopfBinding& x : r.binding)
    out += format_printf("%8s %6d %12.4f %12.1f %12.6f\n",
                         x.outage < 0 ? "base" : std::to_string(x.outage + 1).c_str(), x.branch + 1,
                         x.flow_mw, x.rate_a_mva, x.mu);
  out += "\nGenerators\n";
  out += format_printf("%5s %6s %7s %12s %12s %12s\n", "row", "bus", "status", "Pg (MW)",
                       "Pmin (MW)", "Pmax (MW)");
  for (int g = 0; g < c.n_gen(); ++g) {
    const Gen& gen = c.gen[g];
    out += format_printf("%5d %6d %7d %12.4f %12.4f %12.4f\n", g + 1, gen.bus, gen.status,
                         r.gen_pg_mw[g], gen.pmin_mw, gen.pmax_mw);
  }
  return out;
}

}  // namespace pz::grid
