// Security-constrained DC-OPF (grid/dc/scopf): a 3-bus case whose preventive dispatch is known
// by hand, every post-contingency flow of the dispatch within its rating by brute-force DC power
// flows (one per outage), its cost at least the DC-OPF's, and an infeasible case reported so.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/dc/scopf.hpp"
#include "test_grid_util.hpp"

namespace {

using pz::grid::Case;

/// Buses 1 (reference) and 2 with a gen each (10 and 30 $/MWh, 0..200 MW), 100 MW of load at
/// bus 3; rows 1-2 (RATE_A 60), 1-3 (120), 2-3 (120), reactances 0.1.
Case three_bus() {
  Case c;
  c.name = "three_bus";
  for (int id = 1; id <= 3; ++id) {
    pz::grid::Bus b;
    b.id = id;
    b.type = id == 1 ? 3 : id == 2 ? 2 : 1;
    b.pd_mw = id == 3 ? 100 : 0;
    c.bus.push_back(b);
  }
  for (int bus : {1, 2}) {
    pz::grid::Gen g;
    g.bus = bus;
    g.pmax_mw = 200;
    c.gen.push_back(g);
  }
  for (auto [f, t, rate] : {std::tuple{1, 2, 60.0}, {1, 3, 120.0}, {2, 3, 120.0}}) {
    pz::grid::Branch br;
    br.from = f;
    br.to = t;
    br.x_pu = 0.1;
    br.rate_a_mva = rate;
    c.branch.push_back(br);
  }
  c.gencost.push_back({2, 0, 0, {10, 0}, 0});
  c.gencost.push_back({2, 0, 0, {30, 0}, 0});
  c.finalize();
  return c;
}

/// Every flow of the dispatch within RATE_A (+ tol) in the base case and after each outage the
/// SCOPF secured, each by a full DC power flow of the case without the branch at that dispatch.
void check_secure_by_resolves(const Case& c, const pz::grid::ScopfResult& r, double tol) {
  Case d = c;
  for (int g = 0; g < d.n_gen(); ++g) d.gen[g].pg_mw = r.gen_pg_mw[g];
  int checked = 0;
  for (int k = -1; k < d.n_branch(); ++k) {
    if (k >= 0 &&
        (d.branch[k].status <= 0 || std::binary_search(r.islanding.begin(), r.islanding.end(), k)))
      continue;
    Case dk = d;
    if (k >= 0) dk.branch[k].status = 0;
    const auto pf = pz::grid::run_dcpf(dk);
    REQUIRE(pf.success);
    for (int l = 0; l < d.n_branch(); ++l) {
      const double rate = d.branch[l].rate_a_mva;
      if (rate > 0)
        CHECK_MESSAGE(std::abs(pf.branch_pf_mw[l]) <= rate + tol,
                      c.name << " outage " << k + 1 << " branch " << l + 1 << ": "
                             << pf.branch_pf_mw[l] << " MW, RATE_A " << rate);
    }
    ++checked;
  }
  CHECK(checked == r.n_contingencies + 1);
}

}  // namespace

