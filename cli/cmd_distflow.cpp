// `powerzoo grid distflow CASE [--out-of-service branch:K] [--json]`: solves a radial case with the
// DistFlow sweep and prints voltages, branch from-end flows, losses and the sweep count with
// MATPOWER-like field names.
#include "cli/cmd_distflow.hpp"

#include <boost/program_options.hpp>
#include <cstdint>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/outages.hpp"
#include "powerzoo/grid/dist/distflow.hpp"
#include "powerzoo/grid/dist/feeder.hpp"

namespace po = boost::program_options;

namespace pz::cli {

using core::format_printf;

namespace {

// `--out-of-service branch:K,...` applied as the dist envs apply a line outage
// (grid::feeder_lines_out): the lines out, the buses below them de-energized. Gen rows are
// refused as the envs refuse them.
grid::Case lines_out(const grid::Case& c, const std::string& v) {
  grid::Outages o;
  try {
    o = grid::parse_outages(v, c);
  } catch (const core::ConfigError& e) {
    throw UsageError{"--out-of-service '" + core::echo(v) + "': " + e.what()};
  }
  if (!o.gens.empty())
    throw UsageError{"--out-of-service '" + core::echo(v) + "': expected branch:K rows only (" +
                     "a distribution feeder models branch outages only, as the dist envs: its "
                     "generator is the substation, the only slack DistFlow has), found gen:" +
                     std::to_string(o.gens.front() + 1)};
  const grid::RadialNetwork net(c);  // the intact feeder: refuses a meshed case first
  std::vector<uint8_t> on(c.n_branch(), 1);
  for (int k : o.branches) on[k] = 0;
  return grid::feeder_lines_out(c, net, on);
}

}  // namespace

int grid_distflow_main(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: powerzoo grid distflow CASE [--out-of-service branch:K,...] [--json]\n\n"
      "Solves the radial (distribution) case CASE (bundled name such as case33bw, or a path to a\n"
      "MATPOWER .m file) with an exact AC power flow by backward/forward sweep on squared "
      "voltages\n"
      "(DistFlow), using the case's loads and the reference bus voltage. Prints bus voltages,\n"
      "branch from-end flows (MATPOWER orientation), total losses and the sweep count.\n"
      "The substation (root, slack) is the first type-3 bus with a gen in service; buses cut off\n"
      "from it (out-of-service branches, type-4 buses) are de-energized and reported, their load\n"
      "not served (a type-4 bus's own load, shunt and gens leave the case on reading, as in\n"
      "MATPOWER's ext2int). A meshed case, one without a substation, or a cut-off island with a "
      "gen in\n"
      "service is an error (exit 2); no convergence exits 1.\n"
      "--out-of-service takes lines out as the dist envs do under an outage: each line out cuts\n"
      "off the part of the feeder below it, which is de-energized and its load reported as not\n"
      "served (gen rows are refused: the feeder's generator is the substation).\n\noptions");
  opts.add_options()("help,h", "show this help")("json", "print JSON instead of tables")(
      "out-of-service", po::value<std::string>(),
      "take lines out of service before solving: a comma-separated list of branch:K (1-based "
      "rows of mpc.branch, as MATPOWER numbers them)");
  po::variables_map vm;
  std::vector<std::string> p;
  if (!parse_command(args, opts, vm, p)) return 0;
  if (p.size() == 2 && p[0] == "distflow") p.erase(p.begin());
  if (p.size() != 1)
    throw UsageError{"grid distflow: expected one case (e.g. `grid distflow case33bw`), found " +
                     std::to_string(p.size()) + " arguments"};

  grid::Case c = grid::load_case(grid::resolve_case_path(p[0]));
  if (vm.count("out-of-service")) c = lines_out(c, vm["out-of-service"].as<std::string>());
  // The feeder as the dist envs read it (grid/dist/feeder): the substation is the root and the
  // slack, buses cut off from it are de-energized (reported, not refused, as grid dcpf/acpf do).
  const grid::DistFlowResult r = grid::solve_case(c);
  const grid::Feeder fd = grid::read_feeder(c);
  std::vector<int> dead_ids;
  for (int b : fd.dead) dead_ids.push_back(c.bus[b].id);

  if (vm.count("json")) {
    nlohmann::ordered_json j;
    j["case"] = c.name;
    j["baseMVA"] = c.base_mva;
    j["success"] = r.converged;
    j["iterations"] = r.iterations;
    std::vector<int> ids, from, to;
    for (const auto& b : c.bus) ids.push_back(b.id);
    for (const auto& br : c.branch) {
      from.push_back(br.from);
      to.push_back(br.to);
    }
    j["bus_id"] = ids;
    j["bus_vm_pu"] = r.bus_vm_pu;
    j["bus_va_deg"] = r.bus_va_deg;
    j["branch_from"] = from;
    j["branch_to"] = to;
    j["branch_pf_mw"] = r.branch_pf_mw;
    j["branch_qf_mvar"] = r.branch_qf_mvar;
    j["branch_pt_mw"] = r.branch_pt_mw;
    j["branch_qt_mvar"] = r.branch_qt_mvar;
    j["total_losses_mw"] = r.total_losses_mw;
    j["dead_buses"] = dead_ids;
    j["pd_not_served_mw"] = fd.dead_pd_mw;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "case " << c.name << " (baseMVA " << c.base_mva
              << "): " << (r.converged ? "converged" : "NOT converged") << " after " << r.iterations
              << " sweeps; success = " << (r.converged ? "true" : "false") << "\n\n";
    std::cout << "   bus   bus_vm_pu  bus_va_deg\n";
    for (int i = 0; i < c.n_bus(); ++i)
      std::cout << format_printf("%6d", c.bus[i].id) << format_printf("%12.6f", r.bus_vm_pu[i])
                << format_printf("%12.5f", r.bus_va_deg[i]) << "\n";
    std::cout << "\nbranch  from    to  branch_pf_mw  branch_qf_mvar\n";
    for (int k = 0; k < c.n_branch(); ++k)
      std::cout << format_printf("%6d", k + 1) << format_printf("%6d", c.branch[k].from)
                << format_printf("%6d", c.branch[k].to)
                << format_printf("%14.6f", r.branch_pf_mw[k])
                << format_printf("%16.6f", r.branch_qf_mvar[k])
                << (fd.c.branch[k].status > 0 ? "" : "  (out of service)") << "\n";
    std::cout << "\ntotal_losses_mw " << format_printf("%.9f", r.total_losses_mw) << "\n";
    if (!dead_ids.empty()) {
      std::string ids;
      for (int id : dead_ids) ids += (ids.empty() ? "" : " ") + std::to_string(id);
      std::cout << format_printf(
          "de-energized (type 4, or cut off from the substation): bus %s, %.4f MW of PD not "
          "served (a type-4 bus's own load leaves the case on reading, as in MATPOWER)\n",
          ids.c_str(), fd.dead_pd_mw);
    }
  }
  return r.converged ? 0 : 1;
}

}  // namespace pz::cli
