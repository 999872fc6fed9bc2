// DcOpf soft line limits (DcOpfOverrides::line_overload_cost): a hand-computed 3-bus case where
// the ratings cannot be met, the hard-limit OPF where they can, and congested case118 unit
// commitment problems (lazy and full models, soft against hard).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "powerzoo/envs/unit_commitment.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/tasks/tso.hpp"

using namespace pz;

namespace {

/// Triangle 1-2, 2-3, 1-3 of equal reactance, reference bus 1, 300 MW of load at bus 3; only
/// 1-3 is rated (`rate13`). Gen 1 at bus 1: 10 $/MWh, [250, 300] MW; gen 2 at bus 2: 20 $/MWh,
/// [0, 300] MW. A transfer to bus 3 puts 2/3 of it on the direct line and 1/3 on the other
/// path, so with P1 + P2 = 300: flow 1-3 = 2/3·P1 + 1/3·P2 = 100 + P1/3 ≥ 183.3 MW.
grid::Case triangle(double rate13) {
  const std::string r = std::to_string(rate13);
  const std::string text = R"(mpc.baseMVA = 100;
mpc.bus = [1 3 0 0 0 0 1 1 0 230 1 1.1 0.9; 2 2 0 0 0 0 1 1 0 230 1 1.1 0.9;
           3 1 300 0 0 0 1 1 0 230 1 1.1 0.9];
mpc.gen = [1 0 0 0 0 1 100 1 300 250; 2 0 0 0 0 1 100 1 300 0];
mpc.branch = [1 2 0 0.1 0 0 0 0 0 0 1; 2 3 0 0.1 0 0 0 0 0 0 1;
              1 3 0 0.1 0 )" +
                           r + " " + r + " " + r + R"( 0 0 1];
mpc.gencost = [2 0 0 2 10 0; 2 0 0 2 20 0];
)";
  return grid::parse_case(text, "triangle.m");
}

const std::vector<double> kLoad = {0, 0, 300};

grid::DcOpfOverrides soft(double price) {
  grid::DcOpfOverrides o;
  o.line_overload_cost = price;
  return o;
}

/// case118 as the tso task builds it (8° ratings, UC units as gens), linear costs mc_c.
grid::Case uc_case118(std::vector<envs::UcUnit>& units) {
  const std::string path = grid::resolve_case_path("case118");
  grid::Case c = grid::load_case(path);
  tasks::apply_tso_line_ratings(c, 1.0);
  units = tasks::load_uc_units(path.substr(0, path.size() - 2) + "_unit_commitment.csv", c, 0.5);
  for (size_t u = 0; u < units.size(); ++u) {
    c.gen[u].status = 1;
    c.gen[u].pmin_mw = units[u].pmin;
    c.gen[u].pmax_mw = units[u].pmax;
    c.gencost[u].model = 2;
    c.gencost[u].coeffs = {units[u].mc_c, 0.0};
  }
  c.finalize();
  return c;
}

/// Σ over rated branches of |flow| above the rating (MW).
double overload_of(const grid::Case& c, const grid::DcOpfResult& r) {
  double s = 0;
  for (int l = 0; l < c.n_branch(); ++l) {
    const double rate = c.branch[l].rate_a_mva;
    if (c.branch[l].status > 0 && rate > 0) s += std::max(std::abs(r.branch_pf_mw[l]) - rate, 0.0);
  }
  return s;
}

}  // namespace

