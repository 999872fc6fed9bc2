// `powerzoo grid distflow --out-of-service`: lines out as the dist envs take them out under an
// outage (grid::feeder_lines_out), the part below each line de-energized and its load reported
// as not served; the voltages, flows and losses are the env's under the same outage, and gen
// rows are refused as the env refuses them.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "powerzoo/envs/dist_grid.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "test_env_util.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

const std::string kBin = PZ_BINARY;

// The plain dist_grid env on case33bw (no DERs, slack at the case's VG = 1 p.u.) with branch
// rows `out` (1-based) out from step 0, after its first step.
struct EnvStep {
  std::vector<double> v, pf, qf;
  double loss_mw = 0, unserved_mw = 0;
};

EnvStep env_step(const std::vector<int>& out) {
  envs::DistGridParams p;
  p.grid_case = grid::load_case(grid::resolve_case_path("case33bw"));
  p.horizon = 2;
  p.include_der = false;
  p.v_slack = 1.0;
  p.outages.schedule.path = "test.csv";
  for (int r : out) p.outages.schedule.events.push_back({0, data::OutageElement::kBranch, r, 0, 2});
  const envs::DistGrid env(std::move(p));
  const auto [st, obs, costs, info] = test::zero_action_step(env);
  const auto& s = static_cast<const envs::DistGrid::GridState&>(*st);
  EnvStep e;
  e.v.assign(s.v.begin(), s.v.end());
  e.pf = s.flow.branch_pf_mw;
  e.qf = s.flow.branch_qf_mvar;
  e.loss_mw = s.loss_mw;
  e.unserved_mw = costs.back();  // unserved_load (float)
  return e;
}

}  // namespace

TEST_SUITE("cli_grid_distflow") {
  // Issue 36: `grid distflow` had no --out-of-service while every other grid command has one.
  TEST_CASE("distflow --out-of-service equals the dist_grid env under the same line outage") {
    // Row 20 (bus 20-21) cuts off buses 21 and 22 (90 + 90 kW); rows 14 and 22 cut off 15-18
    // on the main feeder and 23-25 on a lateral; row 1 cuts off everything but the substation.
    for (const std::string spec : {"branch:20", "branch:14,branch:22", "branch:1"}) {
      CAPTURE(spec);
      const auto r = test::sh(kBin + " grid distflow case33bw --json --out-of-service " + spec);
      REQUIRE_MESSAGE(r.code == 0, r.out);
      const auto j = nlohmann::json::parse(r.out);
      std::vector<int> rows;
      for (size_t i = 0; i < spec.size(); ++i)
        if (spec.compare(i, 7, "branch:") == 0) rows.push_back(std::stoi(spec.substr(i + 7)));
      const EnvStep e = env_step(rows);
      const auto vm = j["bus_vm_pu"].get<std::vector<double>>();
      const auto pf = j["branch_pf_mw"].get<std::vector<double>>();
      const auto qf = j["branch_qf_mvar"].get<std::vector<double>>();
      REQUIRE(vm.size() == e.v.size());
      for (size_t b = 0; b < vm.size(); ++b) CHECK(std::abs(vm[b] - e.v[b]) < 1e-9);
      for (size_t k = 0; k < pf.size(); ++k) {
        CHECK(std::abs(pf[k] - e.pf[k]) < 1e-8);
        CHECK(std::abs(qf[k] - e.qf[k]) < 1e-8);
      }
      CHECK(std::abs(j["total_losses_mw"].get<double>() - e.loss_mw) < 1e-9);
      CHECK(std::abs(j["pd_not_served_mw"].get<double>() - e.unserved_mw) < 1e-5);
      if (spec == "branch:20") {
        CHECK(j["dead_buses"] == std::vector<int>{21, 22});
        CHECK(j["pd_not_served_mw"].get<double>() == doctest::Approx(0.18).epsilon(1e-12));
        CHECK(vm[20] == 0.0);
        CHECK(pf[19] == 0.0);
      }
      if (spec == "branch:1") CHECK(j["dead_buses"].size() == 32);
    }
    const auto text = test::sh(kBin + " grid distflow case33bw --out-of-service branch:20");
    CHECK(text.code == 0);
    CHECK(text.out.find("bus 21 22, 0.1800 MW of PD not served") != std::string::npos);
  }

  TEST_CASE("distflow --out-of-service refuses gen rows and bad rows naming the edit") {
    const auto g = test::sh(kBin + " grid distflow case33bw --out-of-service gen:1");
    CHECK(g.code == 2);
    CHECK(g.out.find("--out-of-service 'gen:1': expected branch:K rows only") != std::string::npos);
    const auto b = test::sh(kBin + " grid distflow case33bw --out-of-service branch:38");
    CHECK(b.code == 2);
    CHECK(b.out.find("--out-of-service 'branch:38'") != std::string::npos);
  }
}
