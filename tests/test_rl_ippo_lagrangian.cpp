// IPPO-Lagrangian: cost critics in every group, one team dual per constraint moved by the team's
// episode costs (up when above the budget, down when below), shared by every group, and its
// checkpoint round trip.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/ippo/ippo.hpp"
#include "test_rl_context.hpp"

using namespace pz;

namespace {

/// Four agents of two types on obs [2·A] and act [A]; two cost channels, constraint on channel 1
/// (budget 1 per episode, cost_scale 2).
rl::LearnerContext make_ctx(int N) {
  rl::LearnerContext ctx;
  const int A = 4;
  ctx.obs_dim = 2 * A;
  ctx.act_dim = A;
  ctx.n_envs = N;
  ctx.horizon = 4;
  for (int a = 0; a < A; ++a)
    ctx.agents.push_back(
        rl::AgentSlice{(a % 2 ? "marker_" : "pointer_") + std::to_string(a), 2 * a, 2, a, 1});
  ctx.rollout_length = 4;
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.hidden = {8, 8}; });
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.learning_rate = 1e-2; });
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.lambda_lr = 0.1; });
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.lambda_init = 1.0; });
  pz::test::ippo_set(ctx, [&](pz::rl::IppoConfig& c_) { c_.sharing = rl::Sharing::kTyped; });
  ctx.constraint_channels = {1};
  ctx.constraint_names = {"overshoot"};
  ctx.thresholds = {2.0};
  ctx.cost_scale = {2.0};
  return ctx;
}

/// One rollout of 4 steps over N envs with a team cost of `cost` per step on channel 1 (channel 0
/// carries noise), every episode ending at step 4 with cost sum 4·cost.
void rollout(rl::IppoLearner& l, int N, double cost, core::Rng& rng) {
  const int A = 4;
  std::vector<float> obs(static_cast<size_t>(N) * 2 * A, 0.1f), act(static_cast<size_t>(N) * A);
  std::vector<float> rew(act.size(), -0.5f), costs(static_cast<size_t>(N) * 2);
  for (int i = 0; i < N; ++i) costs[2 * i] = 7.0f, costs[2 * i + 1] = static_cast<float>(cost);
  std::vector<uint8_t> term(N, 0);
  std::vector<double> ep_cost = {28.0, 4 * cost};
  for (int t = 0; t < 4; ++t) {
    l.collect_act(obs.data(), N, rng, act.data());
    std::vector<uint8_t> tr(N, t == 3 ? 1 : 0);
    std::vector<core::EpisodeEnd> ends;
    if (t == 3)
      for (int i = 0; i < N; ++i) ends.push_back({i, -2.0, -2.0, 4, ep_cost.data()});
    core::StepView v;
    v.n = N, v.obs_dim = 2 * A, v.act_dim = A, v.n_agents = A, v.n_costs = 2, v.t = t;
    v.reward = rew.data(), v.shaped_reward = rew.data(), v.costs = costs.data();
    v.terminated = term.data(), v.truncated = tr.data();
    v.final_obs = obs.data(), v.next_obs = obs.data();
    v.finished = ends;
    l.observe(v);
  }
}

}  // namespace

