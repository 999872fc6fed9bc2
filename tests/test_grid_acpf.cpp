// Tests of the Newton–Raphson AC power flow (pz::grid::AcPowerFlow) against MATPOWER runpf
// goldens, the radial DistFlow solver, the reference's Q-limit golden, and hand-built cases.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/dist/distflow.hpp"
#include "test_grid_util.hpp"

using pz::grid::AcPfOptions;
using pz::grid::AcPfResult;
using pz::grid::AcPfStatus;
using pz::grid::AcPowerFlow;
using pz::grid::Case;

namespace {

nlohmann::json ac_golden(const std::string& file) {
  const std::string path = std::string(PZ_SOURCE_DIR) + "/tests/data/matpower/" + file;
  REQUIRE_MESSAGE(std::filesystem::exists(path), "golden file missing: " << path);
  return pz::test::read_json(path);
}

double max_abs_diff(const std::vector<double>& a, const nlohmann::json& b) {
  REQUIRE(a.size() == b.size());
  double m = 0;
  for (size_t k = 0; k < a.size(); ++k) m = std::max(m, std::abs(a[k] - b[k].get<double>()));
  return m;
}

/// Σ over buses of |P and Q balance| (MW): gens − loads − shunts − branch injections.
double kcl_error(const Case& c, const AcPfResult& r) {
  std::vector<double> p(c.n_bus(), 0.0), q(c.n_bus(), 0.0);
  for (int g = 0; g < c.n_gen(); ++g) {
    p[c.gen_bus_idx[g]] += r.gen_pg_mw[g];
    q[c.gen_bus_idx[g]] += r.gen_qg_mvar[g];
  }
  for (int b = 0; b < c.n_bus(); ++b) {
    const double v2 = r.bus_vm_pu[b] * r.bus_vm_pu[b];
    p[b] -= c.bus[b].pd_mw + c.bus[b].gs_mw * v2;
    q[b] -= c.bus[b].qd_mvar - c.bus[b].bs_mvar * v2;
  }
  for (int l = 0; l < c.n_branch(); ++l) {
    p[c.branch_from_idx[l]] -= r.branch_pf_mw[l];
    q[c.branch_from_idx[l]] -= r.branch_qf_mvar[l];
    p[c.branch_to_idx[l]] -= r.branch_pt_mw[l];
    q[c.branch_to_idx[l]] -= r.branch_qt_mvar[l];
  }
  double e = 0;
  for (int b = 0; b < c.n_bus(); ++b) e = std::max({e, std::abs(p[b]), std::abs(q[b])});
  return e;
}

// A radial 4-bus feeder with a tap changer, a phase shifter, line charging, a bus shunt and a
// PQ generator, for the DistFlow cross-check (both model the same π-branches).
const char* const kRadial4 = R"(function mpc = radial4
mpc.version = '2';
mpc.baseMVA = 10;
mpc.bus = [
  1 3 0   0    0   0    1 1 0 12.66 1 1.1 0.9;
  2 1 0.8 0.3  0   0.2  1 1 0 12.66 1 1.1 0.9;
  3 1 1.2 0.6  0.05 0   1 1 0 12.66 1 1.1 0.9;
  4 1 0.5 0.2  0   0    1 1 0 12.66 1 1.1 0.9;
];
mpc.gen = [
  1 0 0 10 -10 1.02 10 1 20 0;
  4 0.3 0.1 1 -1 1 10 1 1 0;
];
mpc.branch = [
  1 2 0.01 0.03 0.002 0 0 0 0.98 0   1 -360 360;
  2 3 0.02 0.05 0.001 0 0 0 0    2.5 1 -360 360;
  2 4 0.03 0.04 0     0 0 0 1.03 -1  1 -360 360;
];
)";

}  // namespace

