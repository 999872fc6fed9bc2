// `powerzoo envs` and `powerzoo cases`: list environments and bundled cases.
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::cli {
namespace {
bool wants_help(const Args& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

void print_env(const envs::EnvEntry& entry, const std::string& spec_text, const std::string& on) {
  const exp::Spec spec = exp::parse_spec(spec_text, "defaults");
  auto env = exp::make_env(spec, spec.env.split);
  const auto& sp = env->spec();
  std::cout << entry.id << "\n  " << entry.description << "\n  on " << on << ": obs_dim "
            << sp.obs_dim << ", act_dim " << sp.act_dim << ", horizon " << sp.horizon
            << ", costs [";
  for (size_t k = 0; k < sp.cost_names.size(); ++k)
    std::cout << (k ? ", " : "") << sp.cost_names[k];
  std::cout << "]\n  keys:";
  for (const auto& p : entry.params) std::cout << " " << p.key;
  if (!entry.make && !entry.is_task) std::cout << " those of task " << entry.default_task;
  if (!entry.splits.empty()) {
    std::cout << "\n  splits:";
    for (const auto& x : entry.splits) std::cout << " " << x;
  }
  if (!entry.baselines.empty()) {
    std::cout << "\n  baselines: zero_action";
    for (const auto& [n, f] : entry.baselines) std::cout << " " << n;
  }
  std::cout << "\n";
}

}  // namespace

int cmd_envs(const Args& args) {
  if (wants_help(args)) {
    std::cout << "usage: powerzoo envs\n\nLists the registered environments and task presets "
                 "with their observation and\naction dimensions (each on its default case, a "
                 "task env on its preset), cost channels\nand [env] keys.\n";
    return 0;
  }
  if (!args.empty()) throw UsageError{"expected no arguments, found '" + core::echo(args[0]) + "'"};
  for (const envs::EnvEntry* e : envs::registered_envs()) {
    if (e->make) {
      const auto& params = e->params;
      const core::ParamDef* c = core::find_param(params, "case");
      print_env(*e, "[env]\nid = \"" + e->id + "\"\n",
                c ? std::get<std::string>(c->def) : std::string("its defaults"));
    } else {
      print_env(*e, "[env]\nid = \"" + e->id + "\"\n", "task " + e->default_task);
    }
  }
  std::cout << "\ntask presets ([env] task = ...):\n";
  for (const envs::EnvEntry* t : envs::registered_tasks()) {
    std::string base;
    if (const core::ParamDef* c = core::find_param(t->params, "case"))
      base = std::get<std::string>(c->def) + ", ";
    print_env(*t, "[env]\ntask = \"" + t->id + "\"\n", base + "env " + t->env_id);
  }
  return 0;
}

int cmd_cases(const Args& args) {
  if (wants_help(args)) {
    std::cout << "usage: powerzoo cases\n\nLists the bundled MATPOWER cases (data/cases) with "
                 "bus, generator and branch counts and total load.\n";
    return 0;
  }
  if (!args.empty()) throw UsageError{"expected no arguments, found '" + core::echo(args[0]) + "'"};
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
