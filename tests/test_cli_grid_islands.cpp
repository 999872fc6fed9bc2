// `powerzoo grid dcpf|acpf|dcopf|acopf --out-of-service` on an edit that de-energizes buses: the
// solvers read the edited case as every env does (grid::energize, MATPOWER's ext2int and
// bustypes), report the de-energized buses and their load as unserved and solve the rest; the
// OPF objectives equal the transmission env's OPF modes under the same outages.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

const std::string kBin = PZ_BINARY;

// The env's generation cost of its first step on case5 with branches 1 and 4 out from step 0:
// the OPF dispatch of the case's loads (DC-OPF or AC-OPF mode).
double env_opf_cost(bool ac) {
  envs::TransGridParams p;
  p.grid_case = grid::load_case(grid::resolve_case_path("case5"));
  p.horizon = 2;
  if (ac)
    p.solver = envs::TransGridParams::Solver::kAcOpf;
  else
    p.opf_dispatch = true;
  p.outages.schedule.path = "test.csv";
  for (int row : {1, 4})  // 1-based rows 1-2 and 2-3
    p.outages.schedule.events.push_back({0, data::OutageElement::kBranch, row, 0, 2});
  const envs::TransGrid env(std::move(p));
  auto st = env.make_state();
  core::Rng rng(1, 0);
  std::vector<float> obs(env.spec().obs_dim), costs(env.spec().cost_names.size());
  std::vector<float> a(env.spec().act_dim, 0.0f);
  env.reset(*st, rng, obs);
  envs::Info info;
  env.step(*st, a, rng, obs, costs, &info);
  REQUIRE(info.status == envs::StepStatus::kOk);
  CHECK(costs.back() == doctest::Approx(300.0));  // unserved_load: bus 2's PD
  return info.gen_cost;
}

}  // namespace

