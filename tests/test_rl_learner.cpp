// rl::Learner interface and factory: names, the PPO collection path against a hand-built rollout,
// PPO-Lagrangian duals through update(), save/load through the interface.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/rl/learner.hpp"
#include "powerzoo/rl/learner_registry.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"
#include "test_rl_context.hpp"

using namespace pz;

namespace {

rl::LearnerContext small_context(int n_envs, int k = 0) {
  rl::LearnerContext ctx;
  ctx.obs_dim = 3;
  ctx.act_dim = 2;
  ctx.n_envs = n_envs;
  ctx.horizon = 5;
  ctx.rollout_length = 4;
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.n_minibatches = 2; });
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.n_epochs = 2; });
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.hidden = {8}; });
  for (int c = 0; c < k; ++c) {
    ctx.constraint_channels.push_back(c);
    ctx.constraint_names.push_back("c" + std::to_string(c));
    ctx.thresholds.push_back(0.5);
    ctx.cost_scale.push_back(2.0);
  }
  return ctx;
}

// Synthetic step t of N envs: env 0 truncates at t = 2, costs (t + i) / 10 in both channels.
struct Step {
  std::vector<float> obs, next, act, rew, costs;
  std::vector<uint8_t> term, trunc;
  std::vector<double> ep_cost = {0.3, 0.7};
  std::vector<core::EpisodeEnd> ended;
  core::StepView view(int t, int N, int k) {
    core::StepView v;
    v.n = N, v.obs_dim = 3, v.act_dim = 2, v.n_costs = k, v.t = t;
    v.obs = obs.data(), v.actions = act.data(), v.reward = rew.data();
    v.shaped_reward = rew.data(), v.costs = costs.data(), v.terminated = term.data();
    v.truncated = trunc.data(), v.final_obs = next.data(), v.next_obs = next.data();
    ended.clear();
    if (trunc[0]) ended.push_back({0, 1.0, 1.0, 3, ep_cost.data()});
    v.finished = ended;
    return v;
  }
};

Step make_step(int t, int N, int k, core::Rng& rng) {
  Step s;
  s.obs.resize(N * 3), s.next.resize(N * 3), s.act.resize(N * 2), s.rew.resize(N);
  for (auto& x : s.obs) x = static_cast<float>(rng.normal());
  for (auto& x : s.next) x = static_cast<float>(rng.normal());
  for (auto& x : s.rew) x = static_cast<float>(rng.normal());
  s.term.assign(N, 0);
  s.trunc.assign(N, 0);
  s.trunc[0] = t == 2;
  for (int i = 0; i < N; ++i)
    for (int c = 0; c < k; ++c) s.costs.push_back(static_cast<float>((t + i) / 10.0));
  return s;
}

}  // namespace