TEST_SUITE("rl_ippo_lagrangian") {
  TEST_CASE("one cost critic with k outputs per group by default; per_constraint on request") {
    const int N = 2;
    auto two = [](rl::CostCritic layout) {
      auto ctx = make_ctx(N);
      ctx.constraint_channels = {0, 1};
      ctx.constraint_names = {"noise", "overshoot"};
      ctx.thresholds = {30.0, 2.0};
      ctx.cost_scale = {1.0, 2.0};
      pz::test::ippo_set(ctx, [&](pz::rl::IppoConfig& c_) { c_.cost_critic = layout; });
      return ctx;
    };
    CHECK(rl::IppoConfig{}.cost_critic == rl::CostCritic::kShared);
    core::Rng init(4, 0), rng(5, 0);
    rl::IppoLearner a(two(rl::CostCritic::kShared), init, true);
    rollout(a, N, 3.0, rng);
    a.update(rng);
    core::StateDict sd;
    a.save(sd);
    // obs 2 → 8 → 8 → 2 outputs: W2 is [8, 2].
    CHECK(sd.f32.at("learner/group/0/cost_critic/l2/w").size() == 16);
    CHECK(sd.f32.count("learner/group/0/cost_critic/0/l0/w") == 0);
    // Resume: a fresh learner loaded from the checkpoint continues bit for bit.
    core::Rng init2(9, 0);
    rl::IppoLearner b(two(rl::CostCritic::kShared), init2, true);
    b.load(sd);
    core::Rng ra(6, 0), rb(6, 0);
    rollout(a, N, 3.0, ra);
    rollout(b, N, 3.0, rb);
    a.update(ra);
    b.update(rb);
    for (int g = 0; g < 2; ++g)
      CHECK(b.group_learner(g).parameters() == a.group_learner(g).parameters());
    CHECK(b.log_lambdas() == a.log_lambdas());

    // per_constraint: two single-output critics per group, fewer shared parameters.
    core::Rng init3(4, 0), rng3(5, 0);
    rl::IppoLearner per(two(rl::CostCritic::kPerConstraint), init3, true);
    // One trunk less: the per-constraint layout has 2 × (2·8+8 + 8·8+8 + 8+1) against
    // 2·8+8 + 8·8+8 + 8·2+2.
    CHECK(per.group_learner(0).n_parameters() - a.group_learner(0).n_parameters() == 2 * 105 - 114);
    rollout(per, N, 3.0, rng3);
    per.update(rng3);
    core::StateDict old;
    per.save(old);
    CHECK(old.f32.count("learner/group/0/cost_critic/1/l2/w") == 1);
    // A per-constraint checkpoint (the layout before the shared critic) is refused by the
    // default learner with a message naming both layouts and the key, and changes nothing.
    const auto before = b.group_learner(0).parameters();
    CHECK_THROWS_WITH_AS(
        b.load(old),
        doctest::Contains("IPPO group 'marker': checkpoint: the cost critics are 2 "
                          "cost critics, one per constraint"),
        core::ConfigError);
    CHECK_THROWS_WITH_AS(b.load(old),
                         doctest::Contains("set [ippo] cost_critic = \"per_constraint\""),
                         core::ConfigError);
    CHECK(b.group_learner(0).parameters() == before);
    // ... and loads into a learner asking for that layout.
    core::Rng init4(11, 0);
    rl::IppoLearner per2(two(rl::CostCritic::kPerConstraint), init4, true);
    per2.load(old);
    CHECK(per2.group_learner(1).parameters() == per.group_learner(1).parameters());
  }

  TEST_CASE("the team dual rises above the budget, falls below it, and every group shares it") {
    const int N = 3;
    core::Rng init(2, 0), rng(3, 0);
    rl::IppoLearner l(make_ctx(N), init, true);
    CHECK(l.name() == "ippo_lagrangian");
    REQUIRE(l.groups().size() == 2u);
    for (int g = 0; g < 2; ++g) CHECK(l.group_learner(g).n_costs() == 1);
    CHECK(l.log_lambdas() == std::vector<double>{0.0});
    // Per-step cost 1 on the constraint: episode cost 4 raw = 2 scaled; budget 2 / 2 = 1 scaled.
    // log λ ← 0 + 0.1·(2 − 1) = 0.1.
    rollout(l, N, 1.0, rng);
    auto m = l.update(rng);
    CHECK(l.log_lambdas()[0] == doctest::Approx(0.1).epsilon(1e-12));
    CHECK(m.at("lambda/overshoot") == doctest::Approx(std::exp(0.1)));
    CHECK(m.at("safety/episode_cost_est/overshoot") == doctest::Approx(2.0));
    for (int g = 0; g < 2; ++g)
      CHECK(l.group_learner(g).log_lambdas() == l.log_lambdas());  // the team's λ in every group
    CHECK(l.status().at("lambda/overshoot") == doctest::Approx(std::exp(0.1)));
    // No cost: Ĵ = 0 < 1, log λ ← 0.1 + 0.1·(0 − 1) = 0.
    rollout(l, N, 0.0, rng);
    l.update(rng);
    CHECK(l.log_lambdas()[0] == doctest::Approx(0.0).epsilon(1e-12));
    for (int g = 0; g < 2; ++g) CHECK(l.group_learner(g).log_lambdas() == l.log_lambdas());
  }

  TEST_CASE("the duals are checkpointed with the groups; plain IPPO refuses nothing new") {
    const int N = 2;
    core::Rng init(4, 0), rng(5, 0);
    rl::IppoLearner a(make_ctx(N), init, true);
    rollout(a, N, 3.0, rng);
    a.update(rng);
    core::StateDict sd;
    a.save(sd);
    REQUIRE(sd.f64.count("learner/ippo/log_lambda"));
    core::Rng init2(9, 0);
    rl::IppoLearner b(make_ctx(N), init2, true);
    b.load(sd);
    CHECK(b.log_lambdas() == a.log_lambdas());
    CHECK(b.group_learner(1).parameters() == a.group_learner(1).parameters());
    // A Lagrangian learner without constraints is refused.
    auto ctx = make_ctx(N);
    ctx.constraint_channels.clear();
    ctx.constraint_names.clear();
    ctx.thresholds.clear();
    ctx.cost_scale.clear();
    core::Rng init3(1, 0);
    CHECK_THROWS_WITH_AS(rl::make_learner("ippo_lagrangian", ctx, init3),
                         doctest::Contains("ippo_lagrangian needs [safety] constraints"),
                         core::ConfigError);
    // Plain IPPO ignores the constraints (no cost critics, no duals).
    core::Rng init4(1, 0);
    rl::IppoLearner plain(make_ctx(N), init4, false);
    CHECK(plain.group_learner(0).n_costs() == 0);
    CHECK(plain.log_lambdas().empty());
  }
}
