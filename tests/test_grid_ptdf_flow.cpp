// Tests of pz::grid::PtdfFlow: hand-computed 3-bus flows, slack attribution, MATPOWER goldens.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"
#include "test_grid_util.hpp"

namespace {

using pz::grid::Case;
using pz::grid::PtdfFlow;
using pz::test::bundled;
using pz::test::golden;

/// Triangle 1-2, 2-3, 1-3 with equal reactances, reference bus 1. A MW injected at bus 2 and
/// withdrawn at bus 1 splits 2/3 over 2-1 and 1/3 over 2-3-1 (and symmetrically for bus 3).
Case triangle() {
  const char* text = R"(mpc.baseMVA = 100;
mpc.bus = [1 3 0 0 0 0 1 1 0 230 1 1.1 0.9; 2 2 0 0 0 0 1 1 0 230 1 1.1 0.9;
           3 1 0 0 0 0 1 1 0 230 1 1.1 0.9];
mpc.gen = [1 0 0 0 0 1 100 1 200 0; 2 0 0 0 0 1 100 1 200 0];
mpc.branch = [1 2 0 0.1 0 100 100 100 0 0 1; 2 3 0 0.1 0 100 100 100 0 0 1;
              1 3 0 0.1 0 100 100 100 0 0 1];
)";
  return pz::grid::parse_case(text, "triangle.m");
}

}  // namespace

