// `powerzoo grid dcpf|dcopf|acpf|acopf|contingencies|scopf|distflow CASE`: solve a case with the
// built-in DC power flow, the exact DC optimal power flow, the Newton-Raphson AC power flow, the
// AC optimal power flow, the N-1 branch screen, the security-constrained DC-OPF, or the radial AC
// power flow.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cmd_distflow.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"
#include "powerzoo/grid/ac/ac_dark.hpp"
#include "powerzoo/grid/ac/ac_network.hpp"
#include "powerzoo/grid/ac/ac_report.hpp"
#include "powerzoo/grid/ac/acopf.hpp"
#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/case/outages.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/dc/dcpf_report.hpp"
#include "powerzoo/grid/dc/island_dcopf.hpp"
#include "powerzoo/grid/dc/n1_screen.hpp"
#include "powerzoo/grid/dc/scopf.hpp"
#include "powerzoo/grid/dc/security_report.hpp"

namespace po = boost::program_options;

namespace pz::cli {
namespace {

// The buses an edit (or the case) leaves in an island without an in-service generator and their
// load: MATPOWER's ext2int takes them out (type 4), so no solver serves it; the output says so.
struct DeadLoad {
  std::vector<int> buses;  // 0-based rows of the case
  double pd_mw = 0;        // their PD, MW (after --load-scale), not served
};

// The case as every solver and env reads it (grid::energize, as envs::outage_case): islands
// without a generator de-energized with their load set to 0 (reported in `dead`), an island
// without a reference bus given the first PV bus with a generator in service as its reference.
grid::Case energized_case(const grid::Case& c, DeadLoad& dead) {
  grid::Case e = grid::energize(c, &dead.buses);
  for (int b : dead.buses) {
    dead.pd_mw += e.bus[b].pd_mw;
    e.bus[b].pd_mw = e.bus[b].qd_mvar = 0;
  }
  return e;
}

// Adds the de-energized buses to a solver's report: JSON fields `dead_bus` (bus ids) and
// `unserved_mw`, or a line after the report's title.
std::string with_dead_load(const std::string& report, const grid::Case& c, const DeadLoad& d,
                           bool json) {
  std::vector<int> ids;
  for (int b : d.buses) ids.push_back(c.bus[b].id);
  if (json) {
    auto j = nlohmann::ordered_json::parse(report);
    j["dead_bus"] = ids;
    j["unserved_mw"] = d.pd_mw;
    return j.dump() + "\n";
  }
  if (ids.empty()) return report;
  std::string list;
  for (int id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
  const size_t eol = report.find('\n');
  const std::string line = core::format_printf(
      "de-energized (island without an in-service gen): bus %s, %.4f MW of PD not served\n",
      list.c_str(), d.pd_mw);
  if (eol == std::string::npos) return report + "\n" + line;
  return report.substr(0, eol + 1) + line + report.substr(eol + 1);
}

// AC results of a de-energized bus at Vm = Va = 0, as `grid acpf` always reported them and as the
// env observes them (the solvers keep a type-4 bus at the case's VM, MATPOWER's int2ext).
template <class R>
void dark(R& r, const DeadLoad& d) {
  for (int b : d.buses) {
    if (static_cast<size_t>(b) < r.bus_vm_pu.size()) r.bus_vm_pu[b] = 0;
    if (static_cast<size_t>(b) < r.bus_va_deg.size()) r.bus_va_deg[b] = 0;
  }
}

bool any_gen_in_service(const grid::Case& c) {
  return std::any_of(c.gen.begin(), c.gen.end(), [](const grid::Gen& g) { return g.status > 0; });
}

// Whether an --out-of-service edit leaves nothing energized (every gen out) in a case that
// energizes something. The four solvers report that outcome (every bus de-energized, all load
// unserved, as the envs do); the N-1 screen and the SCOPF have no base dispatch to secure: the
// edit is refused, naming it.
bool edit_darkens(const grid::Case& edited, const std::string& solver, const std::string& edit) {
  if (!grid::nothing_energized(grid::energize(edited))) return false;
  if (solver == "contingencies" || solver == "scopf")
    throw UsageError{"--out-of-service '" + core::echo(edit) + "': expected at least one gen of " +
                     edited.source_path + " left in service for `grid " + solver +
                     "` (its N-1 cases start from a dispatch that serves the load), found none "
                     "(every bus de-energized)"};
  return true;
}

// The DC power flow of a network with nothing energized: nothing flows, no gen produces, every
// bus keeps its case VA (run_dcpf's rule for de-energized buses).
grid::DcPfResult dark_dcpf(const grid::Case& e) {
  grid::DcPfResult r;
  r.success = true;
  for (const auto& b : e.bus) r.bus_va_deg.push_back(b.va_deg);
  r.branch_pf_mw.assign(e.n_branch(), 0.0);
  r.gen_pg_mw.assign(e.n_gen(), 0.0);
  return r;
}

}  // namespace

int cmd_grid(const Args& args) {
  // distflow has options of its own (no --load-scale); hand it the whole argument list.
  for (const auto& a : args) {
    if (a.empty() || a[0] == '-') continue;
    if (a == "distflow") return grid_distflow_main(args);
    break;
  }
  po::options_description opts(
      "usage: powerzoo grid dcpf|dcopf|acopf|contingencies|scopf CASE [--load-scale x]\n"
      "                                  [--out-of-service branch:K,gen:G] [--json]\n"
      "       powerzoo grid acpf CASE [--load-scale x] [--out-of-service ...] [--enforce-q-lims]\n"
      "                               [--json]\n"
      "       powerzoo grid distflow CASE [--out-of-service branch:K] [--json]\n\n"
      "Solves CASE (bundled name such as case118, or a path to a MATPOWER .m file) and prints\n"
      "the result with MATPOWER field names:\n"
      "  dcpf   DC power flow, as MATPOWER's rundcpf (bus angles, branch flows, gen outputs)\n"
      "  dcopf  exact DC optimal power flow, as MATPOWER's rundcopf (objective, dispatch, LMPs,\n"
      "         flows, branch-limit shadow prices); exit status 1 if not optimal\n"
      "  acpf   AC power flow by Newton-Raphson, as MATPOWER's runpf (voltages, flows at both\n"
      "         ends, gen outputs, losses); exit status 1 if it does not converge\n"
      "  acopf  AC optimal power flow (Ipopt), as MATPOWER's runopf (objective, dispatch, "
      "voltages,\n"
      "         LMPs of P and Q, flows, shadow prices); exit status 1 if not optimal\n"
      "  contingencies  N-1 screen of every in-service branch: post-outage DC flows by line\n"
      "         outage distribution factors (LODF), overloads over RATE_A (MW and %), outages\n"
      "         that island re-solved as dcpf does (the buses cut off named); exit status 1 if\n"
      "         the base DC power flow does not solve\n"
      "  scopf  security-constrained DC-OPF, preventive N-1: the least-cost dispatch whose flows\n"
      "         stay within RATE_A in the base case and after every branch outage that does not\n"
      "         island (post-outage flows by LODF, violated limits added as rows until none is);\n"
      "         cost, dispatch, rows added, binding contingencies; exit status 1 if not optimal\n"
      "         (infeasible: no dispatch is N-1 secure)\n"
      "  distflow  exact radial AC power flow (DistFlow sweeps) of a distribution feeder;\n"
      "         see `powerzoo grid distflow --help`\n\n"
      "These solvers read the case as MATPOWER and every env do: an island without\n"
      "an in-service gen is de-energized (type 4; its buses and load are reported as not served,\n"
      "JSON dead_bus and unserved_mw), an island whose reference bus lost its gens takes its "
      "first\n"
      "PV bus with one, and each energized island is solved (the OPFs balance each island,\n"
      "scopf secures each island against its own branch outages).\n"
      "An --out-of-service edit that takes every gen out leaves every bus de-energized: they\n"
      "report nothing flowing and all load unserved (exit 0); contingencies and scopf refuse "
      "it.\n\n"
      "options");
  double load_scale = 1.0;
  opts.add_options()("help,h", "show this help")("json", "print JSON instead of tables")(
      "load-scale", po::value<double>(&load_scale), "multiply every bus PD and QD (default 1)")(
      "enforce-q-lims", "acpf: hold gen Q limits as MATPOWER pf.enforce_q_lims = 1")(
      "out-of-service", po::value<std::string>(),
      "take rows of the case out of service before solving: a comma-separated list of branch:K "
      "and gen:G (1-based rows of mpc.branch / mpc.gen, as MATPOWER numbers them); status 0, "
      "then the islands are read as for any case");
  po::variables_map vm;
  std::vector<std::string> p;
  if (!parse_command(args, opts, vm, p)) return 0;
  if (p.size() != 2)
    throw UsageError{"expected a solver and a case (e.g. `grid dcpf case5`), found " +
                     std::to_string(p.size()) + " arguments"};
  if (p[0] != "dcpf" && p[0] != "dcopf" && p[0] != "acpf" && p[0] != "acopf" &&
      p[0] != "contingencies" && p[0] != "scopf")
    throw UsageError{
        "expected solver 'dcpf', 'dcopf', 'acpf', 'acopf', 'contingencies', 'scopf' or "
        "'distflow', found '" +
        core::echo(p[0]) + "'"};
  if (vm.count("enforce-q-lims") && p[0] != "acpf")
    throw UsageError{"--enforce-q-lims: only `grid acpf` takes it, found `grid " + p[0] + "`"};
  // 1e308 overflowed every load to Inf; no study scales a case's load by more than 1000.
  if (!(load_scale > 0 && load_scale <= 1000))
    throw UsageError{"--load-scale: expected a number in (0, 1000], found " +
                     core::format_number(load_scale)};
  grid::Case c = grid::load_case(grid::resolve_case_path(p[1]));
  // Without a gen in service nothing balances the load: dcpf reported flows that did not add up.
  if (!any_gen_in_service(c))
    throw core::ConfigError(c.source_path +
                            ": expected at least one gen in service (GEN_STATUS > 0) to balance "
                            "the load, found none");
  // Gens only at PQ buses energize nothing (MATPOWER's bustypes): bad input for every solver, as
  // dcpf reported it (dcopf exited 0 serving nothing).
  if (grid::nothing_energized(grid::energize(c)))
    throw core::ConfigError(c.source_path + ": case '" + c.name +
                            "': expected an in-service gen at a reference bus (type 3) or at a PV "
                            "bus (type 2) to balance the load, found none");
  bool none_live = false;  // the edit takes every gen out: all load unserved
  if (vm.count("out-of-service")) {
    const std::string v = vm["out-of-service"].as<std::string>();
    try {
      grid::apply_outages(c, grid::parse_outages(v, c));
    } catch (const core::ConfigError& e) {
      throw UsageError{"--out-of-service '" + core::echo(v) + "': " + e.what()};
    }
    none_live = edit_darkens(c, p[0], v);
  }
  for (auto& b : c.bus) {
    b.pd_mw *= load_scale;
    b.qd_mvar *= load_scale;
  }
  const bool json = vm.count("json") > 0;
  // Every solver sees the case as energized; the report's bus types are the ones solved with.
  // The AC data are checked as the file gives them (a case without a REF bus is bad input, not
  // one whose first PV bus takes the reference).
  if (p[0] == "acpf" || p[0] == "acopf") grid::validate_ac_case(c);
  DeadLoad dead;
  const grid::Case e = energized_case(c, dead);
  if (p[0] == "contingencies") {
    // The screen re-solves islanding outages from the case as given (run_dcpf energizes it), so
    // its outages' dead_buses are those each outage adds to the base case's.
    const grid::N1Screen s = grid::screen_n1(c);
    if (!s.base.success && !s.base.message.empty())
      throw core::ConfigError(c.source_path + ": " + s.base.message);
    std::cout << with_dead_load(grid::n1_report(c, s, json), c, dead, json);
    return s.base.success ? 0 : 1;
  }
  if (p[0] == "scopf") {
    // Each energized island secured on its own, as `grid dcopf` balances each (issue 36: an edit
    // that cut off a loaded bus exited 2 with "expected a connected network").
    const grid::ScopfResult r = grid::solve_island_scopf(e);
    std::cout << with_dead_load(grid::scopf_report(e, r, json), e, dead, json);
    return r.ok() ? 0 : 1;
  }
  if (p[0] == "acpf") {
    grid::AcPfOptions o;
    o.enforce_q_lims = vm.count("enforce-q-lims") > 0;
    auto r = none_live ? grid::dark_acpf(e) : grid::AcPowerFlow(e).solve(o);
    dark(r, dead);
    r.n_dead_buses += static_cast<int>(dead.buses.size());
    std::cout << with_dead_load(grid::acpf_report(e, r, json), e, dead, json);
    return r.success ? 0 : 1;
  }
  if (p[0] == "acopf") {
    auto r = none_live ? grid::dark_acopf(e) : grid::AcOpf(e).solve();
    dark(r, dead);
    std::cout << with_dead_load(grid::acopf_report(e, r, json), e, dead, json);
    return r.ok() ? 0 : 1;
  }
  if (p[0] == "dcopf") {
    // Each energized island balances its own load (MATPOWER's rundcopf), as the env's OPF.
    grid::IslandDcOpf opf(e);
    std::vector<double> pd(e.n_bus());
    for (int b = 0; b < e.n_bus(); ++b) pd[b] = e.bus[b].pd_mw;
    const auto r = opf.solve(pd);
    std::cout << with_dead_load(grid::dcopf_report(e, r, json), e, dead, json);
    return r.ok() ? 0 : 1;
  }
  const auto r = none_live ? dark_dcpf(e) : grid::run_dcpf(e);
  if (!r.success && !r.message.empty()) throw core::ConfigError(c.source_path + ": " + r.message);
  std::cout << with_dead_load(grid::dcpf_report(e, r, json), e, dead, json);
  return r.success ? 0 : 1;
}

}  // namespace pz::cli