TEST_SUITE("rl_learner") {
  TEST_CASE("the factory knows the PPO, IPPO and SAC learners and names the rest") {
    const auto names = rl::learner_names();
    // The built-in learners, plus the test-only one of tests/test_rl_registry.cpp.
    CHECK(names == std::vector<std::string>{"ippo", "ippo_lagrangian", "ppo", "ppo_lagrangian",
                                            "sac", "saute_ppo", "test_constant"});
    core::Rng init(1, 1);
    CHECK(rl::make_learner("saute_ppo", small_context(4), init)->name() == "saute_ppo");
    const auto sac = rl::make_learner("sac", small_context(4), init);
    CHECK(sac->name() == "sac");
    CHECK(sac->collect_steps() == 4);  // [ppo] rollout_length: one train row
    CHECK(sac->update_every() == 1);   // off-policy: an update after every vector step
    CHECK(rl::make_learner("ppo", small_context(4), init)->update_every() == 4);
    try {
      rl::make_learner("td3", small_context(4), init);
      FAIL("expected a ConfigError");
    } catch (const core::ConfigError& e) {
      CHECK(std::string(e.what()).find(
                "ippo, ippo_lagrangian, ppo, ppo_lagrangian, sac, saute_ppo") != std::string::npos);
      CHECK(std::string(e.what()).find("'td3'") != std::string::npos);
    }
  }

  TEST_CASE("collecting through the interface equals update() on the same hand-built rollout") {
    const int N = 4, T = 4;
    const auto ctx = small_context(N);
    core::Rng i1(5, 1), i2(5, 1);
    auto learner = rl::make_learner("ppo", ctx, i1);
    rl::PpoLearner direct(ctx.obs_dim, ctx.act_dim, rl::ppo_config(ctx), i2);
    CHECK(learner->collect_steps() == T);
    rl::Rollout ro;
    ro.resize(T, N, 3, 2);
    core::Rng a1(7, 2), a2(7, 2), data(9, 9);
    std::vector<float> env_act(N * 2);
    for (int t = 0; t < T; ++t) {
      Step s = make_step(t, N, 0, data);
      learner->collect_act(s.obs.data(), N, a1, s.act.data());
      std::copy(s.obs.begin(), s.obs.end(), &ro.obs[t * N * 3]);
      direct.act(s.obs.data(), N, &a2, env_act.data(), &ro.logp[t * N], &ro.values[t * N],
                 &ro.actions[t * N * 2]);
      CHECK(env_act == s.act);
      learner->observe(s.view(t, N, 0));
      for (int i = 0; i < N; ++i) {
        ro.rewards[t * N + i] = s.rew[i];
        ro.dones[t * N + i] = s.trunc[i];
        ro.truncated[t * N + i] = s.trunc[i];
        if (s.trunc[i])
          std::copy(&s.next[i * 3], &s.next[i * 3 + 3], &ro.final_obs[(t * N + i) * 3]);
      }
      if (t == T - 1) std::copy(s.next.begin(), s.next.end(), ro.next_obs.begin());
    }
    core::Rng s1(3, 3), s2(3, 3);
    const auto m1 = learner->update(s1);
    const auto m2 = direct.update(ro, s2);
    CHECK(m1 == m2);
    CHECK(dynamic_cast<rl::PpoLearner&>(*learner).parameters() == direct.parameters());
    CHECK_THROWS_AS(learner->update(s1), core::RunError);  // the rollout was consumed
  }

  TEST_CASE("ppo_lagrangian: one dual step per update from the episodes that ended, save/load") {
    const int N = 2, k = 2;
    const auto ctx = small_context(N, k);
    core::Rng init(2, 1), act(2, 2), data(4, 4), shuffle(2, 3);
    auto learner = rl::make_learner("ppo_lagrangian", ctx, init);
    CHECK(learner->status().size() == 2);
    for (int t = 0; t < learner->collect_steps(); ++t) {
      Step s = make_step(t, N, k, data);
      learner->collect_act(s.obs.data(), N, act, s.act.data());
      learner->observe(s.view(t, N, k));
    }
    const auto m = learner->update(shuffle);
    // One episode ended (env 0 at t = 2) with costs 0.3, 0.7 → Ĵ_C = cost / scale 2.
    CHECK(m.at("safety/episode_cost_est/c0") == doctest::Approx(0.15));
    CHECK(m.at("safety/episode_cost_est/c1") == doctest::Approx(0.35));
    // Log ascent from λ = 1: log λ = lambda_lr·(Ĵ_C − 0.5/2).
    CHECK(m.at("lambda/c0") == doctest::Approx(std::exp(5e-3 * (0.15 - 0.25))));
    CHECK(learner->status().at("lambda/c1") == doctest::Approx(m.at("lambda/c1")));

    core::StateDict sd;
    learner->save(sd);
    CHECK(sd.f64.count("learner/log_lambda") == 1);
    core::Rng other(99, 1);
    auto copy = rl::make_learner("ppo_lagrangian", ctx, other);
    copy->load(sd);
    std::vector<float> obs = {0.1f, -0.2f, 0.3f, 1.0f, 0.5f, -1.0f}, a1(4), a2(4);
    learner->act(obs.data(), 2, nullptr, a1.data());
    copy->act(obs.data(), 2, nullptr, a2.data());
    CHECK(a1 == a2);
    CHECK(copy->status() == learner->status());
    auto plain = rl::make_learner("ppo", ctx, other);
    CHECK_THROWS_AS(plain->load(sd), core::ConfigError);  // layout has cost critics
  }
}
