// Tests of the AC-OPF (pz::grid::AcOpf on Ipopt) against MATPOWER runopf goldens, its exact
// derivatives against finite differences, warm starts and piecewise-linear costs.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/ac/acopf.hpp"
#include "powerzoo/grid/ac/acopf_model.hpp"
#include "test_grid_util.hpp"

using pz::grid::AcOpf;
using pz::grid::AcOpfModel;
using pz::grid::AcOpfResult;
using pz::grid::Case;

namespace {

nlohmann::json opf_golden(const std::string& file) {
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

/// A point near the operating range (Vm ∈ [0.95, 1.05], angles ±0.2 rad, Pg/Qg in [−1, 2] p.u.)
/// and multipliers in [−10, 10].
void random_point(const AcOpfModel& m, std::mt19937& rng, std::vector<double>& x,
                  std::vector<double>& lam) {
  std::uniform_real_distribution<double> u(-1, 1);
  x.assign(m.n(), 0.0);
  for (int b = 0; b < m.case_data().n_bus(); ++b) {
    x[m.va(b)] = 0.2 * u(rng);
    x[m.vm(b)] = 1.0 + 0.05 * u(rng);
  }
  for (int k = 2 * m.case_data().n_bus(); k < m.n(); ++k) x[k] = 0.5 + 1.5 * u(rng);
  lam.assign(m.m(), 0.0);
  for (auto& l : lam) l = 10 * u(rng);
}

}  // namespace

TEST_SUITE("grid_acopf") {
  TEST_CASE("every MATPOWER runopf golden is reproduced") {
    for (const char* name : {"case5", "case14", "case30", "case118"}) {
      CAPTURE(name);
      const nlohmann::json j = opf_golden(std::string(name) + "_acopf.json");
      AcOpf opf(pz::test::bundled(name));
      const AcOpfResult r = opf.solve();
      REQUIRE_MESSAGE(r.ok(), r.message);
      const double obj = j["objective"].get<double>();
      CHECK(std::abs(r.objective - obj) <= 1e-6 * std::abs(obj));
      CHECK(max_abs_diff(r.gen_pg_mw, j["gen_pg_mw"]) <= 1e-3);
      CHECK(max_abs_diff(r.gen_qg_mvar, j["gen_qg_mvar"]) <= 1e-3);
      CHECK(max_abs_diff(r.bus_vm_pu, j["bus_vm_pu"]) <= 1e-5);
      CHECK(max_abs_diff(r.bus_va_deg, j["bus_va_deg"]) <= 1e-3);
      CHECK(max_abs_diff(r.bus_lam_p, j["bus_lam_p"]) <= 1e-3);
      CHECK(max_abs_diff(r.bus_lam_q, j["bus_lam_q"]) <= 1e-3);
      CHECK(max_abs_diff(r.branch_pf_mw, j["branch_pf_mw"]) <= 1e-3);
      CHECK(max_abs_diff(r.branch_mu_st, j["branch_mu_st"]) <= 1e-3);
      CHECK(max_abs_diff(r.branch_mu_sf, j["branch_mu_sf"]) <= 1e-3);
      CHECK(std::abs(r.total_losses_mw - j["total_losses_mw"].get<double>()) <= 1e-3);
    }
  }

  TEST_CASE("constraint Jacobian and Lagrangian Hessian equal central finite differences") {
    for (const char* name : {"case5", "case30"}) {  // case30 has every branch rated
      CAPTURE(name);
      const AcOpfModel m(pz::test::bundled(name));
      std::mt19937 rng(7);
      std::vector<double> x, lam;
      random_point(m, rng, x, lam);
      const double sigma = 0.7;
      std::vector<double> jac(m.nnz_jac()), hess(m.nnz_hess());
      m.jac_values(x.data(), jac.data());
      m.hess_values(x.data(), sigma, lam.data(), hess.data());
      // Dense references by central differences of g and of ∇L = σ∇f + Jᵀλ.
      const int n = m.n(), mm = m.m();
      std::vector<double> jd(static_cast<size_t>(mm) * n), hd(static_cast<size_t>(n) * n);
      auto grad_l = [&](const std::vector<double>& xx, std::vector<double>& out) {
        std::vector<double> gf(n), jv(m.nnz_jac());
        m.grad_f(xx.data(), gf.data());
        m.jac_values(xx.data(), jv.data());
        out.assign(n, 0.0);
        for (int k = 0; k < n; ++k) out[k] = sigma * gf[k];
        for (int e = 0; e < m.nnz_jac(); ++e) out[m.jac_cols()[e]] += lam[m.jac_rows()[e]] * jv[e];
      };
      const double h = 1e-6;
      std::vector<double> gp(mm), gm(mm), lp, lm;
      for (int k = 0; k < n; ++k) {
        std::vector<double> xp = x, xm = x;
        xp[k] += h;
        xm[k] -= h;
        m.g(xp.data(), gp.data());
        m.g(xm.data(), gm.data());
        for (int r = 0; r < mm; ++r) jd[static_cast<size_t>(r) * n + k] = (gp[r] - gm[r]) / (2 * h);
        grad_l(xp, lp);
        grad_l(xm, lm);
        for (int r = 0; r < n; ++r) hd[static_cast<size_t>(r) * n + k] = (lp[r] - lm[r]) / (2 * h);
      }
      std::vector<double> js(static_cast<size_t>(mm) * n, 0.0), hs(static_cast<size_t>(n) * n, 0.0);
      for (int e = 0; e < m.nnz_jac(); ++e)
        js[static_cast<size_t>(m.jac_rows()[e]) * n + m.jac_cols()[e]] += jac[e];
      for (int e = 0; e < m.nnz_hess(); ++e) {
        const int r = m.hess_rows()[e], c = m.hess_cols()[e];
        REQUIRE(r >= c);
        hs[static_cast<size_t>(r) * n + c] += hess[e];
        if (r != c) hs[static_cast<size_t>(c) * n + r] += hess[e];
      }
      double jerr = 0, herr = 0, hscale = 0;
      for (size_t k = 0; k < js.size(); ++k) jerr = std::max(jerr, std::abs(js[k] - jd[k]));
      for (size_t k = 0; k < hs.size(); ++k) {
        herr = std::max(herr, std::abs(hs[k] - hd[k]));
        hscale = std::max(hscale, std::abs(hd[k]));
      }
      CHECK(jerr < 1e-5);
      CHECK(herr < 1e-6 * std::max(1.0, hscale));
      CHECK(hscale > 1.0);  // the multipliers and flows are not trivially zero
    }
  }

  TEST_CASE("warm start after a load change reaches the cold optimum in fewer iterations") {
    const Case c = pz::test::bundled("case30");
    AcOpf warm(c), cold(c);
    REQUIRE(warm.solve().ok());
    std::vector<double> pd(c.n_bus()), qd(c.n_bus());
    for (int b = 0; b < c.n_bus(); ++b) {
      pd[b] = 1.03 * c.bus[b].pd_mw;
      qd[b] = 1.03 * c.bus[b].qd_mvar;
    }
    AcOpfResult rw, rc;
    warm.solve_into(pd, qd, {}, rw);
    cold.solve_into(pd, qd, {}, rc);
    REQUIRE(rw.ok());
    REQUIRE(rc.ok());
    CHECK(rw.warm_started);
    CHECK_FALSE(rc.warm_started);
    CHECK(rw.iterations < rc.iterations);
    CHECK(std::abs(rw.objective - rc.objective) < 1e-7 * rc.objective);
    for (int g = 0; g < c.n_gen(); ++g) CHECK(std::abs(rw.gen_pg_mw[g] - rc.gen_pg_mw[g]) < 1e-4);
  }

  TEST_CASE("a piecewise-linear cost equal to a linear one gives the same optimum") {
    const Case c = pz::test::bundled("case5");
    Case pwl = c;
    for (int g = 0; g < c.n_gen(); ++g) {
      const double slope = c.gencost[g].coeffs[0], pmax = c.gen[g].pmax_mw;
      // Three points on the same line: two segments of equal price (convex, not strictly).
      pwl.gencost[g] = {1, 0, 0, {0, 0, 0.5 * pmax, 0.5 * slope * pmax, pmax, slope * pmax}};
    }
    const AcOpfResult a = AcOpf(c).solve(), b = AcOpf(pwl).solve();
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(std::abs(a.objective - b.objective) < 1e-6 * a.objective);
    for (int bus = 0; bus < c.n_bus(); ++bus)
      CHECK(std::abs(a.bus_lam_p[bus] - b.bus_lam_p[bus]) < 1e-4);
  }

  TEST_CASE("AC-OPF refuses a non-convex piecewise-linear cost and a missing gencost") {
    Case c = pz::test::bundled("case5");
    c.gencost[2] = {1, 0, 0, {0, 0, 100, 3000, 520, 5000}};  // 30 then ~4.8 $/MWh: falling
    CHECK_THROWS_WITH_AS(AcOpf{c}, doctest::Contains("mpc.gencost row 3"), pz::core::ConfigError);
    c.gencost.clear();
    CHECK_THROWS_WITH_AS(AcOpf{c}, doctest::Contains("gencost"), pz::core::ConfigError);
  }

  TEST_CASE("wrong-sized loads are an outcome") {
    AcOpf opf(pz::test::bundled("case5"));
    std::vector<double> pd(3, 1.0);
    AcOpfResult r;
    opf.solve_into(pd, {}, {}, r);
    CHECK(r.status == pz::grid::AcOpfStatus::kBadInput);
  }
}
