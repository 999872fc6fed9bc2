// End-to-end tests of `powerzoo grid ... --out-of-service`, `grid contingencies` and `grid
// scopf`: the JSON carries what the library computes, islanding outages are named, an N-1
// infeasible case exits 1 and bad option values exit 2 naming the option and the value.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "test_grid_util.hpp"
#include "test_util.hpp"

namespace {

const std::string kBin = PZ_BINARY;

std::vector<double> doubles(const nlohmann::json& j) { return j.get<std::vector<double>>(); }

}  // namespace

TEST_SUITE("cli_grid_security") {
  TEST_CASE("grid dcpf --out-of-service equals the DC power flow of the edited case") {
    const pz::grid::Case base = pz::test::bundled("case118");
    // Row 9 (9-10) is the radial line to bus 10's generator: its outage islands bus 10, which
    // keeps its own reference; row 1 is meshed.
    for (const char* spec : {"branch:1", "branch:9", "branch:1,gen:3"}) {
      const auto r = pz::test::sh(kBin + " grid dcpf case118 --json --out-of-service " + spec);
      REQUIRE_MESSAGE(r.code == 0, r.out);
      const auto j = nlohmann::json::parse(r.out);
      pz::grid::Case c = base;
      if (std::string(spec).find("branch:1") == 0) c.branch[0].status = 0;
      if (std::string(spec) == "branch:9") c.branch[8].status = 0;
      if (std::string(spec).find("gen:3") != std::string::npos) c.gen[2].status = 0;
      const auto pf = pz::grid::run_dcpf(c);
      CHECK(doubles(j["branch_pf_mw"]) == pf.branch_pf_mw);
      CHECK(doubles(j["gen_pg_mw"]) == pf.gen_pg_mw);
    }
  }

  TEST_CASE("grid contingencies --json: every branch, LODF or re-solve, islands named") {
    const auto r = pz::test::sh(kBin + " grid contingencies case118 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out.substr(0, 400));
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["n_contingencies"] == 186);
    CHECK(j["n_lodf"].get<int>() + j["n_resolved"].get<int>() == 186);
    CHECK(j["n_resolved"].get<int>() > 0);
    bool saw_island = false;
    for (const auto& o : j["contingencies"]) {
      const int row = o["branch"];
      if (o["method"] == "islands") {
        saw_island = true;
        CHECK(!o["island_buses"].empty());
      }
      if (row == 1 || row == 9) {  // the same flows as dcpf --out-of-service
        const auto d = pz::test::sh(
            kBin + " grid dcpf case118 --json --out-of-service branch:" + std::to_string(row));
        const auto dj = nlohmann::json::parse(d.out);
        const double diff = pz::test::max_abs_diff(doubles(o["branch_pf_mw"]), dj["branch_pf_mw"]);
        CHECK_MESSAGE(diff <= 1e-9, "row " << row << ": " << diff);
      }
    }
    CHECK(saw_island);
    const auto t = pz::test::sh(kBin + " grid contingencies case30");
    CHECK(t.code == 0);
    CHECK(t.out.find("by LODF") != std::string::npos);
    CHECK(t.out.find("cuts off bus") != std::string::npos);
  }

  // Issue 36: losing 6-31 (bus 31 is case39's reference, with its unit) named the 38 buses on
  // the other side as cut off.
  TEST_CASE("regression: contingencies name the bus a bridge cuts off, not the rest") {
    const auto r = pz::test::sh(kBin + " grid contingencies case39 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out.substr(0, 400));
    const auto j = nlohmann::json::parse(r.out);
    int seen = 0;
    for (const auto& o : j["contingencies"]) {
      if (o["method"] != "islands") continue;
      const std::vector<int> cut = o["island_buses"];
      CHECK_MESSAGE(cut.size() < 20, "row " << o["branch"] << ": " << cut.size() << " buses");
      if (o["branch"] == 14) {  // row 14: 6-31
        CHECK(cut == std::vector<int>{31});
        CHECK(o["dead_buses"].empty());  // bus 31 keeps its unit; the rest gets a new reference
        ++seen;
      }
    }
    CHECK(seen == 1);
    const auto t = pz::test::sh(kBin + " grid contingencies case39");
    CHECK(t.out.find("cuts off bus 31 (own reference)") != std::string::npos);
  }

  TEST_CASE("grid scopf: the 3-bus dispatch by hand; an N-1 infeasible case exits 1") {
    // Load 100 MW at bus 3, gens at 1 (10 $/MWh) and 2 (30 $/MWh), rows 1-2 (60 MW), 1-3 (120),
    // 2-3 (RATE): with 1-3 out, 1-2 carries gen 1's output, so gen 2 runs 40 MW (1800 $/h).
    // With 2-3 at 90 MW, 1-3's outage leaves 100 MW on it whatever the dispatch.
    auto write_case = [](const std::string& tag, const std::string& rate) {
      const std::string text =
          "function mpc = three_bus\nmpc.version = '2';\nmpc.baseMVA = 100;\n"
          "mpc.bus = [\n1 3 0 0 0 0 1 1 0 230 1 1.1 0.9;\n2 2 0 0 0 0 1 1 0 230 1 1.1 0.9;\n"
          "3 1 100 0 0 0 1 1 0 230 1 1.1 0.9;\n];\n"
          "mpc.gen = [\n1 0 0 100 -100 1 100 1 200 0;\n2 0 0 100 -100 1 100 1 200 0;\n];\n"
          "mpc.branch = [\n1 2 0 0.1 0 60 60 60 0 0 1 -360 360;\n"
          "1 3 0 0.1 0 120 120 120 0 0 1 -360 360;\n2 3 0 0.1 0 " +
          rate + " " + rate + " " + rate +
          " 0 0 1 -360 360;\n];\n"
          "mpc.gencost = [\n2 0 0 2 10 0;\n2 0 0 2 30 0;\n];\n";
      return pz::test::write(pz::test::tmp_dir("pz_cli_scopf", tag) / "three_bus.m", text);
    };
    const auto r = pz::test::sh(kBin + " grid scopf " + write_case("ok", "120") + " --json");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["success"] == true);
    CHECK(j["objective"].get<double>() == doctest::Approx(1800.0).epsilon(1e-9));
    CHECK(j["dcopf_objective"].get<double>() == doctest::Approx(1000.0).epsilon(1e-9));
    CHECK(j["gen_pg_mw"][1].get<double>() == doctest::Approx(40.0).epsilon(1e-9));
    REQUIRE(j["binding"].size() == 1);
    CHECK(j["binding"][0]["outage"] == 2);
    CHECK(j["binding"][0]["branch"] == 1);
    const auto bad = pz::test::sh(kBin + " grid scopf " + write_case("infeasible", "90"));
    CHECK(bad.code == 1);
    CHECK(bad.out.find("infeasible") != std::string::npos);
    const auto t = pz::test::sh(kBin + " grid scopf case30");
    CHECK(t.code == 0);
    CHECK(t.out.find("Binding limits") != std::string::npos);
  }

  TEST_CASE("bad --out-of-service values exit 2 naming the option and the value") {
    for (const char* bad : {"line:1", "branch:0", "branch:999", "gen:x", "branch:2,branch:2"}) {
      const auto r = pz::test::sh(kBin + " grid dcpf case5 --out-of-service " + bad);
      CHECK_MESSAGE(r.code == 2, bad << ": " << r.out);
      CHECK_MESSAGE(r.out.find(std::string("--out-of-service '") + bad + "'") != std::string::npos,
                    r.out);
    }
  }
}
