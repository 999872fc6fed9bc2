// Fixtures shared by the tests of the unit-commitment dispatch (grid::MeritOrder and
// grid::DispatchLp): a 3-bus triangle whose dispatch is computed by hand, and the bus loads and
// ratings their constructors take.
#pragma once

#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::test {

/// Triangle 1-2, 2-3, 1-3 (equal reactances; 1-2 and 2-3 rated `rate_other`, 1-3 rated `rate13`,
/// MW), reference bus 1, 100 MW of load at bus 3. Units: bus 1 at 20 $/MWh [0, 100], bus 2 at
/// 10 $/MWh [10, 50], bus 3 at 30 $/MWh [0, 100]. The flow 1→3 is 2/3 of the load at bus 3 minus
/// p2/3 + 2·p3/3 (bus 1 and the balance slack are at the reference).
inline grid::Case dispatch_triangle(double rate13, double rate_other) {
  const auto branch = [](int from, int to, double rate) {  // RATE_A = RATE_B = RATE_C
    const std::string r = std::to_string(rate);
    return std::to_string(from) + " " + std::to_string(to) + " 0 0.1 0 " + r + " " + r + " " + r +
           " 0 0 1";
  };
  const std::string text = R"(mpc.baseMVA = 100;
mpc.bus = [1 3 0 0 0 0 1 1 0 230 1 1.1 0.9; 2 2 0 0 0 0 1 1 0 230 1 1.1 0.9;
           3 2 100 0 0 0 1 1 0 230 1 1.1 0.9];
mpc.gen = [1 0 0 0 0 1 100 1 100 0; 2 0 0 0 0 1 100 1 50 10; 3 0 0 0 0 1 100 1 100 0];
mpc.branch = [)" + branch(1, 2, rate_other) +
                           "; " + branch(2, 3, rate_other) + "; " + branch(1, 3, rate13) + R"(];
mpc.gencost = [2 0 0 2 20 0; 2 0 0 2 10 0; 2 0 0 2 30 0];
)";
  return grid::parse_case(text, "triangle.m");
}

/// PD of every bus (MW), in bus order.
inline std::vector<double> bus_pd(const grid::Case& c) {
  std::vector<double> pd;
  for (const auto& b : c.bus) pd.push_back(b.pd_mw);
  return pd;
}

/// rate_a > 0 ? rate_a : 1e6 (unrated), as the envs screen.
inline std::vector<double> ratings(const grid::Case& c) {
  std::vector<double> r;
  for (const auto& br : c.branch) r.push_back(br.rate_a_mva > 0 ? br.rate_a_mva : 1e6);
  return r;
}

}  // namespace pz::test