TEST_SUITE("grid_scopf") {
  TEST_CASE("three buses: the outage of 1-3 puts gen 1's output on 1-2, so gen 2 runs 40 MW") {
    // Without contingencies gen 1 serves all 100 MW (1-2 carries 33.3 MW). With 1-3 out, gen 1's
    // output PG1 = 100 − PG2 reaches bus 3 through 1-2, whose 60 MW limit needs PG2 ≥ 40; the
    // other outages leave every flow within 120 MW. Cost 60·10 + 40·30 = 1800 $/h, and 1 MW more
    // on 1-2's rating saves 30 − 10 = 20 $/h.
    const Case c = three_bus();
    const auto r = pz::grid::solve_scopf(c);
    REQUIRE_MESSAGE(r.ok(), r.message);
    CHECK(r.dcopf_objective == doctest::Approx(1000.0).epsilon(1e-9));
    CHECK(r.gen_pg_mw[0] == doctest::Approx(60.0).epsilon(1e-9));
    CHECK(r.gen_pg_mw[1] == doctest::Approx(40.0).epsilon(1e-9));
    CHECK(r.objective == doctest::Approx(1800.0).epsilon(1e-9));
    CHECK(r.n_contingencies == 3);
    CHECK(r.islanding.empty());
    REQUIRE(r.binding.size() == 1);
    CHECK(r.binding[0].outage == 1);
    CHECK(r.binding[0].branch == 0);
    CHECK(r.binding[0].flow_mw == doctest::Approx(60.0).epsilon(1e-9));
    CHECK(r.binding[0].mu == doctest::Approx(20.0).epsilon(1e-9));
    CHECK(r.contingency_rows >= 1);
    // Base flows at (60, 40): gen 1's 60 MW split 2/3 on 1-3, 1/3 on 1-2-3; gen 2's 40 MW 2/3 on
    // 2-3, 1/3 on 2-1-3.
    CHECK(r.branch_pf_mw[0] == doctest::Approx(20.0 - 40.0 / 3).epsilon(1e-9));
    CHECK(r.branch_pf_mw[1] == doctest::Approx(40.0 + 40.0 / 3).epsilon(1e-9));
    CHECK(r.branch_pf_mw[2] == doctest::Approx(20.0 + 80.0 / 3).epsilon(1e-9));
    check_secure_by_resolves(c, r, 1e-6);
  }

  TEST_CASE("an N-1 infeasible case is reported infeasible") {
    // 2-3 rated 90 MW: with 1-3 out all 100 MW of bus 3 arrive over 2-3 whatever the dispatch.
    Case c = three_bus();
    c.branch[2].rate_a_mva = 90;
    REQUIRE(pz::grid::DcOpf(c).solve().ok());  // the base case alone is feasible
    const auto r = pz::grid::solve_scopf(c);
    CHECK(r.status == pz::grid::DcOpfStatus::kInfeasible);
    CHECK(r.message.find("infeasible") != std::string::npos);
  }

  TEST_CASE("bundled cases with ratings: every post-contingency flow within RATE_A by re-solves") {
    for (const char* name : {"case5", "case9", "case24_ieee_rts", "case30", "case39"}) {
      const Case c = pz::test::bundled(name);
      const auto r = pz::grid::solve_scopf(c);
      if (!r.ok()) {
        // Only an N-1 infeasible case may fail, never the solver.
        CHECK_MESSAGE(r.status == pz::grid::DcOpfStatus::kInfeasible, name << ": " << r.message);
        continue;
      }
      CHECK(r.objective >= r.dcopf_objective - 1e-9 * std::abs(r.dcopf_objective));
      // No limit added: the DC-OPF's problem, solved by another path (LP vertex + active set).
      if (r.base_rows + r.contingency_rows == 0)
        CHECK(r.objective == doctest::Approx(r.dcopf_objective).epsilon(1e-9));
      check_secure_by_resolves(c, r, 1e-5);
      MESSAGE(std::string(name) << ": objective " << r.objective << " (DC-OPF " << r.dcopf_objective
                                << "), " << r.n_contingencies << " outages, " << r.islanding.size()
                                << " islanding, " << r.base_rows << " + " << r.contingency_rows
                                << " rows, " << r.rounds << " solves, " << r.binding.size()
                                << " binding");
    }
  }

  TEST_CASE("case118 with 8-degree ratings: thousands of limits, all met by re-solves") {
    // The bundled case118 has no ratings (RATE_A = 0): rate each branch at the flow of an 8°
    // angle difference, baseMVA·(8π/180)/(x·tap), a common synthetic rating (the TSO task's).
    Case c = pz::test::bundled("case118");
    for (auto& br : c.branch)
      br.rate_a_mva = c.base_mva * (8.0 * 3.14159265358979323846 / 180.0) /
                      std::abs(br.x_pu * br.effective_tap());
    const auto r = pz::grid::solve_scopf(c);
    REQUIRE_MESSAGE(r.ok(), r.message);
    CHECK(r.objective > r.dcopf_objective + 1.0);  // security costs something here
    CHECK(r.contingency_rows > 0);
    CHECK(r.islanding.size() == 9);
    CHECK(!r.binding.empty());
    check_secure_by_resolves(c, r, 1e-5);
    MESSAGE("case118 8-degree ratings: objective "
            << r.objective << " (DC-OPF " << r.dcopf_objective << "), " << r.base_rows << " + "
            << r.contingency_rows << " rows, " << r.rounds << " solves");
  }
}
