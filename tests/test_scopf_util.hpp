// The brute-force N-1 check shared by the tests of the scopf baselines (trans_grid's and the TSO
// task's): a full DC power flow per branch outage, independent of the LODF screen's flows.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/n1_screen.hpp"

namespace pz::test {

/// How many post-contingency flows of the dispatch `pg` [n_gen, MW] on `c` exceed RATE_A + `tol`
/// (MW), by a full DC power flow of the case without each in-service branch whose outage does not
/// island (grid::screen_n1 names those).
inline int brute_force_n1_overloads(grid::Case c, const std::vector<double>& pg, double tol) {
  for (int g = 0; g < c.n_gen(); ++g) c.gen[g].pg_mw = pg[g];
  int bad = 0;
  for (const auto& o : grid::screen_n1(c).outages) {
    if (o.islands) continue;
    grid::Case out = c;
    out.branch[o.branch].status = 0;
    const grid::DcPfResult r = grid::run_dcpf(out);
    REQUIRE(r.success);
    for (int l = 0; l < c.n_branch(); ++l) {
      const double rate = c.branch[l].rate_a_mva;
      if (l != o.branch && rate > 0 && std::abs(r.branch_pf_mw[l]) > rate + tol) ++bad;
    }
  }
  return bad;
}

}  // namespace pz::test
