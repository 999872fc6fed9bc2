// DC microgrid env (PowerZooJax powerzoojax/envs/microgrid/dc_microgrid.py): observation layout,
// device limits inside the microgrid, the bus balance and reward by hand, the autobalance equals a
// literal preview and re-step, a checkpoint round trip, and the box.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "powerzoo/envs/dc_microgrid.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "test_dc_microgrid_util.hpp"

using namespace pz;
using envs::DcMicrogrid;
using envs::DcMicrogridParams;

namespace {

using test::flat;
using test::step;
using test::tr;

int sum(const envs::Env& env, const std::string& name) {
  const auto& n = env.spec().episode_sum_names;
  const auto it = std::find(n.begin(), n.end(), name);
  REQUIRE(it != n.end());
  return static_cast<int>(it - n.begin());
}

std::unique_ptr<envs::State> copy_state(const envs::Env& env, const envs::State& s) {
  std::vector<double> buf;
  env.save_state(s, buf);
  auto c = env.make_state();
  CHECK(env.load_state(*c, buf) == buf.size());
  return c;
}

}  // namespace

TEST_SUITE("envs_dc_microgrid") {
  TEST_CASE("the observation after reset: 24 fields in the reference's order") {
    DcMicrogridParams p = flat(0.7, 90.0);
    p.battery.soc_init = 0.5;
    const DcMicrogrid env(p);
    CHECK(env.spec().obs_dim == 24);
    CHECK(env.spec().obs_field("last_action").offset == 17);
    CHECK(env.spec().obs_field("time_of_day").offset == 22);
    auto s = env.make_state();
    core::Rng rng(1, 0);
    std::vector<float> o(24);
    env.reset(*s, rng, o, {});
    const std::vector<float> want = {0, 0, 0, 0,    1,    7.0f / 30, 0.5f, 0.75f, 0.7f, 0.5f, 1, 0,
                                     0, 1, 1, 0.6f, 0.6f, 0,         0,    0,     0,    0,    0, 1};
    for (int i = 0; i < 24; ++i) {
      CAPTURE(i);
      CHECK(o[i] == doctest::Approx(want[i]).epsilon(1e-6));
    }
  }

  TEST_CASE("one island step by hand: balance, deficit, reward, costs, observation") {
    // PV 0.4·0.25 = 0.1 MW, battery discharging 0.5·0.5 = 0.25 MW, no diesel, no import.
    DcMicrogridParams p = flat(0.25, 80.0);
    const DcMicrogrid env(p);
    auto s = env.make_state();
    core::Rng rng(2, 0);
    std::vector<float> o(24);
    env.reset(*s, rng, o, {});
    const auto r = step(env, *s, rng, {0, 0, 1, 0.5f, 0});
    const double* q = r.info.trace;
    const double p_dc = q[tr(env, "p_dc_mw")];
    CHECK(q[tr(env, "p_pv_mw")] == doctest::Approx(0.1));
    CHECK(q[tr(env, "p_batt_mw")] == doctest::Approx(0.25));
    CHECK(q[tr(env, "p_grid_import_mw")] == 0.0);
    const double deficit = p_dc - 0.35;
    REQUIRE(deficit > 0);
    CHECK(q[tr(env, "power_deficit_mw")] == doctest::Approx(deficit).epsilon(1e-12));
    CHECK(r.costs[2] == doctest::Approx(deficit / p_dc).epsilon(1e-6));
    CHECK_FALSE(r.info.is_safe);
    const double dt = 5.0 / 60.0;
    // Reward: −P_dc·dt + 0.5·(−0.25·dt·5 $/MWh degradation) + 0.3·0 (no diesel, no import).
    CHECK(r.step.reward == doctest::Approx(-p_dc * dt - 0.5 * 0.25 * dt * 5.0).epsilon(1e-6));
    CHECK(std::isnan(r.step.shaped_reward));  // no shaping in the factory env
    // SOC: 0.5 − 0.25·dt/(0.95·2).
    CHECK(q[tr(env, "soc")] == doctest::Approx(0.5 - 0.25 * dt / 1.9).epsilon(1e-12));
    CHECK(r.obs[9] == doctest::Approx(0.5 - 0.25 * dt / 1.9).epsilon(1e-6));
    CHECK(r.obs[11] == doctest::Approx(p_dc / (0.5 + 0.6 + 0.4)).epsilon(1e-6));
    CHECK(r.obs[12] == doctest::Approx((p_dc - 0.1) / 1.1).epsilon(1e-6));
    CHECK(r.obs[20] == 0.5f);  // last battery action
    CHECK(r.obs[19] == 1.0f);
  }

  TEST_CASE("battery, PV and diesel limits hold inside the microgrid") {
    const double dt = 5.0 / 60.0;
    SUBCASE("discharge stops at the SOC floor") {
      DcMicrogridParams p = flat(0.0, 50.0);
      p.battery.soc_init = 0.101;  // 0.001·2 MWh·0.95 / dt = 0.0228 MW left
      const DcMicrogrid env(p);
      auto s = env.make_state();
      core::Rng rng(3, 0);
      std::vector<float> o(24);
      env.reset(*s, rng, o, {});
      CHECK(o[13] == doctest::Approx(0.0228 / 0.5).epsilon(1e-5));
      const auto r = step(env, *s, rng, {0, 0, 0, 1, 0});
      CHECK(r.info.trace[tr(env, "p_batt_mw")] == doctest::Approx(0.001 * 2 * 0.95 / dt));
      CHECK(DcMicrogrid::soc(*s) == doctest::Approx(0.1).epsilon(1e-12));
      CHECK(r.obs[13] == doctest::Approx(0.0).epsilon(1e-6));
    }
    SUBCASE("charge stops at the SOC ceiling and counts as load") {
      DcMicrogridParams p = flat(0.0, 50.0);
      p.battery.soc_init = 0.899;  // 0.001·2 / (0.95·dt) = 0.025263 MW of room
      p.grid_import_max_mw = 5.0;
      const DcMicrogrid env(p);
      auto s = env.make_state();
      core::Rng rng(4, 0);
      std::vector<float> o(24);
      env.reset(*s, rng, o, {});
      const auto r = step(env, *s, rng, {0, 0, 0, -1, 0});
      const double pb = -0.001 * 2 / (0.95 * dt);
      CHECK(r.info.trace[tr(env, "p_batt_mw")] == doctest::Approx(pb));
      CHECK(r.info.trace[tr(env, "p_grid_import_mw")] ==
            doctest::Approx(r.info.trace[tr(env, "p_dc_mw")] - pb));
      CHECK(DcMicrogrid::soc(*s) == doctest::Approx(0.9).epsilon(1e-12));
      CHECK(r.info.is_safe);
    }
    SUBCASE("PV gives cap·cf, no curtailment; a surplus spills") {
      DcMicrogridParams p = flat(1.0, 50.0);
      p.pv.cap_mw = 3.0;
      const DcMicrogrid env(p);
      auto s = env.make_state();
      core::Rng rng(5, 0);
      std::vector<float> o(24);
      env.reset(*s, rng, o, {});
      const auto r = step(env, *s, rng, {0, 0, 0, 0, 0});
      CHECK(r.info.trace[tr(env, "p_pv_mw")] == doctest::Approx(3.0));
      CHECK(r.info.trace[tr(env, "power_spill_mw")] ==
            doctest::Approx(3.0 - r.info.trace[tr(env, "p_dc_mw")]));
      CHECK(r.costs[2] == 0.0f);
    }
    SUBCASE("diesel: off below half its minimum, at least the minimum above; fuel and CO2") {
      DcMicrogridParams p = flat(0.0, 50.0);
      p.dg.p_min_norm = 0.3;
      const DcMicrogrid env(p);
      auto s = env.make_state();
      core::Rng rng(6, 0);
      std::vector<float> o(24);
      env.reset(*s, rng, o, {});
      auto r = step(env, *s, rng, {0, 0, 0, 0, 0.1f});
      CHECK(r.info.trace[tr(env, "p_dg_mw")] == 0.0);
      r = step(env, *s, rng, {0, 0, 0, 0, 0.2f});
      CHECK(r.info.trace[tr(env, "p_dg_mw")] == doctest::Approx(0.3 * 0.6));
      CHECK(r.info.trace[tr(env, "fuel_cost")] == doctest::Approx(0.18 * dt * 300));
      CHECK(r.info.trace[tr(env, "carbon_kg")] == doctest::Approx(0.18 * dt * 1000 * 0.8));
      CHECK(r.obs[10] == doctest::Approx(0.7).epsilon(1e-6));
    }
    SUBCASE("the import is capped; the rest is deficit; grid cost and carbon at the price") {
      DcMicrogridParams p = flat(0.0, 120.0);
      p.grid_import_max_mw = 0.3;
      const DcMicrogrid env(p);
      auto s = env.make_state();
      core::Rng rng(7, 0);
      std::vector<float> o(24);
      env.reset(*s, rng, o, {});
      const auto r = step(env, *s, rng, {0, 0, 0, 0, 0});
      const double p_dc = r.info.trace[tr(env, "p_dc_mw")];
      CHECK(r.info.trace[tr(env, "p_grid_import_mw")] == 0.3);
      CHECK(r.info.trace[tr(env, "power_deficit_mw")] == doctest::Approx(p_dc - 0.3));
      CHECK(r.info.trace[tr(env, "grid_cost")] == doctest::Approx(0.3 * dt * 120));
      CHECK(r.info.sums[sum(env, "total_carbon_kg")] == doctest::Approx(0.3 * dt * 1000 * 0.18));
    }
  }

  TEST_CASE("dg_autobalance equals a preview with the diesel at 0 and a re-step") {
    DcMicrogridParams p = flat(0.0, 100.0);
    p.grid_import_max_mw = 0.3;
    p.dg.p_max_mw = 1.2;
    p.shaping = true;
    DcMicrogridParams pa = p;
    pa.dg_autobalance = true;
    const DcMicrogrid plain(p), balanced(pa);
    auto s = plain.make_state();
    core::Rng rng(8, 0);
    std::vector<float> o(24);
    plain.reset(*s, rng, o, {});
    const std::vector<std::vector<float>> actions = {
        {0.2f, 0.5f, 0.3f, -1.0f, 0.9f}, {1, 1, 0, -0.5f, 0}, {0, 0, 1, 0.4f, 0.1f}};
    int positive = 0;
    for (int k = 0; k < 30; ++k) {
      CAPTURE(k);
      std::vector<float> a = actions[k % actions.size()];
      // The reference wrapper: preview (same state, same key) with the diesel at 0 ...
      auto preview_state = copy_state(plain, *s);
      core::Rng preview_rng = rng;
      std::vector<float> a0 = a;
      a0[4] = 0;
      const auto pv = step(plain, *preview_state, preview_rng, a0);
      const double residual =
          pv.info.trace[tr(plain, "power_spill_mw")] - pv.info.trace[tr(plain, "power_deficit_mw")];
      std::vector<float> a1 = a;
      a1[4] = static_cast<float>(std::clamp(-residual / 1.2, 0.0, 1.0));
      positive += a1[4] > 0;
      // ... then the real step with the balancing command, against the built-in autobalance.
      auto sb = copy_state(plain, *s);
      core::Rng rng_b = rng;
      const auto want = step(plain, *s, rng, a1);
      const auto got = step(balanced, *sb, rng_b, a);
      CHECK(got.obs == want.obs);
      CHECK(got.costs == want.costs);
      CHECK(got.step.reward == want.step.reward);
      CHECK(got.step.shaped_reward == want.step.shaped_reward);
      CHECK(got.info.trace[tr(plain, "p_dg_mw")] == want.info.trace[tr(plain, "p_dg_mw")]);
      CHECK(got.info.trace[tr(plain, "power_deficit_mw")] == 0.0);
      CHECK(rng == rng_b);
    }
    CHECK(positive >= 10);  // the diesel balanced a real shortfall on most steps
  }

  TEST_CASE("a checkpoint mid-episode continues exactly") {
    DcMicrogridParams p = flat(0.3, 60.0);
    p.grid_import_max_mw = 1.5;
    const DcMicrogrid env(p);
    auto s = env.make_state();
    core::Rng rng(9, 0);
    std::vector<float> o(24);
    env.reset(*s, rng, o, {});
    for (int k = 0; k < 40; ++k) step(env, *s, rng, {0.5f, 0.5f, 0.2f, 0.1f, 0});
    auto c = copy_state(env, *s);
    core::Rng rng_c = rng;
    for (int k = 0; k < 100; ++k) {
      const std::vector<float> a = {0.9f, 0.1f, 0.6f, k % 2 ? -1.0f : 1.0f, 0.3f};
      const auto x = step(env, *s, rng, a);
      const auto y = step(env, *c, rng_c, a);
      REQUIRE(x.obs == y.obs);
      REQUIRE(x.step.reward == y.step.reward);
    }
  }

  TEST_CASE("the task's observations stay inside the documented box over an episode") {
    const auto env =
        exp::make_env(exp::parse_spec("[env]\ntask = \"dc_microgrid\"\n", "d.toml"), "iid");
    const std::vector<float> lo = {0,  0, 0, 0, -1, 0, 0, 0, 0,  0, 0,  0,
                                   -1, 0, 0, 0, 0,  0, 0, 0, -1, 0, -1, -1};
    auto s = env->make_state();
    core::Rng rng(10, 0), act(10, 1);
    std::vector<float> o(24), c(3), a(5);
    env->reset(*s, rng, o, {0, 10});
    envs::Info info;
    envs::Step st;
    int t = 0;
    while (!st.truncated) {
      for (int i = 0; i < 24; ++i) {
        CAPTURE(i);
        CHECK(o[i] >= lo[i]);
        CHECK(o[i] <= 1.0f);
      }
      for (int j = 0; j < 5; ++j) a[j] = static_cast<float>(act.uniform() * 2 - (j == 3));
      st = env->step(*s, a, rng, o, c, &info);
      ++t;
    }
    CHECK(t == 288);
  }
}
