// Tests of the GenCos task: PowerZooJax's load mapping and projection, splits, errors naming the
// key, and the fixed-bid baselines.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/gencos_market.hpp"
#include "powerzoo/exp/eval/evaluate.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/market/clearing.hpp"
#include "powerzoo/tasks/gencos.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

std::string build_error(const std::string& text, const std::string& split = "train") {
  try {
    exp::make_env(exp::parse_spec(text, "s.toml"), split);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "";
}

std::shared_ptr<const envs::GencosMarket> build(const std::string& split) {
  auto env = exp::make_env(exp::parse_spec("[env]\ntask = \"gencos\"\n", "s.toml"), split);
  return std::dynamic_pointer_cast<const envs::GencosMarket>(env);
}

double row_total(const std::vector<double>& l, size_t t) {
  return l[3 * t] + l[3 * t + 1] + l[3 * t + 2];
}

}  // namespace

TEST_SUITE("tasks_gencos") {
  TEST_CASE("min-max mapping per bus, the OOD multiplier, then the projection into [66, 1529]") {
    // Series min 10, max 30: n = 0, 0.5, 1, 0.05.
    const std::vector<double> mw = {10, 20, 30, 11};
    const std::vector<double> lo = {0, 0, 0}, hi = {500, 600, 400};
    const auto l = tasks::gencos_bus_loads(mw, lo, hi, 1.0, 65, 1530);
    REQUIRE(l.size() == 12u);
    CHECK(l[0] == doctest::Approx(500 * 66.0 / 1500).epsilon(1e-12));  // total 0: d_max mix
    CHECK(row_total(l, 0) == doctest::Approx(66).epsilon(1e-12));
    CHECK(l[3] == doctest::Approx(250).epsilon(1e-12));
    CHECK(l[4] == doctest::Approx(300).epsilon(1e-12));
    CHECK(l[5] == doctest::Approx(200).epsilon(1e-12));
    CHECK(row_total(l, 2) == doctest::Approx(1500).epsilon(1e-12));  // below 1529: kept
    CHECK(row_total(l, 3) == doctest::Approx(75).epsilon(1e-12));    // 0.05 · 1500
    const auto s = tasks::gencos_bus_loads(mw, lo, hi, 1.10, 65, 1530);
    CHECK(s[4] == doctest::Approx(330).epsilon(1e-12));
    CHECK(row_total(s, 2) == doctest::Approx(1529).epsilon(1e-12));     // 1650 scaled down
    CHECK(s[6] / s[7] == doctest::Approx(500.0 / 600).epsilon(1e-12));  // its own mix
  }

  TEST_CASE("task gencos on case5: splits, rows within the projection, five agents") {
    const auto train = build("train"), iid = build("iid"), shift = build("demand_shift");
    REQUIRE(train);
    CHECK(train->spec().id == "gencos_market");
    CHECK(train->n_units() == 5);
    CHECK(train->params().ramp_up_mw == std::vector<double>{20, 85, 260, 100, 300});
    CHECK(train->params().load_bus_idx == std::vector<int>{1, 2, 3});
    // GB data: 2025-04-01..2025-12-31 = 275 days, 2026-01-01..2026-03-31 = 90 days of 48 rows
    // (less any missing rows).
    CHECK(train->n_rows() > 270 * 48);
    CHECK(train->n_rows() <= 275 * 48);
    CHECK(iid->n_rows() > 85 * 48);
    CHECK(iid->n_rows() <= 90 * 48);
    CHECK(shift->n_rows() == iid->n_rows());
    const auto& l = iid->params().loads_mw;
    const auto& ls = shift->params().loads_mw;
    double lo = 1e9, hi = 0;
    for (size_t t = 0; t < l.size() / 3; ++t) {
      lo = std::min(lo, row_total(l, t));
      hi = std::max(hi, row_total(ls, t));
    }
    CHECK(lo >= 66 - 1e-9);
    CHECK(hi <= 1529 + 1e-9);
    CHECK(ls[3 * 100 + 1] == doctest::Approx(std::min(1.10 * l[3 * 100 + 1], 1e9)).epsilon(0.1));
  }

  TEST_CASE("bad input names the key") {
    CHECK(build_error("[env]\ntask = \"gencos\"\nmax_markup = 12\n").find("max_markup") !=
          std::string::npos);
    CHECK(build_error("[env]\ntask = \"gencos\"\nmax_markup = -0.5\n").find("max_markup") !=
          std::string::npos);
    const std::string c = build_error("[env]\ntask = \"gencos\"\ncase = \"case14\"\n");
    CHECK(c.find("[env] case") != std::string::npos);
    CHECK(c.find("GenCos units") != std::string::npos);
    CHECK(build_error("[env]\ntask = \"gencos\"\n", "load_stress").find("split") !=
          std::string::npos);
  }

  TEST_CASE("baselines: truthful = no_control = −1, uniform_mid = 0, max_markup = +1") {
    const auto env = build("iid");
    std::vector<float> obs(60 * 2, 0.0f), a(15 * 2, 7.0f);
    const std::pair<const char*, float> want[] = {
        {"truthful", -1.0f}, {"no_control", -1.0f}, {"uniform_mid", 0.0f}, {"max_markup", 1.0f}};
    for (const auto& [name, v] : want) {
      auto pol = tasks::gencos_baseline(name, env);
      REQUIRE(pol);
      (*pol)(obs.data(), 2, a.data());
      for (float x : a) CHECK(x == v);
    }
    CHECK_FALSE(tasks::gencos_baseline("merit_order", env));
  }

  TEST_CASE("evaluation of the five agents records [T, N] trajectories, rewards per agent") {
    const auto env = build("iid");
    core::ThreadPool pool(1);
    auto pol = tasks::gencos_baseline("max_markup", env);
    REQUIRE(pol);
    exp::Trajectories traj;
    const auto m = exp::evaluate(env, *pol, 2, 7, 0.5, {0.0}, pool, &traj);
    CHECK(traj.T == 48);
    CHECK(traj.obs.size() == 48u * 2 * 60);
    CHECK(traj.reward.size() == 48u * 2 * 5);
    CHECK(traj.truncated.size() == 48u * 2);
    CHECK(m.at("total_profit") > 0);
  }
}

