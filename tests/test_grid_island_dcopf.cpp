// grid::IslandDcOpf: a network of two energized islands and a de-energized bus, solved by hand
// (each island balances its own load at its own unit's price); one island equals DcOpf.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/dc/island_dcopf.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

// Buses 1-2 (gen at 1, 10 $/MWh; 50 MW at 2) and 3-4 (gen at 3, a PV bus, 20 $/MWh; 30 MW at 4),
// joined by 2-3 out of service; bus 5 (7 MW) hangs on 4-5, out of service.
grid::Case two_islands() {
  const std::string text =
      "function mpc = two_islands\nmpc.version = '2';\nmpc.baseMVA = 100;\n"
      "mpc.bus = [\n1 3 0 0 0 0 1 1 0 230 1 1.1 0.9;\n2 1 50 0 0 0 1 1 0 230 1 1.1 0.9;\n"
      "3 2 0 0 0 0 1 1 0 230 1 1.1 0.9;\n4 1 30 0 0 0 1 1 0 230 1 1.1 0.9;\n"
      "5 1 7 0 0 0 1 1 0 230 1 1.1 0.9;\n];\n"
      "mpc.gen = [\n1 0 0 100 -100 1 100 1 100 0;\n3 0 0 100 -100 1 100 1 100 0;\n];\n"
      "mpc.branch = [\n1 2 0 0.1 0 100 100 100 0 0 1 -360 360;\n"
      "2 3 0 0.1 0 100 100 100 0 0 0 -360 360;\n3 4 0 0.1 0 100 100 100 0 0 1 -360 360;\n"
      "4 5 0 0.1 0 100 100 100 0 0 0 -360 360;\n];\n"
      "mpc.gencost = [\n2 0 0 2 10 0;\n2 0 0 2 20 0;\n];\n";
  const auto path = test::write(test::tmp_dir("pz_island_dcopf", "two") / "two_islands.m", text);
  return grid::load_case(path);
}

}  // namespace

TEST_SUITE("grid_island_dcopf") {
  TEST_CASE("two islands and a dead bus: each island balances its own load, by hand") {
    std::vector<int> dead;
    const grid::Case e = grid::energize(two_islands(), &dead);
    CHECK(dead == std::vector<int>{4});  // bus 5
    CHECK(e.bus[2].type == 3);           // bus 3 promoted: its island's reference
    grid::IslandDcOpf opf(e);
    CHECK(opf.n_islands() == 2);
    const grid::DcOpfResult r = opf.solve({0, 50, 0, 30, 7});
    REQUIRE(r.ok());
    CHECK(r.objective == doctest::Approx(10 * 50 + 20 * 30).epsilon(1e-12));
    CHECK(r.gen_pg_mw[0] == doctest::Approx(50));
    CHECK(r.gen_pg_mw[1] == doctest::Approx(30));
    CHECK(r.branch_pf_mw[0] == doctest::Approx(50));
    CHECK(r.branch_pf_mw[2] == doctest::Approx(30));
    CHECK(r.branch_pf_mw[1] == 0.0);
    CHECK(r.bus_lam_p[1] == doctest::Approx(10));
    CHECK(r.bus_lam_p[3] == doctest::Approx(20));
    CHECK(r.bus_lam_p[4] == 0.0);  // de-energized
  }

  TEST_CASE("one island: the result of DcOpf on the case") {
    const grid::Case e = grid::energize(grid::load_case(grid::resolve_case_path("case5")));
    grid::IslandDcOpf opf(e);
    CHECK(opf.n_islands() == 1);
    std::vector<double> pd;
    for (const auto& b : e.bus) pd.push_back(b.pd_mw);
    const grid::DcOpfResult a = opf.solve(pd), b = grid::DcOpf(e).solve(pd);
    REQUIRE(a.ok());
    CHECK(a.objective == b.objective);
    CHECK(a.gen_pg_mw == b.gen_pg_mw);
    CHECK(a.bus_lam_p == b.bus_lam_p);
  }

  TEST_CASE("regression: one energized island and a dead bus: the dead bus has no price") {
    // case5 without 1-2 and 2-3 (a user trial: `grid dcopf` priced the cut-off bus 2 at 30).
    grid::Case c = grid::load_case(grid::resolve_case_path("case5"));
    c.branch[0].status = 0;
    c.branch[3].status = 0;
    std::vector<int> dead;
    const grid::Case e = grid::energize(c, &dead);
    CHECK(dead == std::vector<int>{1});
    grid::IslandDcOpf opf(e);
    CHECK(opf.n_islands() == 1);
    std::vector<double> pd;
    for (const auto& b : c.bus) pd.push_back(b.pd_mw);
    const grid::DcOpfResult r = opf.solve(pd);
    REQUIRE(r.ok());
    CHECK(r.bus_lam_p[1] == 0.0);
    CHECK(r.bus_va_deg[1] == 0.0);
    CHECK(r.bus_lam_p[3] > 0.0);  // the energized buses keep theirs
    CHECK(r.gen_pg_mw[0] + r.gen_pg_mw[1] + r.gen_pg_mw[2] + r.gen_pg_mw[3] + r.gen_pg_mw[4] ==
          doctest::Approx(700));  // 1000 MW of load less bus 2's 300
  }

  // Issue 36: every gen out ended the env's OPF-mode episodes (kInfeasible) and made `grid
  // dcopf` exit 1; nothing energized is an outcome: nothing dispatched, the load not served.
  TEST_CASE("regression: no generator in service: optimal with nothing energized, not a throw") {
    grid::Case c = two_islands();
    for (auto& g : c.gen) g.status = 0;
    const grid::Case e = grid::energize(c);
    grid::IslandDcOpf opf(e);
    CHECK(opf.n_islands() == 0);
    const grid::DcOpfResult r = opf.solve({0, 50, 0, 30, 7});
    CHECK(r.status == grid::DcOpfStatus::kOptimal);
    CHECK(r.objective == 0.0);
    CHECK(r.gen_pg_mw == std::vector<double>(c.n_gen(), 0.0));
    CHECK(r.branch_pf_mw == std::vector<double>(c.n_branch(), 0.0));
    CHECK(r.bus_lam_p == std::vector<double>(c.n_bus(), 0.0));
    CHECK(r.bus_va_deg.size() == static_cast<size_t>(c.n_bus()));
  }
}
