// The SCOPF island by island (see island_scopf.hpp), split as grid::IslandDcOpf splits the
// DC-OPF.
#include "powerzoo/grid/dc/island_scopf.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "powerzoo/grid/case/energized.hpp"

namespace pz::grid {

namespace {

// Adds island result `r` to the running sum `out` (rows of different islands are disjoint: a
// gen or branch outside r's island is out of service in its sub-case, so r holds 0 there).
void add_island(const ScopfResult& r, ScopfResult& out) {
  out.objective += r.objective;
  out.dcopf_objective += r.dcopf_objective;
  for (size_t g = 0; g < out.gen_pg_mw.size(); ++g) out.gen_pg_mw[g] += r.gen_pg_mw[g];
  for (size_t l = 0; l < out.branch_pf_mw.size(); ++l) out.branch_pf_mw[l] += r.branch_pf_mw[l];
  out.n_contingencies += r.n_contingencies;
  out.islanding.insert(out.islanding.end(), r.islanding.begin(), r.islanding.end());
  out.base_rows += r.base_rows;
  out.contingency_rows += r.contingency_rows;
  out.rounds += r.rounds;
  out.binding.insert(out.binding.end(), r.binding.begin(), r.binding.end());
}

}  // namespace

ScopfResult solve_island_scopf(const Case& net) {
  const int nb = net.n_bus();
  int n_refs = 0;
  for (const auto& b : net.bus) n_refs += b.type == 3;
  ScopfResult out;
  out.gen_pg_mw.assign(net.n_gen(), 0.0);
  out.branch_pf_mw.assign(net.n_branch(), 0.0);
  out.status = DcOpfStatus::kOptimal;
  if (n_refs == 0) return out;  // nothing energized: nothing to dispatch or secure
  const Islands isl = find_islands(net);
  for (int b = 0; b < nb; ++b) {
    if (net.bus[b].type != 3) continue;
    // The island of REF bus b alone: every other bus of type 4 with no load (solve_scopf's
    // balance counts every row's PD and GS).
    Case sub = net;
    for (int k = 0; k < nb; ++k) {
      if (isl.island[k] == isl.island[b]) continue;
      sub.bus[k].type = 4;
      sub.bus[k].pd_mw = sub.bus[k].qd_mvar = sub.bus[k].gs_mw = 0;
    }
    if (n_refs > 1) sub = energize(sub);
    ScopfResult r = solve_scopf(sub);
    if (!r.ok()) {
      if (n_refs > 1)
        r.message = "island of bus " + std::to_string(net.bus[b].id) + ": " + r.message;
      return r;
    }
    add_island(r, out);
  }
  std::sort(out.islanding.begin(), out.islanding.end());
  std::stable_sort(out.binding.begin(), out.binding.end(),
                   [](const ScopfBinding& a, const ScopfBinding& b) {
                     return std::tie(a.outage, a.branch) < std::tie(b.outage, b.branch);
                   });
  return out;
}

}  // namespace pz::grid