TEST_SUITE("grid_acpf") {
  TEST_CASE("every MATPOWER runpf golden is reproduced") {
    for (const char* name : {"case5", "case14", "case30", "case118", "case33bw", "case141"}) {
      CAPTURE(name);
      const nlohmann::json j = ac_golden(std::string(name) + "_acpf.json");
      const Case c = pz::test::bundled(name);
      AcPowerFlow pf(c);
      const AcPfResult r = pf.solve();
      REQUIRE(r.success);
      CHECK(r.iterations == j["iterations"].get<int>());
      CHECK(max_abs_diff(r.bus_vm_pu, j["bus_vm_pu"]) <= 1e-6);
      CHECK(max_abs_diff(r.bus_va_deg, j["bus_va_deg"]) <= 1e-5);
      CHECK(max_abs_diff(r.branch_pf_mw, j["branch_pf_mw"]) <= 1e-4);
      CHECK(max_abs_diff(r.branch_qf_mvar, j["branch_qf_mvar"]) <= 1e-4);
      CHECK(max_abs_diff(r.branch_pt_mw, j["branch_pt_mw"]) <= 1e-4);
      CHECK(max_abs_diff(r.branch_qt_mvar, j["branch_qt_mvar"]) <= 1e-4);
      CHECK(max_abs_diff(r.gen_pg_mw, j["gen_pg_mw"]) <= 1e-4);
      CHECK(max_abs_diff(r.gen_qg_mvar, j["gen_qg_mvar"]) <= 1e-4);
      CHECK(std::abs(r.total_losses_mw - j["total_losses_mw"].get<double>()) <= 1e-5);
      CHECK(kcl_error(c, r) < 1e-5);
      CHECK(r.n_islands == 1);
    }
  }

  TEST_CASE("radial feeders: Newton-Raphson equals DistFlow") {
    for (const char* name : {"case33bw", "case141"}) {
      CAPTURE(name);
      const Case c = pz::test::bundled(name);
      AcPfOptions o;
      o.tol = 1e-9;  // case141's mismatch has a rounding floor near 1e-10 p.u. (|Y| up to 1e4)
      const AcPfResult r = AcPowerFlow(c).solve(o);
      const pz::grid::DistFlowResult d = pz::grid::solve_case(c, 1e-13, 200);
      REQUIRE(r.success);
      REQUIRE(d.converged);
      for (int b = 0; b < c.n_bus(); ++b) {
        CHECK(r.bus_vm_pu[b] == doctest::Approx(d.bus_vm_pu[b]).epsilon(1e-9));
        CHECK(std::abs(r.bus_va_deg[b] - d.bus_va_deg[b]) < 1e-7);
      }
      for (int l = 0; l < c.n_branch(); ++l) {
        CHECK(std::abs(r.branch_pf_mw[l] - d.branch_pf_mw[l]) < 1e-7);
        CHECK(std::abs(r.branch_qf_mvar[l] - d.branch_qf_mvar[l]) < 1e-7);
        CHECK(std::abs(r.branch_pt_mw[l] - d.branch_pt_mw[l]) < 1e-7);
        CHECK(std::abs(r.branch_qt_mvar[l] - d.branch_qt_mvar[l]) < 1e-7);
      }
      CHECK(std::abs(r.total_losses_mw - d.total_losses_mw) < 1e-8);
    }
  }

  TEST_CASE("taps, phase shifters, charging and shunts: Newton-Raphson equals DistFlow") {
    const Case c = pz::grid::parse_case(kRadial4, "radial4.m");
    AcPfOptions o;
    o.tol = 1e-12;
    const AcPfResult r = AcPowerFlow(c).solve(o);
    const pz::grid::DistFlowResult d = pz::grid::solve_case(c, 1e-13, 200);
    REQUIRE(r.success);
    REQUIRE(d.converged);
    for (int b = 0; b < c.n_bus(); ++b) {
      CHECK(r.bus_vm_pu[b] == doctest::Approx(d.bus_vm_pu[b]).epsilon(1e-10));
      CHECK(std::abs(r.bus_va_deg[b] - d.bus_va_deg[b]) < 1e-8);
    }
    for (int l = 0; l < c.n_branch(); ++l) {
      CHECK(std::abs(r.branch_pf_mw[l] - d.branch_pf_mw[l]) < 1e-9);
      CHECK(std::abs(r.branch_qf_mvar[l] - d.branch_qf_mvar[l]) < 1e-9);
      CHECK(std::abs(r.branch_pt_mw[l] - d.branch_pt_mw[l]) < 1e-9);
      CHECK(std::abs(r.branch_qt_mvar[l] - d.branch_qt_mvar[l]) < 1e-9);
    }
    CHECK(kcl_error(c, r) < 1e-9);
    // The phase shifter moves the angle across branch 2-3 by its 2.5 degrees plus the drop.
    CHECK(r.bus_va_deg[2] < r.bus_va_deg[1] - 2.5);
  }

  TEST_CASE("reference golden: case5 table with Q limits, bus 5 held at Qmin") {
    // PowerZooJax tests/equivalence/test_acpf_eq.py: its Newton-Raphson with PV-bus Q limits (the
    // slack is unlimited).
    const Case c =
        pz::grid::load_case(std::string(PZ_SOURCE_DIR) + "/tests/data/case5_reference_table.m");
    AcPfOptions o;
    o.enforce_q_lims = true;
    o.q_lims_at_ref = false;
    const AcPfResult r = AcPowerFlow(c).solve(o);
    REQUIRE(r.success);
    const std::vector<double> vm{1.06, 1.0081035, 1.01, 1.01, 1.0355649};
    const std::vector<double> va{0, -0.05778046, -0.05269875, -0.04460529, 0.02209266};
    const std::vector<double> pf{258.3105,   194.63712,  -220.93748,
                                 -48.391262, -24.984663, -234.97176};
    const std::vector<double> qf{114.516174, 111.89816, 481.11795,
                                 -1.8610109, 7.3029137, -1.9211218};
    for (int b = 0; b < 5; ++b) {
      CHECK(std::abs(r.bus_vm_pu[b] - vm[b]) < 5e-7);
      CHECK(std::abs(r.bus_va_deg[b] * std::numbers::pi / 180 - va[b]) < 5e-7);
    }
    for (int l = 0; l < 6; ++l) {
      CHECK(std::abs(r.branch_pf_mw[l] - pf[l]) < 5e-3);
      CHECK(std::abs(r.branch_qf_mvar[l] - qf[l]) < 5e-3);
    }
    REQUIRE(r.q_limited_gens == std::vector<int>{4});
    CHECK(r.gen_qg_mvar[4] == -450.0);
    CHECK(kcl_error(c, r) < 1e-5);
  }

  TEST_CASE("MATPOWER Q limits on case5: the slack gen hits Qmax, bus 1 becomes the reference") {
    const Case c = pz::test::bundled("case5");
    AcPfOptions o;
    o.enforce_q_lims = true;
    const AcPfResult r = AcPowerFlow(c).solve(o);
    REQUIRE(r.success);
    // Unconstrained, gen 4 (the reference bus's) needs 184.1 MVAr > Qmax = 150.
    CHECK(std::find(r.q_limited_gens.begin(), r.q_limited_gens.end(), 3) != r.q_limited_gens.end());
    CHECK(r.gen_qg_mvar[3] == 150.0);
    for (int g = 0; g < c.n_gen(); ++g) {
      CHECK(r.gen_qg_mvar[g] <= c.gen[g].qmax_mvar + 5e-6);
      CHECK(r.gen_qg_mvar[g] >= c.gen[g].qmin_mvar - 5e-6);
    }
    CHECK(r.bus_va_deg[3] == doctest::Approx(0.0));  // angles shifted back to the old reference
    CHECK(r.bus_vm_pu[3] < 1.0);                     // bus 4 no longer holds VG = 1
    CHECK(kcl_error(c, r) < 1e-5);
  }

  TEST_CASE("divergent power flow (load x5) is an outcome, not a crash") {
    Case c = pz::test::bundled("case118");
    for (auto& b : c.bus) {
      b.pd_mw *= 5;
      b.qd_mvar *= 5;
    }
    const AcPfResult r = AcPowerFlow(c).solve();
    CHECK_FALSE(r.success);
    CHECK(r.status != AcPfStatus::kConverged);
    CHECK(r.iterations >= 1);
    CHECK(r.iterations <= 10);
    CHECK(r.max_mismatch_pu > 1e-8);
  }

  TEST_CASE("warm start from a neighbouring solution converges to the same point as a flat start") {
    const Case c = pz::test::bundled("case118");
    AcPowerFlow pf(c);
    const AcPfResult base = pf.solve();
    REQUIRE(base.success);
    std::vector<double> pd(c.n_bus()), qd(c.n_bus());
    for (int b = 0; b < c.n_bus(); ++b) {
      pd[b] = 1.02 * c.bus[b].pd_mw;
      qd[b] = 1.02 * c.bus[b].qd_mvar;
    }
    pz::grid::AcPfInput in;
    in.bus_pd_mw = pd;
    in.bus_qd_mvar = qd;
    AcPfResult cold, warm;
    const std::vector<double> flat_vm(c.n_bus(), 1.0),
        flat_va(c.n_bus(), c.bus[c.ref_bus_idx].va_deg);
    in.vm0_pu = flat_vm;  // case118.m's VM/VA already hold a solution: start flat instead
    in.va0_deg = flat_va;
    pf.solve_into(in, {}, cold);
    in.vm0_pu = base.bus_vm_pu;
    in.va0_deg = base.bus_va_deg;
    pf.solve_into(in, {}, warm);
    REQUIRE(cold.success);
    REQUIRE(warm.success);
    CHECK(warm.iterations < cold.iterations);
    for (int b = 0; b < c.n_bus(); ++b) {
      CHECK(std::abs(warm.bus_vm_pu[b] - cold.bus_vm_pu[b]) < 1e-8);
      CHECK(std::abs(warm.bus_va_deg[b] - cold.bus_va_deg[b]) < 1e-6);
    }
    // Repeating a solve gives the same bytes (no state leaks between solves).
    AcPfResult again;
    pf.solve_into(in, {}, again);
    CHECK(again.bus_vm_pu == warm.bus_vm_pu);
    CHECK(again.branch_pf_mw == warm.branch_pf_mw);
  }

  TEST_CASE("isolated bus, PV bus without a gen, an island with its own gen, a dead island") {
    // Buses 1-2-3 (REF 1; bus 3 is PV but its only gen is off, so PQ), bus 4 type 4 with a
    // branch to bus 3 (out with it), island 5-6 with a PV gen at 5 (promoted to REF), and bus 7
    // alone with a load and no gen (de-energized).
    const char* text = R"(function mpc = islands
mpc.version = '2';
mpc.baseMVA = 100;
mpc.bus = [
  1 3 0  0  0 0 1 1 0 100 1 1.1 0.9;
  2 1 50 10 0 0 1 1 0 100 1 1.1 0.9;
  3 2 20 5  0 0 1 1 0 100 1 1.1 0.9;
  4 4 0  0  0 0 1 0.97 -3 100 1 1.1 0.9;
  5 2 0  0  0 0 1 1 0 100 1 1.1 0.9;
  6 1 30 10 0 0 1 1 0 100 1 1.1 0.9;
  7 1 5  1  0 0 1 1 0 100 1 1.1 0.9;
];
mpc.gen = [
  1 0 0 100 -100 1.02 100 1 200 0;
  3 10 0 50 -50 1.05 100 0 50 0;
  5 0 0 100 -100 1.01 100 1 100 0;
  4 10 0 50 -50 1.0 100 1 50 0;
];
mpc.branch = [
  1 2 0.01 0.05 0.01 0 0 0 0 0 1 -360 360;
  2 3 0.01 0.05 0.01 0 0 0 0 0 1 -360 360;
  3 4 0.01 0.05 0.01 0 0 0 0 0 1 -360 360;
  5 6 0.01 0.05 0.01 0 0 0 0 0 1 -360 360;
];
)";
    const Case c = pz::grid::parse_case(text, "islands.m");
    const AcPfResult r = AcPowerFlow(c).solve();
    REQUIRE(r.success);
    CHECK(r.n_islands == 3);  // {1,2,3}, {5,6}, {7}
    CHECK(r.n_dead_buses == 1);
    CHECK(r.bus_vm_pu[6] == 0.0);
    CHECK(r.bus_vm_pu[3] == 0.97);  // type 4 keeps its case values
    CHECK(r.bus_va_deg[3] == -3.0);
    CHECK(r.branch_pf_mw[2] == 0.0);
    CHECK(r.gen_pg_mw[3] == 0.0);
    CHECK(r.bus_vm_pu[0] == 1.02);
    CHECK(r.bus_vm_pu[2] != doctest::Approx(1.05));  // bus 3 is PQ: VG of its off gen is unused
    CHECK(r.bus_vm_pu[4] == 1.01);                   // the island's REF holds its VG
    CHECK(r.bus_va_deg[4] == 0.0);                   // and its case angle
    CHECK(r.gen_pg_mw[2] == doctest::Approx(30.0 + r.branch_pf_mw[3] + r.branch_pt_mw[3]));
    CHECK(r.gen_pg_mw[0] == doctest::Approx(70.0 + r.branch_pf_mw[0] + r.branch_pt_mw[0] +
                                            r.branch_pf_mw[1] + r.branch_pt_mw[1]));
  }

  TEST_CASE("AC case checks name the file, the row and the column") {
    const Case base = pz::test::bundled("case5");
    auto message = [](const Case& c) {
      try {
        AcPowerFlow pf(c);
      } catch (const pz::core::ConfigError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    Case z = base;
    z.branch[2].r_pu = z.branch[2].x_pu = 0;
    std::string m = message(z);
    CHECK(m.find("case5.m") != std::string::npos);
    CHECK(m.find("mpc.branch row 3") != std::string::npos);
    CHECK(m.find("BR_X") != std::string::npos);
    z.branch[2].status = 0;  // out of service: allowed
    CHECK(message(z).empty());
    Case noref = base;
    noref.bus[3].type = 2;
    m = message(noref);
    CHECK(m.find("BUS_TYPE") != std::string::npos);
    CHECK(m.find("reference bus") != std::string::npos);
    Case neg = base;
    neg.branch[5].rate_a_mva = -240;
    m = message(neg);
    CHECK(m.find("mpc.branch row 6") != std::string::npos);
    CHECK(m.find("RATE_A") != std::string::npos);
    CHECK(m.find("-240") != std::string::npos);
    Case vv = base;
    vv.bus[1].vmin_pu = 1.2;
    m = message(vv);
    CHECK(m.find("mpc.bus row 2") != std::string::npos);
    CHECK(m.find("VMIN") != std::string::npos);
  }
}
