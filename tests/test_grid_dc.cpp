// Tests of the DC network model: PTDF, DC power flow against MATPOWER golden results, report.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/dcpf_report.hpp"
#include "test_grid_util.hpp"

namespace {

using pz::test::bundled;
using pz::test::golden;

using pz::core::ConfigError;
using pz::grid::Case;

/// Branch flows PTDF·(PG − PD − GS) in MW with the PTDF taken at `slack`.
std::vector<double> ptdf_flows(const Case& c, const std::vector<double>& pg, int slack) {
  const std::vector<double> ptdf = pz::grid::make_ptdf(c, slack);
  std::vector<double> inj(c.n_bus(), 0.0);
  for (int k = 0; k < c.n_bus(); ++k) inj[k] = -c.bus[k].pd_mw - c.bus[k].gs_mw;
  for (int g = 0; g < c.n_gen(); ++g) inj[c.gen_bus_idx[g]] += pg[g];
  std::vector<double> f(c.n_branch(), 0.0);
  for (int l = 0; l < c.n_branch(); ++l) {
    for (int k = 0; k < c.n_bus(); ++k) f[l] += ptdf[l * c.n_bus() + k] * inj[k];
  }
  return f;
}

double max_abs_diff(const std::vector<double>& a, const nlohmann::json& b) {
  REQUIRE(b.size() == a.size());
  double d = 0;
  for (size_t k = 0; k < a.size(); ++k) d = std::max(d, std::abs(a[k] - b[k].get<double>()));
  return d;
}

}  // namespace