TEST_SUITE("cli_grid_islands") {
  // Issue 36: `grid acopf` failed (local infeasibility) and `grid dcopf` exited 2 on an edit
  // that cuts off a loaded bus, which `grid acpf` and the env handle.
  TEST_CASE("regression: case5 without 1-2 and 2-3: bus 2 de-energized, 300 MW unserved, solved") {
    const std::string edit = " case5 --out-of-service branch:1,branch:4 --json";
    for (const char* solver : {"dcpf", "acpf", "dcopf", "acopf"}) {
      CAPTURE(solver);
      const auto r = test::sh(kBin + " grid " + solver + edit);
      REQUIRE_MESSAGE(r.code == 0, r.out);
      const auto j = nlohmann::json::parse(r.out);
      CHECK(j["dead_bus"] == std::vector<int>{2});
      CHECK(j["unserved_mw"].get<double>() == 300.0);  // case5's PD at bus 2
      CHECK(j["success"] == true);
    }
    const auto dc = nlohmann::json::parse(test::sh(kBin + " grid dcopf" + edit).out);
    const auto ac = nlohmann::json::parse(test::sh(kBin + " grid acopf" + edit).out);
    // The DC dispatch serves 700 MW at buses 3 and 4 and no more.
    double pg = 0;
    for (double p : dc["gen_pg_mw"].get<std::vector<double>>()) pg += p;
    CHECK(pg == doctest::Approx(700.0).epsilon(1e-9));
    // By hand: line 4-5 (240 MW) binds; unit 5 (10 $/MWh) sends 665/368 of its output over it
    // (x 5-4 = 0.0297 against 5-1-4 = 0.0368), unit 3 (30 $/MWh, bus 3) serves the rest.
    const double p5 = 240.0 * 0.0665 / 0.0368;
    CHECK(dc["objective"].get<double>() == doctest::Approx(10 * p5 + 30 * (700 - p5)));
    CHECK(dc["objective"].get<double>() == doctest::Approx(env_opf_cost(false)).epsilon(1e-9));
    CHECK(ac["objective"].get<double>() == doctest::Approx(env_opf_cost(true)).epsilon(1e-7));
    CHECK(ac["bus_vm_pu"][1].get<double>() == 0.0);  // dark, as grid acpf and the env report it
    const auto text = test::sh(kBin + " grid acopf case5 --out-of-service branch:1,branch:4");
    CHECK(text.out.find("de-energized (island without an in-service gen): bus 2, 300.0000 MW of "
                        "PD not served") != std::string::npos);
  }

  // Issue 36 (a user trial): every gen out exited 2 blaming the case file ("case5.m: expected at
  // least one gen in service"). The solvers report the outcome, as the env does; the N-1 screen
  // and the SCOPF refuse the edit, naming it.
  TEST_CASE("regression: case5 with every gen out: every bus de-energized, 1000 MW unserved") {
    const std::string edit = " case5 --out-of-service gen:1,gen:2,gen:3,gen:4,gen:5";
    for (const char* solver : {"dcpf", "acpf", "dcopf", "acopf"}) {
      CAPTURE(solver);
      const auto r = test::sh(kBin + " grid " + solver + edit + " --json");
      REQUIRE_MESSAGE(r.code == 0, r.out);
      const auto j = nlohmann::json::parse(r.out);
      CHECK(j["dead_bus"] == std::vector<int>{1, 2, 3, 4, 5});
      CHECK(j["unserved_mw"].get<double>() == 1000.0);  // case5's PD: 300 + 300 + 400
      CHECK(j["success"] == true);
      CHECK(j["gen_pg_mw"].get<std::vector<double>>() == std::vector<double>(5, 0.0));
      CHECK(j["branch_pf_mw"].get<std::vector<double>>() == std::vector<double>(6, 0.0));
      const auto text = test::sh(kBin + " grid " + solver + edit);
      CHECK(text.code == 0);
      CHECK(text.out.find("bus 1, 2, 3, 4, 5, 1000.0000 MW of PD not served") != std::string::npos);
    }
    for (const char* solver : {"contingencies", "scopf"}) {
      CAPTURE(solver);
      const auto r = test::sh(kBin + " grid " + solver + edit);
      CHECK(r.code == 2);
      CHECK(r.out.find("--out-of-service 'gen:1,gen:2,gen:3,gen:4,gen:5': expected at least one "
                       "gen of") != std::string::npos);
    }
  }

  // Issue 36: the bus table showed bus 4 as the reference after its only generator was out.
  TEST_CASE("regression: dcpf without the slack bus's unit prints the bus types it solved with") {
    const auto r = test::sh(kBin + " grid dcpf case5 --out-of-service gen:4");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    CHECK(r.out.find("\n     1    3 ") != std::string::npos);  // bus 1: the first PV with a gen
    CHECK(r.out.find("\n     4    1 ") != std::string::npos);  // bus 4: PQ, its unit out
    CHECK(r.out.find("\n     4    3 ") == std::string::npos);
  }

  TEST_CASE("dcopf with two energized islands solves each with its own reference") {
    // case14 row 14 (7-8) cuts off bus 8 with its synchronous condenser (PMIN 0, no load).
    const auto r = test::sh(kBin + " grid dcopf case14 --out-of-service branch:14 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["dead_bus"].empty());
    CHECK(j["unserved_mw"].get<double>() == 0.0);
    const auto full = nlohmann::json::parse(test::sh(kBin + " grid dcopf case14 --json").out);
    double pg = 0, pg_full = 0;
    for (double p : j["gen_pg_mw"].get<std::vector<double>>()) pg += p;
    for (double p : full["gen_pg_mw"].get<std::vector<double>>()) pg_full += p;
    CHECK(pg == doctest::Approx(pg_full).epsilon(1e-9));  // the same 259 MW, none at bus 8
    CHECK(j["gen_pg_mw"][4].get<double>() == 0.0);
  }
}
