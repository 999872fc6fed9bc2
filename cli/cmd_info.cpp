// `powerzoo envs` and `powerzoo cases`: list environments and bundled cases.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "powerzoo/exp/build.hpp"
#include "powerzoo/grid/case.hpp"
#include "powerzoo/io/spec.hpp"

namespace pz::cli {
namespace {
bool wants_help(const Args& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}
}  // namespace

int cmd_envs(const Args& args) {
  if (wants_help(args)) {
    std::cout << "usage: powerzoo envs\n\nLists the environments with their observation and "
                 "action dimensions (trans_grid on case5 with GB demand, the others on their task "
                 "presets)\n"
                 "and cost channels.\n";
    return 0;
  }
  if (!args.empty()) throw UsageError{"expected no arguments, found '" + args[0] + "'"};
  for (const auto& [id, desc] : exp::env_catalog()) {
    io::Spec spec = io::parse_spec("[env]\nid = \"" + id + "\"\n", "defaults");
    if (id == "unit_commitment") spec.env.case_name = "case118";  // the tso preset's case
    auto env = exp::make_env(spec, "train");
    const auto& sp = env->spec();
    // Task envs (dist_grid, unit_commitment) use their preset's case, not the spec default.
    const std::string on = id == "dist_grid"         ? "dso preset (case33bw)"
                           : id == "unit_commitment" ? "tso preset (case118)"
                                                     : spec.env.case_name;
    std::cout << id << "\n  " << desc << "\n  on " << on << ": obs_dim " << sp.obs_dim
              << ", act_dim " << sp.act_dim << ", horizon " << sp.horizon << ", costs [";
    for (size_t k = 0; k < sp.cost_names.size(); ++k)
      std::cout << (k ? ", " : "") << sp.cost_names[k];
    std::cout << "]\n";
  }
  return 0;
}

int cmd_cases(const Args& args) {
  if (wants_help(args)) {
    std::cout << "usage: powerzoo cases\n\nLists the bundled MATPOWER cases (data/cases) with "
                 "bus, generator and branch counts and total load.\n";
    return 0;
  }
  if (!args.empty()) throw UsageError{"expected no arguments, found '" + args[0] + "'"};
  std::printf("%-18s %6s %6s %8s %10s %10s\n", "case", "buses", "gens", "branches", "load_MW",
              "base_MVA");
  for (const auto& name : grid::bundled_cases()) {
    const auto c = grid::load_case(grid::resolve_case_path(name));
    double pd = 0;
    for (const auto& b : c.bus) pd += b.pd_mw;
    std::printf("%-18s %6d %6d %8d %10.2f %10g\n", name.c_str(), c.n_bus(), c.n_gen(), c.n_branch(),
                pd, c.base_mva);
  }
  return 0;
}

}  // namespace pz::cli
