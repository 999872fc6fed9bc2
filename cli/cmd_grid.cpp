// `powerzoo grid dcpf|dcopf CASE [--load-scale x] [--json]`: solve a case with the built-in DC
// power flow or the exact DC optimal power flow.
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "powerzoo/grid/case.hpp"
#include "powerzoo/grid/dc.hpp"
#include "powerzoo/grid/dcopf.hpp"
#include "powerzoo/grid/dcpf_report.hpp"

namespace po = boost::program_options;

namespace pz::cli {

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

/// DC-OPF result with MATPOWER field names (JSON) or as aligned text tables.
std::string dcopf_report(const grid::Case& c, const grid::DcOpfResult& r, bool json) {
  const size_t nb = c.bus.size(), nl = c.branch.size(), ng = c.gen.size();
  std::vector<int> binding;
  for (int l : r.binding_branches) binding.push_back(l + 1);
  if (json) {
    nlohmann::ordered_json j;
    j["case"] = c.name;
    j["success"] = r.ok();
    j["status"] = grid::to_string(r.status);
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
  for (const grid::Bus& b : c.bus) {
    total_pd += b.pd_mw;
    total_gs += b.gs_mw;
  }
  out += fmt("DC optimal power flow: %s (%zu buses, %zu branches, %zu gens, baseMVA %g) %s\n",
             c.name.c_str(), nb, nl, ng, c.base_mva, r.ok() ? "optimal" : "FAILED");
  if (!r.ok()) {
    out += fmt("status %s: %s\n", grid::to_string(r.status), r.message.c_str());
    return out;
  }
  out += fmt("objective %.6f $/h; total PG %.4f MW, PD %.4f MW, GS %.4f MW\n", r.objective,
             total_pg, total_pd, total_gs);
  std::string bl;
  for (int l : binding) bl += (bl.empty() ? "" : ", ") + std::to_string(l);
  out += "binding branches: " + (bl.empty() ? std::string("none") : bl) + "\n\n";
  out += "Buses\n";
  out += fmt("%6s %4s %12s %12s %12s %14s\n", "bus", "type", "Pd (MW)", "Gs (MW)", "Va (deg)",
             "LMP ($/MWh)");
  for (size_t k = 0; k < nb; ++k) {
    const grid::Bus& b = c.bus[k];
    out += fmt("%6d %4d %12.4f %12.4f %12.6f %14.6f\n", b.id, b.type, b.pd_mw, b.gs_mw,
               r.bus_va_deg[k], r.bus_lam_p[k]);
  }
  out += "\nBranches\n";
  out += fmt("%5s %6s %6s %7s %12s %12s %10s %12s %12s\n", "row", "from", "to", "status", "Pf (MW)",
             "rateA (MVA)", "loading", "mu_sf", "mu_st");
  for (size_t k = 0; k < nl; ++k) {
    const grid::Branch& br = c.branch[k];
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
    const grid::Gen& g = c.gen[k];
    out += fmt("%5zu %6d %7d %12.4f %12.4f %12.4f\n", k + 1, g.bus, g.status, r.gen_pg_mw[k],
               g.pmin_mw, g.pmax_mw);
  }
  return out;
}

}  // namespace

int cmd_grid(const Args& args) {
  po::options_description opts(
      "usage: powerzoo grid dcpf|dcopf CASE [--load-scale x] [--json]\n\n"
      "Solves CASE (bundled name such as case118, or a path to a MATPOWER .m file) and prints\n"
      "the result with MATPOWER field names:\n"
      "  dcpf   DC power flow, as MATPOWER's rundcpf (bus angles, branch flows, gen outputs)\n"
      "  dcopf  exact DC optimal power flow, as MATPOWER's rundcopf (objective, dispatch, LMPs,\n"
      "         flows, branch-limit shadow prices); exit status 1 if not optimal\n\noptions");
  double load_scale = 1.0;
  opts.add_options()("help,h", "show this help")("json", "print JSON instead of tables")(
      "load-scale", po::value<double>(&load_scale), "multiply every bus PD and QD (default 1)");
  po::options_description hidden;
  hidden.add_options()("positional", po::value<std::vector<std::string>>(), "");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("positional", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  std::vector<std::string> p;
  if (vm.count("positional")) p = vm["positional"].as<std::vector<std::string>>();
  if (p.size() != 2)
    throw UsageError{"expected a solver and a case (e.g. `grid dcpf case5`), found " +
                     std::to_string(p.size()) + " arguments"};
  if (p[0] != "dcpf" && p[0] != "dcopf")
    throw UsageError{"expected solver 'dcpf' or 'dcopf', found '" + p[0] + "'"};
  if (!(load_scale > 0)) throw UsageError{"--load-scale: expected a number > 0"};
  grid::Case c = grid::load_case(grid::resolve_case_path(p[1]));
  for (auto& b : c.bus) {
    b.pd_mw *= load_scale;
    b.qd_mvar *= load_scale;
  }
  const bool json = vm.count("json") > 0;
  if (p[0] == "dcopf") {
    grid::DcOpf opf(c);
    const auto r = opf.solve();
    std::cout << dcopf_report(c, r, json);
    if (json) std::cout << "\n";
    return r.ok() ? 0 : 1;
  }
  const auto r = grid::run_dcpf(c);
  std::cout << grid::dcpf_report(c, r, json);
  if (json) std::cout << "\n";
  return r.success ? 0 : 1;
}

}  // namespace pz::cli