TEST_SUITE("grid_dc") {
  TEST_CASE("case5 PTDF with slack bus 1 matches the reference table") {
    const Case c = bundled("case5");
    const std::vector<double> ptdf = pz::grid::make_ptdf(c, 0);
    REQUIRE(ptdf.size() == 6 * 5);
    // MATPOWER's makePTDF(mpc, 1) (PowerZooJax's case_matrices.py builds the same), rows =
    // branches 1..6, cols = buses 1..5.
    const int rows[] = {0, 1, 2, 3, 4, 5};
    const double table[6][5] = {{0, -0.669811, -0.542906, -0.193917, -0.034379},
                                {0, -0.179245, -0.248137, -0.437588, -0.077578},
                                {0, -0.150943, -0.208957, -0.368495, -0.888043},
                                {0, 0.330189, -0.542906, -0.193917, -0.034379},
                                {0, 0.330189, 0.457094, -0.193917, -0.034379},
                                {0, 0.150943, 0.208957, 0.368495, -0.111957}};
    for (int r = 0; r < 6; ++r) {
      for (int k = 0; k < 5; ++k) {
        CAPTURE(rows[r]);
        CAPTURE(k);
        CHECK(std::abs(ptdf[rows[r] * 5 + k] - table[r][k]) < 1e-6);
      }
    }
    // Row 3 (1-5): 1 MW injected at bus k returns to bus 1 over branches 1, 2 and 3.
    for (int k = 0; k < 5; ++k) {
      CHECK(ptdf[0 * 5 + k] + ptdf[1 * 5 + k] + ptdf[2 * 5 + k] ==
            doctest::Approx(k == 0 ? 0 : -1));
      CHECK(ptdf[k * 5 + 0] == 0.0);  // slack column exactly zero
    }
  }

  TEST_CASE("DC power flow matches MATPOWER rundcpf") {
    for (const char* name : {"case5", "case14", "case30", "case118"}) {
      CAPTURE(name);
      const nlohmann::json j = golden(std::string(name) + "_dcpf.json");
      const Case c = bundled(name);
      const pz::grid::DcPfResult r = pz::grid::run_dcpf(c);
      REQUIRE(j.at("success").get<bool>());
      CHECK(r.success == j["success"].get<bool>());
      const double dva = max_abs_diff(r.bus_va_deg, j.at("bus_va_deg"));
      const double dpf = max_abs_diff(r.branch_pf_mw, j.at("branch_pf_mw"));
      const double dpg = max_abs_diff(r.gen_pg_mw, j.at("gen_pg_mw"));
      INFO(name << " max |dVa| " << dva << " deg, |dPf| " << dpf << " MW, |dPg| " << dpg);
      CHECK(dva < 1e-6);
      CHECK(dpf < 1e-6);
      CHECK(dpg < 1e-6);
      // The reference bus keeps its case angle (case118: bus 69 at 30 deg).
      CHECK(r.bus_va_deg[c.ref_bus_idx] ==
            doctest::Approx(j.at("slack_va_deg_fixed")[0].get<double>()));
    }
  }

  TEST_CASE("out-of-service branches and gens, non-contiguous ids") {
    Case c = bundled("case5");
    c.branch[1].status = 0;  // 1-4
    c.gen[1].status = 0;     // 170 MW at bus 1
    const std::vector<double> ptdf = pz::grid::make_ptdf(c, c.ref_bus_idx);
    for (int k = 0; k < 5; ++k) CHECK(ptdf[1 * 5 + k] == 0.0);
    const pz::grid::DcPfResult r = pz::grid::run_dcpf(c);
    REQUIRE(r.success);
    CHECK(r.branch_pf_mw[1] == 0.0);
    CHECK(r.gen_pg_mw[1] == 0.0);
    // Power balance: total PG equals total load (lossless).
    double pg = 0;
    for (double p : r.gen_pg_mw) pg += p;
    CHECK(pg == doctest::Approx(1000));
    const std::vector<double> f = ptdf_flows(c, r.gen_pg_mw, c.ref_bus_idx);
    for (int l = 0; l < 6; ++l) CHECK(f[l] == doctest::Approx(r.branch_pf_mw[l]));

    // A case with bus ids 10, 20, 30.
    const char* text = R"(mpc.baseMVA = 100;
mpc.bus = [10 3 0 0 0 0 1 1 0 230 1 1.1 0.9; 20 1 60 0 0 0 1 1 0 230 1 1.1 0.9;
           30 1 40 0 0 0 1 1 0 230 1 1.1 0.9];
mpc.gen = [10 0 0 0 0 1 100 1 200 0];
mpc.branch = [10 20 0 0.1 0 0 0 0 0 0 1; 20 30 0 0.1 0 0 0 0 0 0 1];
)";
    const Case s = pz::grid::parse_case(text, "ids.m");
    const pz::grid::DcPfResult rs = pz::grid::run_dcpf(s);
    REQUIRE(rs.success);
    CHECK(rs.branch_pf_mw[0] == doctest::Approx(100));
    CHECK(rs.branch_pf_mw[1] == doctest::Approx(40));
    CHECK(rs.gen_pg_mw[0] == doctest::Approx(100));
    CHECK(rs.bus_va_deg[1] == doctest::Approx(-0.1 * 1.0 * 180 / std::numbers::pi));
  }

  TEST_CASE("a gen on an isolated bus is switched off as MATPOWER's ext2int does") {
    // Regression: bus 3 of this triangle made type 4 kept its 100 MW gen in the DC power flow's
    // generation total (PG 200 against PD 100) while the slack balanced without it.
    const char* text = R"(mpc.baseMVA = 100;
mpc.bus = [1 3 0 0 0 0 1 1 0 230 1 1.1 0.9; 2 1 100 0 0 0 1 1 0 230 1 1.1 0.9;
           3 4 0 0 0 0 1 1 0 230 1 1.1 0.9];
mpc.gen = [1 0 0 0 0 1 100 1 200 0; 3 100 0 0 0 1 100 1 200 0];
mpc.branch = [1 2 0 0.1 0 0 0 0 0 0 1; 2 3 0 0.1 0 0 0 0 0 0 1];
)";
    Case c = pz::grid::parse_case(text, "iso.m");
    CHECK(c.gen[0].status == 1);
    CHECK(c.gen[1].status == 0);
    CHECK(c.branch[1].status == 0);  // and its branch, which carried flow from an unsolved angle
    const pz::grid::DcPfResult r = pz::grid::run_dcpf(c);
    REQUIRE(r.success);
    CHECK(r.gen_pg_mw[0] == doctest::Approx(100));
    CHECK(r.gen_pg_mw[1] == 0.0);
    CHECK(r.branch_pf_mw[0] == doctest::Approx(100));
  }

  TEST_CASE("phase shifter: flow equation and nodal balance") {
    Case c = bundled("case5");
    c.branch[3].shift_deg = 5;  // 2-3
    c.branch[3].tap = 0.95;
    const pz::grid::DcPfResult r = pz::grid::run_dcpf(c);
    REQUIRE(r.success);
    const double d2r = std::numbers::pi / 180;
    for (int l = 0; l < c.n_branch(); ++l) {
      const auto& br = c.branch[l];
      const double dth =
          (r.bus_va_deg[c.branch_from_idx[l]] - r.bus_va_deg[c.branch_to_idx[l]] - br.shift_deg) *
          d2r;
      CHECK(r.branch_pf_mw[l] == doctest::Approx(dth / (br.x_pu * br.effective_tap()) * 100));
    }
    std::vector<double> net(5, 0.0);
    for (int k = 0; k < 5; ++k) net[k] = -c.bus[k].pd_mw;
    for (int g = 0; g < 5; ++g) net[c.gen_bus_idx[g]] += r.gen_pg_mw[g];
    for (int l = 0; l < 6; ++l) {
      net[c.branch_from_idx[l]] -= r.branch_pf_mw[l];
      net[c.branch_to_idx[l]] += r.branch_pf_mw[l];
    }
    for (double x : net) CHECK(std::abs(x) < 1e-9);
  }

  TEST_CASE("islanded network") {
    Case c = bundled("case5");
    c.branch[5].status = 0;                                   // 4-5
    c.branch[2].status = 0;                                   // 1-5: bus 5 is now isolated
    CHECK_THROWS_AS(pz::grid::make_ptdf(c, 0), ConfigError);  // one PTDF, one island
    // run_dcpf solves each island with its own reference: bus 5's gen (PV, promoted) balances
    // bus 5 (PD 0), the rest as before with bus 4 as reference.
    const pz::grid::DcPfResult r = pz::grid::run_dcpf(c);
    CHECK(r.success);
    CHECK(r.dead_buses.empty());
    CHECK(std::abs(r.gen_pg_mw[4]) < 1e-9);
    CHECK(r.branch_pf_mw[2] == 0.0);
    CHECK(r.branch_pf_mw[5] == 0.0);
  }

  TEST_CASE("an island without an in-service gen is de-energized, its load not served") {
    Case c = bundled("case5");
    c.branch[0].status = 0;  // 1-2
    c.branch[3].status = 0;  // 2-3: bus 2 (PD 300 MW, no gen) is alone
    const pz::grid::DcPfResult r = pz::grid::run_dcpf(c);
    REQUIRE(r.success);
    CHECK(r.dead_buses == std::vector<int>{1});
    double pg = 0;
    for (double v : r.gen_pg_mw) pg += v;
    CHECK(pg == doctest::Approx(300.0 + 400.0).epsilon(1e-12));  // buses 3 and 4 only
    const std::string text = pz::grid::dcpf_report(c, r, false);
    CHECK(text.find("de-energized (island without an in-service gen): bus 2, 300.0000 MW") !=
          std::string::npos);
    // A gen at a type-4 bus and the branches touching it are out (MATPOWER ext2int).
    Case d = bundled("case5");
    d.bus[4].type = 4;  // bus 5 and its gen 5
    const pz::grid::DcPfResult q = pz::grid::run_dcpf(d);
    REQUIRE(q.success);
    CHECK(q.gen_pg_mw[4] == 0.0);
    CHECK(q.branch_pf_mw[2] == 0.0);
    CHECK(q.branch_pf_mw[5] == 0.0);
  }

  TEST_CASE("a reference bus without an in-service gen hands over to the first PV bus with one") {
    Case c = bundled("case5");
    c.gen[3].status = 0;  // bus 4's only gen
    const pz::grid::DcPfResult r = pz::grid::run_dcpf(c);
    REQUIRE(r.success);
    CHECK(r.bus_va_deg[0] == 0.0);  // bus 1 is the reference now (case VA 0)
    double pg = 0;
    for (double v : r.gen_pg_mw) pg += v;
    CHECK(pg == doctest::Approx(1000.0).epsilon(1e-12));
    CHECK(r.gen_pg_mw[3] == 0.0);
  }

  TEST_CASE("dcpf report: JSON round-trips case5 values, text has the tables") {
    const Case c = bundled("case5");
    const pz::grid::DcPfResult r = pz::grid::run_dcpf(c);
    const nlohmann::json j = nlohmann::json::parse(pz::grid::dcpf_report(c, r, true));
    CHECK(j.at("case") == "case5");
    CHECK(j.at("success") == true);
    CHECK(j.at("bus_id") == std::vector<int>{1, 2, 3, 4, 5});
    CHECK(j.at("branch_from") == std::vector<int>{1, 1, 1, 2, 3, 4});
    CHECK(j.at("branch_to") == std::vector<int>{2, 4, 5, 3, 4, 5});
    CHECK(j.at("gen_bus") == std::vector<int>{1, 1, 3, 4, 5});
    CHECK(j.at("bus_va_deg").get<std::vector<double>>() == r.bus_va_deg);  // bit-exact
    CHECK(j.at("branch_pf_mw").get<std::vector<double>>() == r.branch_pf_mw);
    CHECK(j.at("gen_pg_mw").get<std::vector<double>>() == r.gen_pg_mw);
    const std::string text = pz::grid::dcpf_report(c, r, false);
    CHECK(text.find("case5") != std::string::npos);
    CHECK(text.find("Buses") != std::string::npos);
    CHECK(text.find("Branches") != std::string::npos);
    CHECK(text.find("Generators") != std::string::npos);
  }
}
