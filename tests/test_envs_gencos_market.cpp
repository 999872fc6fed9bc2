// GencosMarket: agent order and slices, a hand-checked profit step, save/load, checkpoint width,
// the load forecast (perfect: the next rows' totals; noisy: seeded, resumable, forecast only).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/gencos_market.hpp"
#include "powerzoo/market/offer_curve.hpp"
#include "powerzoo/vec/vector_env.hpp"
#include "test_grid_util.hpp"

using namespace pz;

namespace {

/// The GenCos units of case5 (PowerZooJax powerzoojax/tasks/gencos.py) with the default ramps;
/// loads at buses 2, 3, 4 from `rows` ([T × 3] MW).
envs::GencosParams case5_params(std::vector<double> rows, int horizon = 4) {
  envs::GencosParams p;
  p.grid_case = test::bundled("case5");
  const double pmin[] = {5, 10, 20, 10, 20}, pmax[] = {40, 170, 520, 200, 600},
               c[] = {14, 15, 30, 40, 10}, ramp[] = {20, 85, 260, 100, 300};
  for (int i = 0; i < 5; ++i) {
    market::OfferUnit u;
    u.gen_row = i;
    u.pmin_mw = pmin[i];
    u.pmax_mw = pmax[i];
    u.mc_c = c[i];
    p.units.push_back(u);
    p.ramp_up_mw.push_back(ramp[i]);
    p.ramp_down_mw.push_back(ramp[i]);
  }
  p.load_bus_idx = {1, 2, 3};
  p.loads_mw = std::move(rows);
  p.horizon = horizon;
  return p;
}

struct Out {
  std::vector<float> obs;
  envs::Step st;
  envs::Info info;
};

/// Resets at row 0 and steps once with `a`.
Out one_step(const envs::GencosMarket& env, const std::vector<float>& a) {
  Out o;
  auto s = env.make_state();
  core::Rng rng(1, 1);
  o.obs.resize(env.spec().obs_dim);
  env.reset(*s, rng, o.obs, {0, 1});
  float cost = 0;
  o.st = env.step(*s, a, rng, o.obs, {&cost, 1}, &o.info);
  return o;
}

}  // namespace

