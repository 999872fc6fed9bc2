// Edits of a bundled feeder (issue 32) and the check that a DistGrid step equals
// `powerzoo grid distflow`'s solution of the same edited file (grid::solve_case) with the env's
// net loads: a lateral cut off by a branch out, a bus set to type 4, a changed load, a DG in
// service and the same DG out of service. Each edit states the buses it de-energizes, read off
// the case's branch table by hand.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "powerzoo/envs/dist_grid.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dist/distflow.hpp"

namespace pz::test {

struct FeederEdit {
  std::string what;
  grid::Case c;
  std::vector<int> dead_ids;  ///< bus ids the edit de-energizes
};

/// The edits of `name` (case33bw or case141): `lateral` is the branch row (1-based) whose opening
/// cuts off the buses `lateral_dead`; `type4` a bus set to type 4 with its downstream buses
/// `type4_dead`; `load_bus` gets 3× its PD and QD; `dg_bus` a DG row (PG 0.3 MW, QG 0.1 MVAr).
inline std::vector<FeederEdit> feeder_edits(const std::string& name, int lateral,
                                            std::vector<int> lateral_dead, int type4,
                                            std::vector<int> type4_dead, int load_bus, int dg_bus) {
  const grid::Case base = grid::load_case(grid::resolve_case_path(name));
  std::vector<FeederEdit> out;
  out.push_back({"plain", base, {}});
  {
    grid::Case c = base;
    c.branch[lateral - 1].status = 0;
    out.push_back({"branch row " + std::to_string(lateral) + " out", c, lateral_dead});
  }
  {
    grid::Case c = base;
    c.bus[c.bus_index(type4)].type = 4;
    out.push_back({"bus " + std::to_string(type4) + " type 4", c, type4_dead});
  }
  {
    grid::Case c = base;
    c.bus[c.bus_index(load_bus)].pd_mw *= 3;
    c.bus[c.bus_index(load_bus)].qd_mvar *= 3;
    out.push_back({"load at bus " + std::to_string(load_bus) + " x3", c, {}});
  }
  for (const int status : {1, 0}) {
    grid::Case c = base;
    grid::Gen g = c.gen[0];
    g.bus = dg_bus;
    g.pg_mw = 0.3;
    g.qg_mvar = 0.1;
    g.status = status;
    c.gen.push_back(g);
    c.gencost.push_back(c.gencost.empty() ? grid::GenCost{} : c.gencost[0]);
    c.finalize();
    out.push_back(
        {"DG at bus " + std::to_string(dg_bus) + (status ? " in service" : " out"), c, {}});
  }
  return out;
}

/// Checks the env's state after a step against grid::solve_case on the edited file `edit` with
/// the env's net loads as PD/QD (the case's DG rows stay: solve_case injects them as the env
/// does, so their PG/QG are added back to the env's net load) and the env's slack voltage as the
/// substation's VG: voltages, sending-end line flows and losses to 1e-9, de-energized buses at
/// 0 p.u. Returns the solution.
inline grid::DistFlowResult check_step_against_distflow(const envs::DistGrid& env,
                                                        const envs::DistGrid::GridState& s,
                                                        const FeederEdit& edit) {
  grid::Case at = edit.c;
  const int root = env.network().ref_bus();
  for (int b = 0; b < at.n_bus(); ++b) {
    at.bus[b].pd_mw = s.pl[b];
    at.bus[b].qd_mvar = s.ql[b];
  }
  for (int g = 0; g < at.n_gen(); ++g) {
    const int b = at.gen_bus_idx[g];
    if (b == root) at.gen[g].vg_pu = env.params().v_slack;
    if (b == root || at.gen[g].status <= 0) continue;
    at.bus[b].pd_mw += at.gen[g].pg_mw;
    at.bus[b].qd_mvar += at.gen[g].qg_mvar;
  }
  const grid::DistFlowResult r = grid::solve_case(at);
  REQUIRE(r.converged);
  for (int b = 0; b < at.n_bus(); ++b) CHECK(std::abs(s.v[b] - r.bus_vm_pu[b]) < 1e-9);
  for (int id : edit.dead_ids) CHECK(s.v[at.bus_index(id)] == 0.0);
  CHECK(std::abs(s.loss_mw - r.total_losses_mw) < 1e-9);
  const auto& c = env.params().grid_case;
  int i = 0;
  for (int k = 0; k < c.n_branch(); ++k) {
    if (c.branch[k].status <= 0) {
      CHECK(r.branch_pf_mw[k] == 0.0);
      continue;
    }
    const bool fwd = env.network().from_is_sending(k);
    CHECK(std::abs(s.p_line_mw[i] - (fwd ? r.branch_pf_mw[k] : r.branch_pt_mw[k])) < 1e-9);
    CHECK(std::abs(s.q_line_mvar[i] - (fwd ? r.branch_qf_mvar[k] : r.branch_qt_mvar[k])) < 1e-9);
    ++i;
  }
  CHECK(i == env.n_lines());
  return r;
}

}  // namespace pz::test
