// `powerzoo grid dcpf CASE [--json]`: solve a case with the built-in DC power flow.
#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "powerzoo/grid/case.hpp"
#include "powerzoo/grid/dc.hpp"
#include "powerzoo/grid/dcpf_report.hpp"

namespace po = boost::program_options;

namespace pz::cli {

int cmd_grid(const Args& args) {
  po::options_description opts(
      "usage: powerzoo grid dcpf CASE [--json]\n\n"
      "Solves CASE (bundled name such as case118, or a path to a MATPOWER .m file) the way\n"
      "MATPOWER's rundcpf does and prints bus angles, branch flows and generator outputs with\n"
      "MATPOWER field names.\n\noptions");
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
  if (p[0] != "dcpf")
    throw UsageError{"expected solver 'dcpf', found '" + p[0] + "'"};
  if (!(load_scale > 0)) throw UsageError{"--load-scale: expected a number > 0"};
  grid::Case c = grid::load_case(grid::resolve_case_path(p[1]));
  for (auto& b : c.bus) {
    b.pd_mw *= load_scale;
    b.qd_mvar *= load_scale;
  }
  const auto r = grid::run_dcpf(c);
  std::cout << grid::dcpf_report(c, r, vm.count("json") > 0);
  if (vm.count("json")) std::cout << "\n";
  return r.success ? 0 : 1;
}

}  // namespace pz::cli