TEST_SUITE("envs_gencos_market") {
  TEST_CASE("agents genco_0..4 in unit order, 12 observations and 3 actions each") {
    const envs::GencosMarket env(case5_params({250, 300, 200}));
    const auto& sp = env.spec();
    REQUIRE(sp.agents.size() == 5u);
    CHECK(sp.obs_dim == 60);
    CHECK(sp.act_dim == 15);
    CHECK(sp.cost_names == std::vector<std::string>{"thermal_overload"});
    const std::vector<float> truthful(15, -1.0f);
    const Out o = one_step(env, truthful);
    const double c[] = {14, 15, 30, 40, 10};
    for (int a = 0; a < 5; ++a) {
      CHECK(sp.agents[a].name == "genco_" + std::to_string(a));
      CHECK(sp.agents[a].obs.offset == 12 * a);
      CHECK(sp.agents[a].obs.size == 12);
      CHECK(sp.agents[a].act.offset == 3 * a);
      CHECK(sp.agents[a].act.size == 3);
      // Field 0 is the agent's own truthful first-segment price / 100: unit a's c.
      const std::string ag = "genco_" + std::to_string(a);
      CHECK(sp.obs_field(ag + "/own_cost").offset == 12 * a);
      CHECK(sp.obs_field(ag + "/lmp_history").offset == 12 * a + 8);
      CHECK(sp.obs_field(ag + "/lmp_history").size == 4);
      CHECK(o.obs[12 * a] == doctest::Approx(c[a] / 100.0).epsilon(1e-6));
    }
  }

  TEST_CASE("one agent's action moves exactly its unit's offer, its block and its reward") {
    const envs::GencosMarket env(case5_params({250, 300, 200, 250, 300, 200}));
    std::vector<float> base(15, -1.0f), bid = base;
    const envs::Slice act0 = env.spec().agents[0].act;
    for (int k = 0; k < act0.size; ++k) bid[act0.offset + k] = 1.0f;  // G1 offers 3 × base
    std::vector<double> p_base(15), p_bid(15);
    market::offer_prices(env.market().base_prices(), base, 3, 2.0, p_base);
    market::offer_prices(env.market().base_prices(), bid, 3, 2.0, p_bid);
    for (int j = 0; j < 15; ++j) {
      if (j < 3)
        CHECK(p_bid[j] == doctest::Approx(3 * p_base[j]).epsilon(1e-12));
      else
        CHECK(p_bid[j] == p_base[j]);
    }
    const Out a = one_step(env, base), b = one_step(env, bid);
    // G1 (14 $/MWh × 3 = 42 > G4's 40) ramps down 20 MW to 20 MW; G2 (the marginal unit,
    // LMP 15.01 in both) takes the 20 MW, so block 1 moves with the physics; G3..G5 see the same
    // dispatch and prices.
    const int disp = env.spec().obs_field("genco_0/dispatch").offset;
    CHECK(a.obs[disp] == doctest::Approx(1.0f).epsilon(1e-5));           // 40 / 40
    CHECK(b.obs[disp] == doctest::Approx(0.5f).epsilon(1e-5));           // 20 / 40
    CHECK(b.st.agent_reward[0] == doctest::Approx(10.1).epsilon(1e-6));  // (15.01 − 14)·20·½
    CHECK(a.st.agent_reward[0] != b.st.agent_reward[0]);
    for (int ag = 2; ag < 5; ++ag) {
      CHECK(a.st.agent_reward[ag] == doctest::Approx(b.st.agent_reward[ag]).epsilon(1e-9));
      for (int f = 0; f < 12; ++f)
        CHECK(a.obs[12 * ag + f] == doctest::Approx(b.obs[12 * ag + f]).epsilon(1e-6));
    }
  }

  TEST_CASE("hand-checked profits: golden load, truthful offers, LMP 15.01 everywhere") {
    const envs::GencosMarket env(case5_params({250, 300, 200}));
    const Out o = one_step(env, std::vector<float>(15, -1.0f));
    // P = [40, 80, 20, 10, 600] MW (market_clearing golden 1), dt = ½ h:
    // (15.01 − c_i)·P_i·½ = 20.2, 0.4, −149.9, −124.95, 1503.
    const double want[] = {20.2, 0.4, -149.9, -124.95, 1503.0};
    double total = 0;
    for (int a = 0; a < 5; ++a) {
      CHECK(o.st.agent_reward[a] == doctest::Approx(want[a]).epsilon(1e-6));
      total += want[a];
    }
    CHECK(o.st.reward == doctest::Approx(total / 5).epsilon(1e-6));
    const auto& names = env.spec().episode_sum_names;
    auto sum = [&](const std::string& n) {
      for (size_t j = 0; j < names.size(); ++j)
        if (names[j] == n) return o.info.sums[j];
      FAIL("no sum " << n);
      return 0.0;
    };
    CHECK(sum("total_profit") == doctest::Approx(1248.75).epsilon(1e-6));
    CHECK(sum("profit_genco_4") == doctest::Approx(1503.0).epsilon(1e-6));
    CHECK(sum("mean_lmp") == doctest::Approx(15.01 / 4).epsilon(1e-6));  // ÷ horizon 4
    CHECK(sum("sced_convergence_rate") == doctest::Approx(0.25).epsilon(1e-12));
    // Σ share² of [40, 80, 20, 10, 600] / 750, ÷ horizon.
    CHECK(sum("hhi") ==
          doctest::Approx((40. * 40 + 80 * 80 + 400 + 100 + 360000) / (750. * 750) / 4)
              .epsilon(1e-9));
    CHECK(sum("total_gen_cost") ==
          doctest::Approx((14 * 40 + 15 * 80 + 30 * 20 + 40 * 10 + 10 * 600) * 0.5).epsilon(1e-9));
  }

  TEST_CASE("save/load round trip continues identically; short state is refused") {
    const envs::GencosMarket env(case5_params({250, 300, 200, 300, 350, 250, 200, 250, 150}, 6));
    auto s = env.make_state();
    core::Rng rng(5, 5);
    std::vector<float> obs(60), obs2(60), a(15);
    env.reset(*s, rng, obs, {});
    float cost = 0;
    core::Rng arng(2, 2);
    for (int t = 0; t < 2; ++t) {
      for (auto& x : a) x = static_cast<float>(2 * arng.uniform() - 1);
      env.step(*s, a, rng, obs, {&cost, 1}, nullptr);
    }
    std::vector<double> saved;
    env.save_state(*s, saved);
    auto s2 = env.make_state();
    CHECK(env.load_state(*s2, saved) == saved.size());
    for (int t = 0; t < 3; ++t) {
      for (auto& x : a) x = static_cast<float>(2 * arng.uniform() - 1);
      envs::Info i1, i2;
      const envs::Step r1 = env.step(*s, a, rng, obs, {&cost, 1}, &i1);
      const envs::Step r2 = env.step(*s2, a, rng, obs2, {&cost, 1}, &i2);
      CHECK(obs == obs2);
      for (int ag = 0; ag < 5; ++ag) CHECK(r1.agent_reward[ag] == r2.agent_reward[ag]);
      // The loaded state solves without the LP's warm basis: the same vertex, last bits apart.
      for (int j = 0; j < envs::Info::kMaxSums; ++j)
        CHECK(i1.sums[j] == doctest::Approx(i2.sums[j]).epsilon(1e-12).scale(1e-9));
    }
    saved.resize(5);
    CHECK_THROWS_AS(env.load_state(*s2, saved), core::ConfigError);
  }

  TEST_CASE("vector-env checkpoints from a build with 8 episode sums are refused by name") {
    auto env = std::make_shared<const envs::GencosMarket>(case5_params({250, 300, 200}));
    core::ThreadPool pool(1);
    vec::VectorEnv v(env, 2, 3, 0, pool);
    v.reset_all();
    core::StateDict sd;
    v.save(sd, "vec/");
    REQUIRE(sd.i64.at("vec/episode_sum_width") == std::vector<int64_t>{envs::Info::kMaxSums});
    vec::VectorEnv w(env, 2, 4, 0, pool);
    w.load(sd, "vec/");  // same width: accepted
    CHECK(w.obs == v.obs);
    sd.i64.erase("vec/episode_sum_width");  // as written before the width was stored
    try {
      w.load(sd, "vec/");
      FAIL("expected a ConfigError");
    } catch (const core::ConfigError& e) {
      CHECK(std::string(e.what()).find("8 episode sums") != std::string::npos);
    }
  }

  TEST_CASE("a perfect load forecast of H steps is the next rows' total load / sum pmax") {
    // Row totals 300, 600, 900, 1200 MW; Σ pmax = 1530 MW.
    auto p = case5_params({100, 100, 100, 200, 200, 200, 300, 300, 300, 400, 400, 400});
    p.forecast = {3, 0.0};
    const envs::GencosMarket env(p);
    const auto& sp = env.spec();
    const int per = 12 + 2;  // the one-step layout plus two more leads
    CHECK(sp.obs_dim == 5 * per);
    const envs::Slice fc = sp.obs_field("genco_2/load_forecast");
    CHECK(fc.offset == 2 * per + 5);
    CHECK(fc.size == 3);
    CHECK(sp.obs_field("genco_2/time_of_day").offset == 2 * per + 8);
    CHECK(sp.obs_field("genco_2/lmp_history").offset == 2 * per + 10);
    auto st = env.make_state();
    core::Rng rng(3, 1);
    std::vector<float> obs(sp.obs_dim), a(15, -1.0f);
    env.reset(*st, rng, obs, {0, 1});
    std::vector<double> saved;
    env.save_state(*st, saved);
    const int64_t s0 = static_cast<int64_t>(saved[1]);
    const double total[4] = {300, 600, 900, 1200};
    float cost = 0;
    for (int t = 0; t < 3; ++t) {
      CAPTURE(t);
      for (int ag = 0; ag < 5; ++ag)
        for (int k = 1; k <= 3; ++k)
          CHECK(obs[ag * per + 5 + k - 1] ==
                doctest::Approx(total[(s0 + t + k) % 4] / 1530.0).epsilon(1e-6));
      env.step(*st, a, rng, obs, {&cost, 1}, nullptr);
    }
    // Without a forecast the field is gone and the layout closes up.
    p.forecast = {0, 0.0};
    const envs::GencosMarket none(p);
    CHECK(none.spec().obs_dim == 5 * 11);
    CHECK(none.spec().obs_field("genco_0/time_of_day").offset == 5);
  }

  TEST_CASE("forecast noise: only load_forecast moves, one draw for all agents, resumes exactly") {
    const std::vector<double> rows = {250, 300, 200, 300, 350, 250, 200, 250, 150, 280, 320, 240};
    auto pc = case5_params(rows, 6), pn = pc;
    pc.forecast = {4, 0.0};
    pn.forecast = {4, 0.1};
    const envs::GencosMarket clean(pc), noisy(pn);
    const auto& sp = clean.spec();
    REQUIRE(sp.obs_dim == noisy.spec().obs_dim);
    const int per = sp.agents[0].obs.size, f0 = sp.obs_field("genco_0/load_forecast").offset;
    auto sa = clean.make_state(), sb = noisy.make_state(), sr = noisy.make_state();
    std::vector<float> oa(sp.obs_dim), ob(sp.obs_dim), orr(sp.obs_dim), a(15, 0.0f);
    core::Rng ra(9, 4), rb(9, 4), rr;
    clean.reset(*sa, ra, oa, {});
    noisy.reset(*sb, rb, ob, {});
    float ca = 0, cb = 0, cr = 0;
    int differ = 0;
    for (int t = 0; t < 6; ++t) {
      CAPTURE(t);
      for (int ag = 0; ag < 5; ++ag)
        for (int i = 0; i < per; ++i) {
          const bool in_fc = i >= f0 && i < f0 + 4;
          if (in_fc) {
            differ += oa[ag * per + i] != ob[ag * per + i];
            CHECK(ob[ag * per + i] == ob[i]);  // the same forecast in every agent's block
          } else {
            CHECK(oa[ag * per + i] == ob[ag * per + i]);
          }
        }
      CHECK(ra == rb);  // the errors have their own stream
      if (t == 2) {
        std::vector<double> saved;
        noisy.save_state(*sb, saved);
        std::vector<double> saved_clean;
        clean.save_state(*sa, saved_clean);
        CHECK(saved.size() == saved_clean.size() + 8);  // the error stream's four words
        CHECK(noisy.load_state(*sr, saved) == saved.size());
        rr = rb;
      }
      const envs::Step x = clean.step(*sa, a, ra, oa, {&ca, 1}, nullptr);
      const envs::Step y = noisy.step(*sb, a, rb, ob, {&cb, 1}, nullptr);
      CHECK(x.reward == y.reward);
      if (t >= 2) {
        noisy.step(*sr, a, rr, orr, {&cr, 1}, nullptr);
        CHECK(orr == ob);
      }
    }
    CHECK(differ == 5 * 4 * 6);
    // The same seed gives the same errors.
    auto sc = noisy.make_state();
    std::vector<float> oc(sp.obs_dim), od(sp.obs_dim);
    core::Rng rc(9, 4), rd(9, 4);
    noisy.reset(*sc, rc, oc, {});
    noisy.reset(*sb, rd, od, {});
    CHECK(oc == od);
  }

  TEST_CASE("inconsistent sizes are configuration errors") {
    auto p = case5_params({250, 300, 200});
    p.ramp_up_mw.pop_back();
    CHECK_THROWS_AS(envs::GencosMarket{p}, core::ConfigError);
    p = case5_params({250, 300, 200, 1});
    CHECK_THROWS_AS(envs::GencosMarket{p}, core::ConfigError);
  }
}
