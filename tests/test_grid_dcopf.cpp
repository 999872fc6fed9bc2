// Tests of the exact DC-OPF (pz::grid::DcOpf) against MATPOWER rundcopf golden results, warm
// starts, piecewise-linear costs, phase shifters and failure reporting.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "test_grid_util.hpp"

namespace {

using pz::test::bundled;
using pz::test::golden_dir;
using pz::test::read_json;

namespace fs = std::filesystem;
using pz::grid::Case;
using pz::grid::DcOpf;
using pz::grid::DcOpfResult;
using pz::grid::DcOpfStatus;

/// Every *_dcopf*.json golden file, sorted. Fails (not skips) if the directory is missing.
std::vector<fs::path> dcopf_goldens() {
  const fs::path dir = golden_dir();
  REQUIRE_MESSAGE(fs::is_directory(dir),
                  "MATPOWER golden directory missing: " << dir << " (it is required)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.find("_dcopf") != std::string::npos && e.path().extension() == ".json")
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Applies the golden's `modifications` list to the case (fails on an unknown type).
void apply_modifications(Case& c, const nlohmann::json& mods) {
  for (const auto& m : mods) {
    const std::string type = m.at("type").get<std::string>();
    if (type == "scale_load") {
      const double f = m.at("factor").get<double>();
      for (auto& b : c.bus) {
        b.pd_mw *= f;
        b.qd_mvar *= f;
      }
    } else if (type == "halve_rate_a" || type == "set_rate_a") {
      const int row = m.at("branch").get<int>() - 1;
      REQUIRE(row >= 0);
      REQUIRE(row < c.n_branch());
      REQUIRE(c.branch[row].from == m.at("from_bus").get<int>());
      REQUIRE(c.branch[row].to == m.at("to_bus").get<int>());
      const double r = m.at("rate_a_new_mva").get<double>();
      c.branch[row].rate_a_mva = c.branch[row].rate_b_mva = c.branch[row].rate_c_mva = r;
    } else {
      FAIL("unknown modification type in golden: " << type);
    }
  }
}

double max_abs_diff(const std::vector<double>& a, const nlohmann::json& b) {
  REQUIRE(b.size() == a.size());
  double d = 0;
  for (size_t k = 0; k < a.size(); ++k) d = std::max(d, std::abs(a[k] - b[k].get<double>()));
  return d;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (size_t k = 0; k < a.size(); ++k) d = std::max(d, std::abs(a[k] - b[k]));
  return d;
}

std::vector<double> scaled_pd(const Case& c, double s) {
  std::vector<double> pd(c.n_bus());
  for (int k = 0; k < c.n_bus(); ++k) pd[k] = c.bus[k].pd_mw * s;
  return pd;
}

void check_same(const DcOpfResult& a, const DcOpfResult& b, double tol) {
  REQUIRE(a.status == b.status);
  if (!a.ok()) return;
  CHECK(std::abs(a.objective - b.objective) <= tol * std::max(1.0, std::abs(b.objective)));
  CHECK(max_abs_diff(a.gen_pg_mw, b.gen_pg_mw) < tol);
  CHECK(max_abs_diff(a.branch_pf_mw, b.branch_pf_mw) < tol);
  CHECK(max_abs_diff(a.bus_lam_p, b.bus_lam_p) < tol);
  CHECK(max_abs_diff(a.bus_va_deg, b.bus_va_deg) < tol);
  CHECK(max_abs_diff(a.branch_mu_sf, b.branch_mu_sf) < tol);
  CHECK(max_abs_diff(a.branch_mu_st, b.branch_mu_st) < tol);
  CHECK(a.binding_branches == b.binding_branches);
}

struct Proc {
  int code = -1;
  std::string out;
};

/// Runs a shell command (stdout only) and returns its exit code and output.
Proc run(const std::string& cmd) {
  Proc p;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return p;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) p.out.append(buf.data(), n);
  const int st = pclose(f);
  p.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

TEST_SUITE("grid_dcopf") {
  TEST_CASE("every MATPOWER rundcopf golden is reproduced") {
    const std::vector<fs::path> files = dcopf_goldens();
    // The set the suite is specified against must all be present.
    for (const char* n :
         {"case5_dcopf", "case5_dcopf_load080", "case5_dcopf_load100", "case5_dcopf_load120",
          "case5_dcopf_halve_br1", "case14_dcopf", "case30_dcopf", "case118_dcopf",
          "case118_dcopf_load080", "case118_dcopf_load100", "case118_dcopf_load120"}) {
      CHECK_MESSAGE(fs::exists(fs::path(golden_dir()) / (std::string(n) + ".json")),
                    "missing golden " << n);
    }
    REQUIRE(files.size() >= 11);
    for (const fs::path& f : files) {
      CAPTURE(f.filename().string());
      const nlohmann::json g = read_json(f);
      REQUIRE(g.at("kind").get<std::string>() == "dcopf");
      REQUIRE(g.at("success").get<bool>());
      Case c = bundled(g.at("case").get<std::string>());
      apply_modifications(c, g.at("modifications"));
      // Input echo: the modified case is the one MATPOWER solved.
      REQUIRE(max_abs_diff(
                  [&] {
                    std::vector<double> v;
                    for (const auto& b : c.bus) v.push_back(b.pd_mw);
                    return v;
                  }(),
                  g.at("bus_pd_mw")) < 1e-9);
      REQUIRE(max_abs_diff(
                  [&] {
                    std::vector<double> v;
                    for (const auto& b : c.branch) v.push_back(b.rate_a_mva);
                    return v;
                  }(),
                  g.at("branch_rate_a_mva")) < 1e-9);

      DcOpf opf(c);
      const DcOpfResult r = opf.solve();
      REQUIRE_MESSAGE(r.ok(), r.message);

      const double gobj = g.at("objective").get<double>();
      const double d_obj = std::abs(r.objective - gobj) / std::abs(gobj);
      const double d_pg = max_abs_diff(r.gen_pg_mw, g.at("gen_pg_mw"));
      const double d_lam = max_abs_diff(r.bus_lam_p, g.at("bus_lam_p"));
      const double d_pf = max_abs_diff(r.branch_pf_mw, g.at("branch_pf_mw"));
      const double d_va = max_abs_diff(r.bus_va_deg, g.at("bus_va_deg"));
      const double d_musf = max_abs_diff(r.branch_mu_sf, g.at("branch_mu_sf"));
      const double d_must = max_abs_diff(r.branch_mu_st, g.at("branch_mu_st"));
      MESSAGE(f.filename().string()
              << ": obj rel " << d_obj << ", pg " << d_pg << " MW, lam " << d_lam << " $/MWh, pf "
              << d_pf << " MW, va " << d_va << " deg, mu_sf " << d_musf << ", mu_st " << d_must
              << ", iters " << r.iterations << (opf.is_qp() ? " (QP)" : " (LP)"));
      CHECK(d_obj < 1e-6);
      CHECK((!opf.is_qp() || r.polished));  // QP answers come from the exact KKT solve
      CHECK(d_pg < 1e-4);
      // The LP goldens (case5 family) have unique duals (two marginal units, one binding line;
      // tests/data/matpower/README.md, "Solver choice"), so the LMPs are compared there as well.
      CHECK(d_lam < 1e-4);
      CHECK(d_pf < 1e-4);
      CHECK(d_va < 1e-4);
      CHECK(d_musf < 1e-4);
      CHECK(d_must < 1e-4);
      std::vector<int> binding;
      for (int l : r.binding_branches) binding.push_back(l + 1);
      CHECK(binding == g.at("binding_branches").get<std::vector<int>>());
    }
  }

  TEST_CASE("warm-started re-solves equal fresh solves over a load sequence") {
    for (const std::string name : {"case5", "case14", "case118"}) {
      CAPTURE(name);
      Case c = bundled(name);
      DcOpf warm(c);
      // Includes an infeasible point (case5: load 1.6x exceeds 1530 MW of capacity) in between.
      const double scales[] = {1.0, 0.8, 1.2, 0.9, 1.6, 1.1, 0.5, 1.0, 1.2, 0.8};
      int n_warm = 0;
      for (double s : scales) {
        CAPTURE(s);
        const std::vector<double> pd = scaled_pd(c, s);
        const DcOpfResult a = warm.solve(pd);
        DcOpf fresh(c);
        const DcOpfResult b = fresh.solve(pd);
        CHECK_FALSE(b.warm_started);
        if (a.warm_started) ++n_warm;
        check_same(a, b, 1e-6);
      }
      CHECK(n_warm >= 7);
    }
    // Congested variant: the binding line changes along the sequence.
    Case c = bundled("case5");
    c.branch[0].rate_a_mva = 200;
    DcOpf warm(c);
    for (double s : {1.0, 0.8, 1.2, 0.6, 1.0}) {
      CAPTURE(s);
      const DcOpfResult a = warm.solve(scaled_pd(c, s));
      DcOpf fresh(c);
      check_same(a, fresh.solve(scaled_pd(c, s)), 1e-6);
    }
  }

  TEST_CASE("congested QP: case118 with 4 rated branches (README case118_dcopf_lim4_*)") {
    // tests/data/matpower/README.md gives MATPOWER's objective (6 decimals), binding rows and LMP
    // range for these runs; their full JSON files are not in the golden folder.
    Case c = bundled("case118");
    const int rows[] = {8, 38, 51, 141};
    const int from[] = {8, 26, 38, 89}, to[] = {5, 30, 37, 92};
    const double rate[] = {300, 180, 200, 150};
    for (int i = 0; i < 4; ++i) {
      auto& br = c.branch[rows[i] - 1];
      REQUIRE(br.from == from[i]);
      REQUIRE(br.to == to[i]);
      br.rate_a_mva = br.rate_b_mva = br.rate_c_mva = rate[i];
    }
    struct Expect {
      double scale, obj, lam_min, lam_max;
      std::vector<int> binding;
    };
    const Expect ex[] = {{0.8, 94182.675343, 35.203950, 35.681100, {141}},
                         {1.0, 126271.962009, 36.406553, 40.627253, {8, 38, 51, 141}},
                         {1.2, 160176.688989, 38.356219, 41.004371, {8, 38, 51, 141}}};
    DcOpf warm(c);
    for (int pass = 0; pass < 2; ++pass) {
      for (const Expect& e : ex) {
        CAPTURE(e.scale);
        const std::vector<double> pd = scaled_pd(c, e.scale);
        const DcOpfResult r = warm.solve(pd);
        REQUIRE_MESSAGE(r.ok(), r.message);
        CHECK(r.polished);
        CHECK(std::abs(r.objective - e.obj) < 1e-6);
        const auto [lo, hi] = std::minmax_element(r.bus_lam_p.begin(), r.bus_lam_p.end());
        CHECK(std::abs(*lo - e.lam_min) < 1e-6);
        CHECK(std::abs(*hi - e.lam_max) < 1e-6);
        std::vector<int> binding;
        for (int l : r.binding_branches) binding.push_back(l + 1);
        CHECK(binding == e.binding);
        DcOpf fresh(c);
        check_same(r, fresh.solve(pd), 1e-6);
        // LMP = d objective / d PD (central finite difference at two buses).
        for (int k : {0, 60}) {
          std::vector<double> up = pd, dn = pd;
          up[k] += 1e-3;
          dn[k] -= 1e-3;
          DcOpf f2(c);
          const double fd = (f2.solve(up).objective - f2.solve(dn).objective) / 2e-3;
          CHECK(std::abs(fd - r.bus_lam_p[k]) < 1e-5);
        }
      }
    }
  }

  TEST_CASE("infeasible and malformed inputs become a status, never an exception") {
    const Case c = bundled("case5");
    DcOpf opf(c);
    DcOpfResult r;
    CHECK_NOTHROW(r = opf.solve(scaled_pd(c, 2.0)));
    CHECK(r.status == DcOpfStatus::kInfeasible);
    CHECK_NOTHROW(r = opf.solve(std::vector<double>(3, 0.0)));
    CHECK(r.status == DcOpfStatus::kFailed);
    CHECK_FALSE(r.message.empty());
    std::vector<double> bad = scaled_pd(c, 1.0);
    bad[1] = std::nan("");
    CHECK_NOTHROW(r = opf.solve(bad));
    CHECK(r.status == DcOpfStatus::kFailed);
    r = opf.solve();  // recovers
    CHECK(r.ok());
    CHECK(std::abs(r.objective - 17479.896925381) < 1e-5);
    CHECK(std::string(pz::grid::to_string(DcOpfStatus::kInfeasible)) == "infeasible");
    // The QP path reports infeasibility the same way and recovers on the next solve.
    const Case big = bundled("case118");
    DcOpf qp(big);
    REQUIRE(qp.is_qp());
    CHECK(qp.solve().ok());
    CHECK_NOTHROW(r = qp.solve(scaled_pd(big, 10.0)));
    CHECK(r.status == DcOpfStatus::kInfeasible);
    r = qp.solve();
    CHECK(r.ok());
    CHECK(std::abs(r.objective - 125947.881418) < 1e-5);
  }

  TEST_CASE("piecewise-linear costs (gencost model 1) via epigraph variables") {
    // case5's costs are linear: as 2-point PWL curves the optimum must not change.
    Case c = bundled("case5");
    const double ref = DcOpf(c).solve().objective;
    for (auto& gc : c.gencost) {
      REQUIRE(gc.model == 2);
      const double lin = gc.coeffs.size() >= 2 ? gc.coeffs[gc.coeffs.size() - 2] : 0.0;
      const double k0 = gc.coeffs.empty() ? 0.0 : gc.coeffs.back();
      gc.model = 1;
      gc.coeffs = {0.0, k0, 300.0, k0 + 300.0 * lin, 600.0, k0 + 600.0 * lin};
    }
    DcOpf pwl(c);
    CHECK_FALSE(pwl.is_qp());
    const DcOpfResult r = pwl.solve();
    REQUIRE(r.ok());
    CHECK(std::abs(r.objective - ref) < 1e-6 * ref);

    // Convex 3-point curve: gen 5 (bus 10 $/MWh) gets 10 $/MWh up to 300 MW, then 50 $/MWh.
    // With line limits lifted the cheapest supply is gen 5 to 300 MW, then gens 1, 2 (14, 15),
    // then gen 3 (30) -- i.e. the kink at 300 MW is the dispatch of gen 5.
    for (auto& br : c.branch) br.rate_a_mva = 0;
    c.gencost[4].coeffs = {0.0, 0.0, 300.0, 3000.0, 600.0, 18000.0};
    DcOpf kink(c);
    const DcOpfResult k = kink.solve();
    REQUIRE(k.ok());
    CHECK(std::abs(k.gen_pg_mw[4] - 300.0) < 1e-6);
    CHECK(k.binding_branches.empty());
    double expect = 0;
    for (int g = 0; g < c.n_gen(); ++g) expect += pz::grid::gen_cost(c.gencost[g], k.gen_pg_mw[g]);
    CHECK(std::abs(k.objective - expect) < 1e-6);
    // Marginal unit is gen 3 at 30 $/MWh: uniform LMP.
    for (double lmp : k.bus_lam_p) CHECK(std::abs(lmp - 30.0) < 1e-6);

    // Regression: a falling segment price (20, then 10 $/MWh) was solved as its convex hull and
    // reported "optimal" with dispatch, LMPs and objective that disagreed; it is bad input.
    c.gencost[4].coeffs = {0.0, 0.0, 200.0, 4000.0, 400.0, 6000.0};
    try {
      DcOpf bad(c);
      FAIL("a non-convex piecewise-linear cost was accepted");
    } catch (const pz::core::ConfigError& e) {
      const std::string msg = e.what();
      CHECK(msg.find("gen row 5") != std::string::npos);
      CHECK(msg.find("found 20 then 10 $/MWh at 200 MW") != std::string::npos);
    }
  }

  TEST_CASE("flows and angles agree with a DC power flow of the OPF dispatch, with a shifter") {
    for (double shift : {0.0, -5.0}) {
      CAPTURE(shift);
      Case c = bundled("case5");
      c.branch[4].shift_deg = shift;  // 3-4
      DcOpf opf(c);
      const DcOpfResult r = opf.solve();
      REQUIRE(r.ok());
      Case pf_case = c;
      for (int g = 0; g < c.n_gen(); ++g) pf_case.gen[g].pg_mw = r.gen_pg_mw[g];
      const auto pf = pz::grid::run_dcpf(pf_case);
      REQUIRE(pf.success);
      CHECK(max_abs_diff(r.branch_pf_mw, pf.branch_pf_mw) < 1e-8);
      CHECK(max_abs_diff(r.bus_va_deg, pf.bus_va_deg) < 1e-8);
      CHECK(max_abs_diff(r.gen_pg_mw, pf.gen_pg_mw) < 1e-8);  // slack gen absorbs ~0 mismatch
      for (int l = 0; l < c.n_branch(); ++l) {
        if (c.branch[l].rate_a_mva > 0)
          CHECK(std::abs(r.branch_pf_mw[l]) <= c.branch[l].rate_a_mva + 1e-7);
      }
      if (shift != 0.0) {
        // The LMP is still d objective / d PD: check by a finite difference at bus 2.
        std::vector<double> pd = scaled_pd(c, 1.0);
        pd[1] += 1e-3;
        DcOpf fresh(c);
        const double fd = (fresh.solve(pd).objective - r.objective) / 1e-3;
        CHECK(std::abs(fd - r.bus_lam_p[1]) < 1e-4);
      }
    }
  }

  TEST_CASE("powerzoo grid dcopf prints MATPOWER-named fields and exits 1 if not optimal") {
    const nlohmann::json g = read_json(fs::path(golden_dir()) / "case5_dcopf_load120.json");
    const Proc p = run(std::string(PZ_BINARY) + " grid dcopf case5 --load-scale 1.2 --json");
    REQUIRE_MESSAGE(p.code == 0, p.out);
    const nlohmann::json j = nlohmann::json::parse(p.out);
    CHECK(j.at("success").get<bool>());
    CHECK(std::abs(j.at("objective").get<double>() - g.at("objective").get<double>()) < 1e-6);
    for (const char* key :
         {"gen_pg_mw", "bus_lam_p", "bus_va_deg", "branch_pf_mw", "branch_mu_sf", "branch_mu_st"}) {
      CAPTURE(key);
      CHECK(max_abs_diff(j.at(key).get<std::vector<double>>(), g.at(key)) < 1e-6);
    }
    CHECK(j.at("binding_branches") == g.at("binding_branches"));
    const Proc text = run(std::string(PZ_BINARY) + " grid dcopf case5");
    CHECK(text.code == 0);
    CHECK(text.out.find("objective 17479.896925") != std::string::npos);
    const Proc bad = run(std::string(PZ_BINARY) + " grid dcopf case5 --load-scale 2 --json");
    CHECK(bad.code == 1);
    CHECK(nlohmann::json::parse(bad.out).at("status") == "infeasible");
    const Proc dcpf = run(std::string(PZ_BINARY) + " grid dcpf case5 --json");
    CHECK(dcpf.code == 0);
    CHECK(nlohmann::json::parse(dcpf.out).at("success").get<bool>());
  }

  TEST_CASE("cost of degree > 2 or concave cost is rejected at construction") {
    Case c = bundled("case5");
    c.gencost[0].coeffs = {1.0, 0.0, 0.0, 14.0, 0.0};
    CHECK_THROWS_AS(DcOpf{c}, pz::core::ConfigError);
    c = bundled("case5");
    c.gencost[0].coeffs = {-0.01, 14.0, 0.0};  // concave
    CHECK_THROWS_AS(DcOpf{c}, pz::core::ConfigError);
  }

  TEST_CASE("solve timing, cold vs warm (informational)") {
    for (const std::string name : {"case5", "case118", "case300"}) {
      const Case c = bundled(name);
      const int reps = 21;
      std::vector<double> cold, warm, it_cold, it_warm;
      DcOpf w(c);
      w.solve(scaled_pd(c, 1.0));
      for (int i = 0; i < reps; ++i) {
        const double s = 0.9 + 0.01 * (i % 11);
        const std::vector<double> pd = scaled_pd(c, s);
        DcOpf fresh(c);
        auto t0 = std::chrono::steady_clock::now();
        const DcOpfResult a = fresh.solve(pd);
        auto t1 = std::chrono::steady_clock::now();
        const DcOpfResult b = w.solve(pd);
        auto t2 = std::chrono::steady_clock::now();
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        cold.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        warm.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
        it_cold.push_back(a.iterations);
        it_warm.push_back(b.iterations);
        CHECK(b.warm_started);
      }
      MESSAGE(name << ": median solve cold " << median(cold) << " us, warm " << median(warm)
                   << " us (construction excluded); median iterations cold " << median(it_cold)
                   << ", warm " << median(it_warm));
    }
  }
}