TEST_SUITE("grid_ptdf_flow") {
  TEST_CASE("3-bus triangle: PTDF entries and flows by hand") {
    const PtdfFlow pf(triangle(), 0);
    REQUIRE(pf.n_bus() == 3);
    REQUIRE(pf.n_branch() == 3);
    CHECK(pf.slack_bus() == 0);
    const double t = 1.0 / 3.0;
    const double expect[3][3] = {{0, -2 * t, -t}, {0, t, -t}, {0, -t, -2 * t}};
    for (int l = 0; l < 3; ++l)
      for (int b = 0; b < 3; ++b) CHECK(pf.at(l, b) == doctest::Approx(expect[l][b]));
    // 90 MW in at bus 2, 30 MW out at bus 3, the rest (60 MW) out at the slack bus 1.
    const std::vector<double> inj = {-60, 90, -30};
    std::vector<double> flow(3);
    pf.flows(inj, flow);
    CHECK(flow[0] == doctest::Approx(-50));  // 1→2: 50 MW flow from bus 2 to bus 1
    CHECK(flow[1] == doctest::Approx(40));   // 2→3
    CHECK(flow[2] == doctest::Approx(-10));  // 1→3: 10 MW back from bus 3 to bus 1
    CHECK(pf.branch_flow(1, inj.data()) == flow[1]);
    CHECK(pf.branch_flow(1, inj.data(), 5.0) == doctest::Approx(45));
    // The slack-bus injection does not move any flow (its column is zero).
    const std::vector<double> inj2 = {1000, 90, -30};
    std::vector<double> flow2(3);
    pf.flows(inj2, flow2);
    CHECK(flow2 == flow);
    // PTDFᵀ·y accumulation and the unit-bus columns.
    std::vector<double> lam = {1, 1, 1};
    pf.add_row(0, 3.0, lam);
    CHECK(lam[0] == 1.0);
    CHECK(lam[1] == doctest::Approx(-1.0));
    CHECK(lam[2] == doctest::Approx(0.0));
    const std::vector<int> buses = {2, 1};
    const std::vector<double> g = pf.columns(buses);
    REQUIRE(g.size() == 6);
    for (int l = 0; l < 3; ++l) {
      CHECK(g[l * 2 + 0] == pf.at(l, 2));
      CHECK(g[l * 2 + 1] == pf.at(l, 1));
    }
  }

  TEST_CASE("unit_flows: slack-bus units absorb the imbalance, flows of the unbalanced dispatch") {
    const PtdfFlow pf(triangle(), 0);
    const std::vector<int> unit_bus = {0, 1, 0};
    const std::vector<double> share = {0.25, 0.0, 0.75};  // two units at the slack bus
    const std::vector<double> load = {0, 0, 120};
    std::vector<double> p = {10, 90, 0}, flow(3);
    pf.unit_flows(unit_bus, share, load, p, flow);
    // Σ load − Σ p = 20 MW, split 5 / 15 between the slack-bus units.
    CHECK(p[0] == doctest::Approx(15));
    CHECK(p[1] == 90);
    CHECK(p[2] == doctest::Approx(15));
    // Injections (10, 90, −120): 1→2 = −60 + 40, 2→3 = 30 + 40, 1→3 = −30 + 80.
    CHECK(flow[0] == doctest::Approx(-20));
    CHECK(flow[1] == doctest::Approx(70));
    CHECK(flow[2] == doctest::Approx(50));
  }

  TEST_CASE("flows of MATPOWER's rundcpf dispatch equal its branch flows (goldens)") {
    for (const char* name : {"case5", "case14", "case30", "case118"}) {
      CAPTURE(name);
      const nlohmann::json j = golden(std::string(name) + "_dcpf.json");
      const Case c = bundled(name);
      for (const auto& br : c.branch) REQUIRE(br.shift_deg == 0.0);  // PTDF alone is exact
      const PtdfFlow pf(c, c.ref_bus_idx);
      const std::vector<double> pg = j.at("gen_pg_mw").get<std::vector<double>>();
      const std::vector<double> pf_mw = j.at("branch_pf_mw").get<std::vector<double>>();
      REQUIRE(static_cast<int>(pg.size()) == c.n_gen());
      REQUIRE(static_cast<int>(pf_mw.size()) == c.n_branch());
      std::vector<double> inj(c.n_bus(), 0.0), flow(c.n_branch());
      for (int k = 0; k < c.n_bus(); ++k) inj[k] = -c.bus[k].pd_mw - c.bus[k].gs_mw;
      for (int g = 0; g < c.n_gen(); ++g) inj[c.gen_bus_idx[g]] += pg[g];
      pf.flows(inj, flow);
      double dev = 0;
      for (int l = 0; l < c.n_branch(); ++l) dev = std::max(dev, std::abs(flow[l] - pf_mw[l]));
      INFO(name << " max |dPf| " << dev << " MW");
      CHECK(dev < 1e-6);
    }
  }

  TEST_CASE("flows equal DC power flow flows when the slack is the reference bus") {
    for (const char* name :
         {"case5", "case9", "case14", "case30", "case57", "case118", "case300"}) {
      CAPTURE(name);
      const Case c = bundled(name);
      const pz::grid::DcPfResult r = pz::grid::run_dcpf(c);
      REQUIRE(r.success);
      const PtdfFlow pf(c, c.ref_bus_idx);
      std::vector<double> inj(c.n_bus(), 0.0), flow(c.n_branch());
      for (int k = 0; k < c.n_bus(); ++k) inj[k] = -c.bus[k].pd_mw - c.bus[k].gs_mw;
      for (int g = 0; g < c.n_gen(); ++g) inj[c.gen_bus_idx[g]] += r.gen_pg_mw[g];
      pf.flows(inj, flow);
      double dev = 0;
      for (int l = 0; l < c.n_branch(); ++l)
        dev = std::max(dev, std::abs(flow[l] - r.branch_pf_mw[l]));
      CHECK(dev < 1e-6);
    }
  }

  TEST_CASE("the matrix is make_ptdf's, bit for bit; an islanded network throws") {
    const Case c = bundled("case14");
    CHECK(PtdfFlow(c, 3).ptdf() == pz::grid::make_ptdf(c, 3));
    Case isl = bundled("case5");
    isl.branch[5].status = 0;  // 4-5
    isl.branch[2].status = 0;  // 1-5: bus 5 is isolated
    CHECK_THROWS_AS(PtdfFlow(isl, 0), pz::core::ConfigError);
  }
}