TEST_SUITE("grid_dcopf_elastic") {
  TEST_CASE("soft line limits: the least overload by hand when the rating cannot be met") {
    // Rating 150: hard limits are infeasible (flow 1-3 ≥ 183.3). Overload 100 + P1/3 − 150 grows
    // with P1 at 1/3 MW per MW, so at a price above 3·(20 − 10) = 30 $/MWh the OPF takes P1 to
    // its minimum 250: flow 183.333, overload 33.333, P2 = 50, cost 10·250 + 20·50 = 3500.
    // Without limits (merit order) P1 = 300 and the overload is 50.
    for (bool lazy : {false, true}) {
      CAPTURE(lazy);
      const grid::Case c = triangle(150);
      grid::DcOpf opf(c);
      opf.set_lazy_line_limits(lazy);
      grid::DcOpfOverrides hard;
      CHECK(opf.solve(kLoad, hard).status == grid::DcOpfStatus::kInfeasible);
      const auto r = opf.solve(kLoad, soft(1e5));
      REQUIRE(r.ok());
      CHECK(r.gen_pg_mw[0] == doctest::Approx(250).epsilon(1e-12));
      CHECK(r.gen_pg_mw[1] == doctest::Approx(50).epsilon(1e-12));
      CHECK(r.gen_pg_mw[0] + r.gen_pg_mw[1] == doctest::Approx(300).epsilon(1e-12));  // balance
      CHECK(r.branch_pf_mw[2] == doctest::Approx(550.0 / 3).epsilon(1e-12));
      CHECK(r.line_overload_mw == doctest::Approx(100.0 / 3).epsilon(1e-12));
      CHECK(r.line_overload_mw == doctest::Approx(overload_of(c, r)).epsilon(1e-12));
      CHECK(r.objective == doctest::Approx(3500).epsilon(1e-12));
      // The line's dual is the price: one more MW of rating saves 1e5 $/h.
      CHECK(r.branch_mu_sf[2] == doctest::Approx(1e5).epsilon(1e-9));
      // A price below the line's value (3 · 10 $/MWh) buys overload: P1 = 300, overload 50.
      const auto cheap = opf.solve(kLoad, soft(20));
      REQUIRE(cheap.ok());
      CHECK(cheap.gen_pg_mw[0] == doctest::Approx(300).epsilon(1e-12));
      CHECK(cheap.line_overload_mw == doctest::Approx(50).epsilon(1e-12));
    }
  }

  TEST_CASE("soft line limits equal the hard-limit OPF where the rating can be met") {
    // Rating 190: P1 ≤ 270, so P1 = 270, P2 = 30, flow 190, line dual 3·10 = 30 $/MWh < price.
    for (bool lazy : {false, true}) {
      CAPTURE(lazy);
      const grid::Case c = triangle(190);
      grid::DcOpf opf(c), ref(c);
      opf.set_lazy_line_limits(lazy);
      const auto s = opf.solve(kLoad, soft(1e5));
      const auto h = ref.solve(kLoad, grid::DcOpfOverrides{});
      REQUIRE(s.ok());
      REQUIRE(h.ok());
      CHECK(h.gen_pg_mw[0] == doctest::Approx(270).epsilon(1e-12));
      CHECK(s.line_overload_mw == 0.0);
      CHECK(s.objective == doctest::Approx(h.objective).epsilon(1e-12));
      for (int g = 0; g < 2; ++g) CHECK(std::abs(s.gen_pg_mw[g] - h.gen_pg_mw[g]) < 1e-9);
      for (int l = 0; l < 3; ++l) CHECK(std::abs(s.branch_pf_mw[l] - h.branch_pf_mw[l]) < 1e-9);
      for (int b = 0; b < 3; ++b) CHECK(std::abs(s.bus_lam_p[b] - h.bus_lam_p[b]) < 1e-9);
      CHECK(s.branch_mu_sf[2] == doctest::Approx(30).epsilon(1e-9));
      // The overload columns stay in the model, fixed at 0, for the next hard solve.
      const auto h2 = opf.solve(kLoad, grid::DcOpfOverrides{});
      REQUIRE(h2.ok());
      CHECK(std::abs(h2.gen_pg_mw[0] - 270) < 1e-9);
      CHECK(h2.line_overload_mw == 0.0);
      CHECK(opf.solve(kLoad, soft(-1)).status == grid::DcOpfStatus::kFailed);
    }
  }

  TEST_CASE("soft line limits on congested case118: lazy equals full, hard where feasible") {
    std::vector<envs::UcUnit> units;
    const grid::Case c = uc_case118(units);
    const int ng = c.n_gen(), nb = c.n_bus();
    grid::DcOpf lazy(c), full(c), hard(c);
    lazy.set_lazy_line_limits(true);
    hard.set_lazy_line_limits(true);
    std::mt19937 g(11);
    std::uniform_real_distribution<double> U(0, 1);
    int met = 0, overloaded = 0;
    for (int it = 0; it < 80; ++it) {
      CAPTURE(it);
      grid::DcOpfOverrides o;
      o.balance_slack_cost = 1000.0;
      std::vector<double> pd(nb);
      const double f = 0.9 + 0.8 * U(g);
      for (int b = 0; b < nb; ++b) pd[b] = c.bus[b].pd_mw * f;
      for (int u = 0; u < ng; ++u) {
        const bool on = U(g) < 0.7;
        const double lo = units[u].pmin + (units[u].pmax - units[u].pmin) * 0.5 * U(g);
        const double hi = lo + (units[u].pmax - lo) * U(g);
        o.pmin_mw.push_back(on ? lo : 0.0);
        o.pmax_mw.push_back(on ? hi : 0.0);
        o.linear_cost_delta.push_back(1e-4 * u);
      }
      const auto h = hard.solve(pd, o);
      o.line_overload_cost = 1e5;
      const auto a = lazy.solve(pd, o);
      const auto b = full.solve(pd, o);
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      double sum_pg = a.balance_slack_mw, demand = 0;
      for (double v : a.gen_pg_mw) sum_pg += v;
      for (double v : pd) demand += v;
      CHECK(sum_pg == doctest::Approx(demand).epsilon(1e-9));
      CHECK(std::abs(a.line_overload_mw - overload_of(c, a)) < 1e-6);  // MW
      CHECK(std::abs(a.line_overload_mw - b.line_overload_mw) < 1e-6);
      CHECK(a.objective == doctest::Approx(b.objective).epsilon(1e-9));
      if (h.ok()) {
        ++met;
        CHECK(a.line_overload_mw < 1e-6);
        CHECK(a.objective == doctest::Approx(h.objective).epsilon(1e-9));
        CHECK(std::abs(a.balance_slack_mw - h.balance_slack_mw) < 1e-6);
      } else {
        ++overloaded;
        CHECK(a.line_overload_mw > 1e-6);
      }
    }
    MESSAGE(met << " within the ratings, " << overloaded << " overloaded");
    CHECK(met > 10);
    CHECK(overloaded > 0);
  }
}
