// Shared fixture of the market tests: the GenCos task's five units on case5.
#pragma once

#include <vector>

#include "powerzoo/market/clearing.hpp"

namespace pz::test {

/// The GenCos units of case5 (PowerZooJax tasks/gencos.py): (gen row, pmin, pmax, c), a = b = 0.
inline std::vector<market::OfferUnit> gencos_units() {
  const double pmin[] = {5, 10, 20, 10, 20}, pmax[] = {40, 170, 520, 200, 600},
               c[] = {14, 15, 30, 40, 10};
  std::vector<market::OfferUnit> u(5);
  for (int i = 0; i < 5; ++i) {
    u[i].gen_row = i;
    u[i].pmin_mw = pmin[i];
    u[i].pmax_mw = pmax[i];
    u[i].mc_c = c[i];
  }
  return u;
}

}  // namespace pz::test
