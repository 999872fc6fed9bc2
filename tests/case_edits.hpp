// Edits of a bundled case that a new user makes (issue 32): a generator out on the reference bus,
// a generator out elsewhere, a changed cost, a tightened PMAX, an islanded bus. Built in code from
// the bundled .m files so each edit is one visible line.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"

namespace pz::test {

struct CaseEdit {
  std::string what;
  grid::Case c;
};

inline std::vector<CaseEdit> case_edits(const std::string& name) {
  const grid::Case base = grid::load_case(grid::resolve_case_path(name));
  std::vector<CaseEdit> out;
  out.push_back({"plain", base});
  {  // every generator at the case's type-3 bus out: the reference must move
    grid::Case c = base;
    for (int g = 0; g < c.n_gen(); ++g)
      if (c.bus[c.gen_bus_idx[g]].type == 3) c.gen[g].status = 0;
    out.push_back({"gen out on the reference bus", std::move(c)});
  }
  {  // the last generator out (not at the reference bus in case5, case14, case118)
    grid::Case c = base;
    c.gen.back().status = 0;
    out.push_back({"gen out elsewhere", std::move(c)});
  }
  {  // the first generator's linear cost ×3 (+ 5 $/MWh)
    grid::Case c = base;
    auto& k = c.gencost[0].coeffs;
    k[k.size() - 2] = 3 * k[k.size() - 2] + 5;
    out.push_back({"changed cost", std::move(c)});
  }
  {  // the largest unit's PMAX halved
    grid::Case c = base;
    int big = 0;
    for (int g = 1; g < c.n_gen(); ++g)
      if (c.gen[g].pmax_mw > c.gen[big].pmax_mw) big = g;
    c.gen[big].pmax_mw *= 0.5;
    out.push_back({"tightened PMAX", std::move(c)});
  }
  {  // the first load bus without a gen whose branches can go without splitting the rest
    for (int b = 0; b < base.n_bus(); ++b) {
      bool gen = false;
      for (int g = 0; g < base.n_gen(); ++g) gen = gen || base.gen_bus_idx[g] == b;
      if (gen || base.bus[b].pd_mw <= 0) continue;
      grid::Case c = base;
      for (int l = 0; l < c.n_branch(); ++l)
        if (c.branch_from_idx[l] == b || c.branch_to_idx[l] == b) c.branch[l].status = 0;
      std::vector<int> dead;
      grid::energize(c, &dead);
      if (dead == std::vector<int>{b} && grid::find_islands(c).n == 2) {
        out.push_back({"islanded bus " + std::to_string(c.bus[b].id), std::move(c)});
        break;
      }
    }
  }
  return out;
}

}  // namespace pz::test
