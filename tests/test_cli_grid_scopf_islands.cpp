// grid::solve_island_scopf and `powerzoo grid scopf|contingencies` on a case or edit that
// de-energizes buses or splits the network (issue 36: `grid scopf` exited 2 with "expected a
// connected network" without naming the --out-of-service edit, and neither command reported the
// buses left without a gen). Checked against the SCOPF of the case with the dead bus deleted, a
// dispatch by hand, and a brute-force N-1 power flow of each island's dispatch.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/scopf.hpp"
#include "test_grid_util.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

const std::string kBin = PZ_BINARY;

std::vector<double> doubles(const nlohmann::json& j) { return j.get<std::vector<double>>(); }

}  // namespace

TEST_SUITE("cli_grid_scopf_islands") {
  // case5 without 1-2 and 2-3: bus 2 (300 MW) has no gen left and is de-energized. On buses 1,
  // 3, 4, 5 (load 700 MW) 3-4 is a bridge (left out); losing 1-4 sends units 1, 2 and 5 over
  // 4-5 (240 MW), losing 1-5 sends unit 5 over it: PG1 + PG2 + PG5 ≤ 240 and PG5 ≤ 240, so the
  // cheapest unit 5 (10 $/MWh) runs 240 MW, units 1 and 2 nothing, unit 3 (30 $/MWh) 460 MW:
  // 2400 + 13800 = 16200 $/h; μ = 30 − 14 = 16 on the first limit, 14 − 10 = 4 on the second.
  TEST_CASE("regression: scopf of case5 without 1-2 and 2-3: bus 2 dead, the rest secured") {
    const auto r = test::sh(kBin + " grid scopf case5 --out-of-service branch:1,branch:4 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["success"] == true);
    CHECK(j["dead_bus"] == std::vector<int>{2});
    CHECK(j["unserved_mw"].get<double>() == 300.0);
    CHECK(j["objective"].get<double>() == doctest::Approx(16200.0).epsilon(1e-9));
    const std::vector<double> pg = doubles(j["gen_pg_mw"]);
    const std::vector<double> want = {0, 0, 460, 0, 240};
    CHECK(test::max_abs_diff(pg, want) < 1e-6);
    CHECK(j["islanding_branches"] == std::vector<int>{5});
    CHECK(j["n_contingencies"] == 3);
    REQUIRE(j["binding"].size() == 2);
    CHECK(j["binding"][0]["mu"].get<double>() == doctest::Approx(16.0).epsilon(1e-6));
    CHECK(j["binding"][1]["mu"].get<double>() == doctest::Approx(4.0).epsilon(1e-6));

    // The same as the SCOPF of case5 with bus 2 and its two branches deleted.
    grid::Case cut = test::bundled("case5");
    cut.bus.erase(cut.bus.begin() + 1);
    cut.branch.erase(cut.branch.begin() + 3);  // 2-3
    cut.branch.erase(cut.branch.begin());      // 1-2
    cut.finalize();
    const grid::ScopfResult ref = grid::solve_scopf(cut);
    REQUIRE(ref.ok());
    CHECK(j["objective"].get<double>() == doctest::Approx(ref.objective).epsilon(1e-12));
    CHECK(test::max_abs_diff(pg, ref.gen_pg_mw) < 1e-9);
    const std::vector<double> pf = doubles(j["branch_pf_mw"]);
    CHECK(pf[0] == 0.0);
    CHECK(pf[3] == 0.0);
    const std::vector<double> pf_kept = {pf[1], pf[2], pf[4], pf[5]};
    CHECK(test::max_abs_diff(pf_kept, ref.branch_pf_mw) < 1e-9);

    const auto text = test::sh(kBin + " grid scopf case5 --out-of-service branch:1,branch:4");
    CHECK(text.code == 0);
    CHECK(text.out.find("de-energized (island without an in-service gen): bus 2, 300.0000 MW of "
                        "PD not served") != std::string::npos);
  }

  // case39 without 6-31 (row 14): bus 31, the reference, keeps its unit and its 9.2 MW of load;
  // the other 38 buses take bus 30's unit as reference. Each island is secured on its own.
  TEST_CASE("scopf with two energized islands: each secured, flows within RATE_A after N-1") {
    const auto r =
        test::sh(kBin + " grid scopf case39 --load-scale 0.7 --out-of-service branch:14 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out.substr(0, 400));
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["dead_bus"].empty());
    CHECK(j["unserved_mw"].get<double>() == 0.0);
    CHECK(j["gen_pg_mw"][1].get<double>() == doctest::Approx(0.7 * 9.2).epsilon(1e-9));
    CHECK(j["branch_pf_mw"][13].get<double>() == 0.0);
    // Without contingency limits the islands' DC-OPFs are `grid dcopf`'s of the same edit.
    const auto dc = nlohmann::json::parse(
        test::sh(kBin + " grid dcopf case39 --load-scale 0.7 --out-of-service branch:14 --json")
            .out);
    CHECK(j["dcopf_objective"].get<double>() ==
          doctest::Approx(dc["objective"].get<double>()).epsilon(1e-9));
    CHECK(j["objective"].get<double>() > dc["objective"].get<double>() + 1.0);  // security binds
    // Brute force: the dispatch's DC power flow after each outage that does not island.
    grid::Case c = test::bundled("case39");
    for (auto& b : c.bus) b.pd_mw *= 0.7, b.qd_mvar *= 0.7;
    c.branch[13].status = 0;
    const std::vector<double> pg = doubles(j["gen_pg_mw"]);
    for (int g = 0; g < c.n_gen(); ++g) c.gen[g].pg_mw = pg[g];
    const std::vector<int> islanding = j["islanding_branches"];
    int n_checked = 0;
    double worst = 0;
    for (int k = 0; k < c.n_branch(); ++k) {
      if (c.branch[k].status <= 0) continue;
      if (std::find(islanding.begin(), islanding.end(), k + 1) != islanding.end()) continue;
      grid::Case ck = c;
      ck.branch[k].status = 0;
      const grid::DcPfResult pf = grid::run_dcpf(ck);
      REQUIRE(pf.success);
      for (int l = 0; l < c.n_branch(); ++l) {
        const double rate = c.branch[l].rate_a_mva;
        if (rate > 0) worst = std::max(worst, std::abs(pf.branch_pf_mw[l]) - rate);
      }
      ++n_checked;
    }
    CHECK(n_checked == j["n_contingencies"].get<int>());
    CHECK(n_checked == 35);
    CHECK(worst < 1e-6);
  }

  TEST_CASE("an island that cannot balance its load fails the SCOPF naming its reference bus") {
    // case5 without 1-5 and 4-5: bus 5 (unit 5, 600 MW) alone; buses 1-4 have 930 MW of units
    // for 1000 MW of load.
    const auto r = test::sh(kBin + " grid scopf case5 --out-of-service branch:3,branch:6");
    CHECK(r.code == 1);
    CHECK(r.out.find("island of bus 4: the DC-OPF without contingency limits is not optimal") !=
          std::string::npos);
  }

  TEST_CASE("no energized island: nothing to dispatch, optimal") {
    grid::Case c = test::bundled("case5");
    for (auto& g : c.gen) g.status = 0;
    const grid::ScopfResult r = grid::solve_island_scopf(grid::energize(c));
    CHECK(r.ok());
    CHECK(r.gen_pg_mw == std::vector<double>(5, 0.0));
    CHECK(r.branch_pf_mw == std::vector<double>(6, 0.0));
  }

  TEST_CASE("regression: contingencies report the dead buses of the edit (dead_bus, unserved_mw)") {
    const auto r =
        test::sh(kBin + " grid contingencies case5 --out-of-service branch:1,branch:4 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["dead_bus"] == std::vector<int>{2});
    CHECK(j["unserved_mw"].get<double>() == 300.0);
    CHECK(j["n_contingencies"] == 4);  // rows 2, 3, 5, 6 (1-2 and 2-3 out)
    const auto pf = nlohmann::json::parse(
        test::sh(kBin + " grid dcpf case5 --out-of-service branch:1,branch:4 --json").out);
    CHECK(test::max_abs_diff(doubles(j["branch_pf_mw"]), pf["branch_pf_mw"]) == 0.0);
    const auto text =
        test::sh(kBin + " grid contingencies case5 --out-of-service branch:1,branch:4");
    CHECK(text.out.find("de-energized (island without an in-service gen): bus 2, 300.0000 MW of "
                        "PD not served") != std::string::npos);
    // An intact case reports none.
    const auto full =
        nlohmann::json::parse(test::sh(kBin + " grid contingencies case5 --json").out);
    CHECK(full["dead_bus"].empty());
    CHECK(full["unserved_mw"].get<double>() == 0.0);
  }
}