// Issue 32 item 2: the GenCos units are the case's gen rows (status, PMAX, linear cost); an
// out-of-service unit keeps its agent but never clears; a cost the offers cannot carry is refused.
namespace {
std::string case5_text() {
  std::ifstream in(grid::resolve_case_path("case5"));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string edited(std::string text, const std::string& from, const std::string& to) {
  const size_t k = text.find(from);
  REQUIRE(k != std::string::npos);
  return text.replace(k, from.size(), to);
}
std::shared_ptr<const envs::GencosMarket> build_on(const std::string& path) {
  auto env = exp::make_env(
      exp::parse_spec("[env]\ntask = \"gencos\"\ncase = \"" + path + "\"\n", "s.toml"), "iid");
  return std::dynamic_pointer_cast<const envs::GencosMarket>(env);
}
}  // namespace

TEST_SUITE("tasks_gencos") {
  TEST_CASE("the case's gen rows: an off unit never clears, a cost and a PMAX are honoured") {
    const auto dir = test::tmp_dir("gencos", "edits");
    const std::string gen4 = "\t4\t0\t0\t150\t-150\t1\t100\t1\t200\t0";
    const std::string off = test::write(
        dir / "gen4_off.m", edited(case5_text(), gen4, "\t4\t0\t0\t150\t-150\t1\t100\t0\t200\t0"));
    const std::string cost = test::write(
        dir / "gen5_cost.m", edited(case5_text(), "\t2\t0\t0\t2\t10\t0;", "\t2\t0\t0\t2\t50\t0;"));
    const std::string pmax = test::write(
        dir / "gen3_pmax.m", edited(case5_text(), "\t3\t323.49\t0\t390\t-390\t1\t100\t1\t520\t0",
                                    "\t3\t323.49\t0\t390\t-390\t1\t100\t1\t260\t0"));
    const auto plain = build("iid");
    REQUIRE(plain);
    std::vector<double> c0;
    for (const auto& u : plain->params().units) c0.push_back(u.mc_c);
    CHECK(c0 == std::vector<double>{14, 15, 30, 40, 10});  // = the task's table
    const auto e_off = build_on(off), e_cost = build_on(cost), e_pmax = build_on(pmax);
    CHECK_FALSE(e_off->params().units[3].in_service);
    CHECK(e_off->params().units[3].pmax_mw == 0.0);
    CHECK(e_off->n_units() == 5);  // the agent stays
    CHECK(e_cost->params().units[4].mc_c == 50.0);
    CHECK(e_pmax->params().units[2].pmax_mw == 260.0);
    CHECK(e_pmax->params().units[2].pmin_mw == 20.0);
    for (const auto& env : {plain, e_off, e_cost, e_pmax}) {
      const auto& p = env->params();
      const market::OfferMarket m(p.grid_case, p.units, p.segments);
      market::Clearing cl(m);
      market::ClearingResult r;
      std::vector<double> pd(p.grid_case.n_bus(), 0.0);
      for (int t = 0; t < 200; t += 37) {
        double load = 0;
        for (int d = 0; d < 3; ++d) load += pd[p.load_bus_idx[d]] = p.loads_mw[3 * t + d];
        cl.clear(pd, m.base_prices(), {}, {}, r);
        REQUIRE(r.status == grid::DcOpfStatus::kOptimal);
        double total = 0;
        for (int u = 0; u < 5; ++u) {
          total += r.p_mw[u];
          CHECK(r.p_mw[u] <= p.units[u].pmax_mw + 1e-9);
          if (!p.units[u].in_service) CHECK(r.p_mw[u] == 0.0);
        }
        CHECK(total + r.unserved_mw == doctest::Approx(load).epsilon(1e-12));
        // The clearing's flows are grid dcpf's on the same file at that dispatch.
        grid::Case at = p.grid_case;
        for (int b = 0; b < at.n_bus(); ++b) at.bus[b].pd_mw = pd[b];
        for (int u = 0; u < 5; ++u) at.gen[p.units[u].gen_row].pg_mw = r.p_mw[u];
        if (std::abs(r.unserved_mw) > 1e-9) continue;  // shedding: no dispatch to compare
        const grid::DcPfResult f = grid::run_dcpf(at);
        REQUIRE(f.success);
        for (int l = 0; l < at.n_branch(); ++l)
          CHECK(std::abs(f.branch_pf_mw[l] - r.flow_mw[l]) < 1e-9);
      }
    }
    // A constant term has nowhere to go in the offers: refused with the file, row and column.
    const std::string c0_case = test::write(
        dir / "c0.m", edited(case5_text(), "\t2\t0\t0\t2\t10\t0;", "\t2\t0\t0\t2\t10\t5;"));
    const std::string q = build_error("[env]\ntask = \"gencos\"\ncase = \"" + c0_case + "\"\n");
    CHECK(q.find("c0.m:") != std::string::npos);
    CHECK(q.find("mpc.gencost row 5 column 6 (c0)") != std::string::npos);
    CHECK(q.find("found 5") != std::string::npos);
  }
}
