// `powerzoo grid distflow CASE [--json]`: solves a radial case with the DistFlow sweep and prints
// voltages, branch from-end flows, losses and the sweep count with MATPOWER-like field names.
#include "cli/cmd_distflow.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dist/distflow.hpp"

namespace po = boost::program_options;

namespace pz::cli {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

int grid_distflow_main(const std::vector<std::string>& args) {
  po::options_description opts(
      "usage: powerzoo grid distflow CASE [--json]\n\n"
      "Solves the radial (distribution) case CASE (bundled name such as case33bw, or a path to a\n"
      "MATPOWER .m file) with an exact AC power flow by backward/forward sweep on squared "
      "voltages\n"
      "(DistFlow), using the case's loads and the reference bus voltage. Prints bus voltages,\n"
      "branch from-end flows (MATPOWER orientation), total losses and the sweep count.\n"
      "A meshed or disconnected case is an error (exit 2); no convergence exits 1.\n\noptions");
  opts.add_options()("help,h", "show this help")("json", "print JSON instead of tables");
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
  if (p.size() == 2 && p[0] == "distflow") p.erase(p.begin());
  if (p.size() != 1)
    throw UsageError{"grid distflow: expected one case (e.g. `grid distflow case33bw`), found " +
                     std::to_string(p.size()) + " arguments"};

  const grid::Case c = grid::load_case(grid::resolve_case_path(p[0]));
  // The feeder's root is the substation: a reference bus with a gen in service (the other
  // solvers refuse a case without one; DistFlow had solved from bus 1 regardless).
  bool root_ok = false;
  for (size_t g = 0; g < c.gen.size(); ++g)
    root_ok = root_ok || (c.gen[g].status > 0 && c.bus[c.gen_bus_idx[g]].type == 3);
  if (!root_ok)
    throw core::ConfigError(c.source_path +
                            ": expected a reference bus (type 3) with a gen in service as the "
                            "feeder's substation, found none");
  const grid::DistFlowResult r = grid::solve_case(c);

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
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "case " << c.name << " (baseMVA " << c.base_mva
              << "): " << (r.converged ? "converged" : "NOT converged") << " after " << r.iterations
              << " sweeps; success = " << (r.converged ? "true" : "false") << "\n\n";
    std::cout << "   bus   bus_vm_pu  bus_va_deg\n";
    for (int i = 0; i < c.n_bus(); ++i)
      std::cout << fmt("%6.0f", c.bus[i].id) << fmt("%12.6f", r.bus_vm_pu[i])
                << fmt("%12.5f", r.bus_va_deg[i]) << "\n";
    std::cout << "\nbranch  from    to  branch_pf_mw  branch_qf_mvar\n";
    for (int k = 0; k < c.n_branch(); ++k)
      std::cout << fmt("%6.0f", k + 1) << fmt("%6.0f", c.branch[k].from)
                << fmt("%6.0f", c.branch[k].to) << fmt("%14.6f", r.branch_pf_mw[k])
                << fmt("%16.6f", r.branch_qf_mvar[k])
                << (c.branch[k].status > 0 ? "" : "  (out of service)") << "\n";
    std::cout << "\ntotal_losses_mw " << fmt("%.9f", r.total_losses_mw) << "\n";
  }
  return r.converged ? 0 : 1;
}

}  // namespace pz::cli
