// Tests of the GenCos task: PowerZooJax's load mapping and projection, splits, errors naming the
// key, and the fixed-bid baselines.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/gencos_market.hpp"
#include "powerzoo/exp/build.hpp"
#include "powerzoo/exp/evaluate.hpp"
#include "powerzoo/tasks/gencos.hpp"

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
