// Line outage distribution factors and the N-1 screen (grid/dc/lodf, grid/dc/n1_screen): hand
// values on a triangle, bridges found on the graph, and the screen equal to a full DC power flow
// of the case without the branch for every branch of case118 and case300.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/lodf.hpp"
#include "powerzoo/grid/dc/n1_screen.hpp"
#include "test_grid_util.hpp"

namespace {

using pz::grid::Case;

/// Buses 1 (reference, gen), 2, 3 in a triangle of equal reactances 0.1 (rows 1-2, 1-3, 2-3),
/// plus bus 4 hanging off bus 3 (row 4, 3-4: a bridge). Loads 60 MW at 2, 30 at 3, 10 at 4.
Case triangle_with_tail() {
  Case c;
  c.name = "triangle";
  for (int id = 1; id <= 4; ++id) {
    pz::grid::Bus b;
    b.id = id;
    b.type = id == 1 ? 3 : 1;
    b.pd_mw = id == 2 ? 60 : id == 3 ? 30 : id == 4 ? 10 : 0;
    c.bus.push_back(b);
  }
  pz::grid::Gen g;
  g.bus = 1;
  g.pg_mw = 100;
  g.pmax_mw = 200;
  c.gen.push_back(g);
  for (auto [f, t] : {std::pair{1, 2}, {1, 3}, {2, 3}, {3, 4}}) {
    pz::grid::Branch br;
    br.from = f;
    br.to = t;
    br.x_pu = 0.1;
    c.branch.push_back(br);
  }
  c.gencost.push_back({2, 0, 0, {0, 10, 0}, 0});
  c.finalize();
  return c;
}

}  // namespace

TEST_SUITE("grid_lodf") {
  TEST_CASE("triangle: the outage of one side sends its whole flow around the other two") {
    const Case c = triangle_with_tail();
    const pz::grid::Lodf f(pz::grid::energize(c));
    // A transfer 1 -> 2 splits 2/3 on 1-2 and 1/3 on 1-3-2 (half the reactance, twice the
    // share): H[1-3, 1-2] = 1/3, H[2-3, 1-2] = -1/3, H[1-2, 1-2] = 2/3, so LODF = H / (1 - 2/3).
    CHECK(f.at(1, 0) == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(f.at(2, 0) == doctest::Approx(-1.0).epsilon(1e-12));
    CHECK(f.at(0, 0) == -1.0);
    CHECK(f.at(3, 0) == doctest::Approx(0.0).epsilon(1e-12));  // the tail carries bus 4's load
    // 2-3 out: its flow goes 2 -> 1 -> 3, against 1-2's direction and along 1-3's.
    CHECK(f.at(0, 2) == doctest::Approx(-1.0).epsilon(1e-12));
    CHECK(f.at(1, 2) == doctest::Approx(1.0).epsilon(1e-12));
    CHECK_FALSE(f.islands(0));
    CHECK(f.islands(3));
    CHECK(f.cut_buses(3) == std::vector<int>{3});          // bus 4 (index 3) is cut off
    for (int l = 0; l < 4; ++l) CHECK(f.at(l, 3) == 0.0);  // no factor for a bridge
  }

  TEST_CASE("triangle screen: LODF flows by hand, the tail's outage de-energizes bus 4") {
    const pz::grid::N1Screen s = pz::grid::screen_n1(triangle_with_tail());
    REQUIRE(s.base.success);
    REQUIRE(s.outages.size() == 4);
    CHECK(s.n_lodf == 3);
    CHECK(s.n_resolved == 1);
    // 1-2 out: bus 2's 60 MW come through 1-3-2; 1-3 carries 100, 2-3 carries -60.
    const auto& o = s.outages[0];
    CHECK(o.flow_mw[0] == 0.0);
    CHECK(o.flow_mw[1] == doctest::Approx(100.0).epsilon(1e-12));
    CHECK(o.flow_mw[2] == doctest::Approx(-60.0).epsilon(1e-12));
    CHECK(o.flow_mw[3] == doctest::Approx(10.0).epsilon(1e-12));
    const auto& tail = s.outages[3];
    CHECK(tail.islands);
    CHECK(tail.dead_buses == std::vector<int>{3});
    CHECK(tail.flow_mw[3] == 0.0);
    CHECK(tail.flow_mw[0] + tail.flow_mw[1] == doctest::Approx(90.0).epsilon(1e-12));
  }

  TEST_CASE("the LODF screen equals a full re-solve for every branch of case118 and case300") {
    for (const char* name : {"case118", "case300"}) {
      const std::string label = name;
      const Case c = pz::test::bundled(name);
      const pz::grid::N1Screen s = pz::grid::screen_n1(c);
      REQUIRE(s.base.success);
      int n = 0;
      double worst = 0;
      for (const auto& o : s.outages) {
        Case ck = c;
        ck.branch[o.branch].status = 0;
        const auto r = pz::grid::run_dcpf(ck);
        REQUIRE(r.success == o.success);
        // 1e-9 relative to 1 + |flow| (MW): case300's flows reach thousands of MW, and two
        // dense solves of its B matrix agree to ~1e-12 of them (4.4e-9 MW at worst).
        double d = 0;
        for (size_t l = 0; l < o.flow_mw.size(); ++l)
          d = std::max(
              d, std::abs(o.flow_mw[l] - r.branch_pf_mw[l]) / (1 + std::abs(r.branch_pf_mw[l])));
        worst = std::max(worst, pz::test::max_abs_diff(o.flow_mw, r.branch_pf_mw));
        CHECK_MESSAGE(d <= 1e-9, label << " branch " << o.branch + 1 << ": " << d);
        // An outage islands exactly when the re-solve has more islands than the base case.
        const bool split = pz::grid::find_islands(pz::grid::energize(ck)).n >
                           pz::grid::find_islands(pz::grid::energize(c)).n;
        const bool dark = r.dead_buses.size() > s.base.dead_buses.size();
        CHECK_MESSAGE(o.islands == (split || dark), label << " " << o.branch + 1);
        if (o.islands) {
          // The de-energized buses are among the buses cut off.
          for (int b : o.dead_buses)
            CHECK(std::binary_search(o.cut_buses.begin(), o.cut_buses.end(), b));
          CHECK_FALSE(o.cut_buses.empty());
        }
        ++n;
      }
      CHECK(s.n_lodf + s.n_resolved == n);
      CHECK(s.n_resolved > 0);
      CHECK(s.n_lodf > 100);
      MESSAGE(label << ": " << s.n_lodf << " LODF, " << s.n_resolved
                    << " re-solved, worst |LODF - re-solve| = " << worst << " MW");
    }
  }

  TEST_CASE("overloads are flows above RATE_A, unrated branches never overload") {
    Case c = triangle_with_tail();
    c.branch[1].rate_a_mva = 95;  // 1-3 at 95 MW: 1-2's outage puts 100 on it
    const pz::grid::N1Screen s = pz::grid::screen_n1(c);
    REQUIRE(s.outages.size() == 4);
    CHECK(s.outages[0].overloads == std::vector<int>{1});
    CHECK(s.outages[0].max_loading_pct == doctest::Approx(100.0 * 100.0 / 95.0));
    CHECK(s.outages[2].overloads.empty());  // 2-3 out: 1-3 carries 40
    CHECK(s.outages[3].overloads.empty());
  }
}
