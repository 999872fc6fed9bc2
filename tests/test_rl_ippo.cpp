// IPPO: parameter groups, per-agent GAE with the team done, full-batch mode, thread-count
// invariance, checkpoint round trip and an end-to-end training run on the test-only target env.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/rl/ippo/ippo.hpp"
#include "same_bits.hpp"
#include "test_rl_context.hpp"

using namespace pz;
using pz::test::same_bits;

namespace {

/// A context of A agents on obs [2·A] (agent a sees [2a, 2a + 2)) and act [A] (agent a: [a]);
/// with typed names the odd agents are marker_<a>, the even ones pointer_<a>.
rl::LearnerContext make_ctx(int A, int N, rl::Sharing sharing, core::ThreadPool* pool = nullptr) {
  rl::LearnerContext ctx;
  ctx.obs_dim = 2 * A;
  ctx.act_dim = A;
  ctx.n_envs = N;
  ctx.horizon = 4;
  for (int a = 0; a < A; ++a)
    ctx.agents.push_back(
        rl::AgentSlice{(a % 2 ? "marker_" : "pointer_") + std::to_string(a), 2 * a, 2, a, 1});
  ctx.rollout_length = 4;
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.hidden = {8, 8}; });
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.n_minibatches = 2; });
  pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.learning_rate = 1e-2; });
  pz::test::ippo_set(ctx, [&](pz::rl::IppoConfig& c_) { c_.sharing = sharing; });
  ctx.pool = pool;
  return ctx;
}

/// Drives a learner like the trainer on a synthetic task: agent a's target is obs[2a], its reward
/// −(action − target)², episodes of 4 steps truncated together (the team done).
struct Feeder {
  int N, A;
  core::Rng data{7, 1};
  int t = 0;
  std::vector<float> obs;
  Feeder(int n, int a) : N(n), A(a), obs(static_cast<size_t>(n) * 2 * a) {
    for (size_t i = 0; i < obs.size(); i += 2) obs[i] = static_cast<float>(2 * data.uniform() - 1);
  }
  void step(rl::Learner& l, core::Rng& act_rng) {
    std::vector<float> act(static_cast<size_t>(N) * A), rew(act.size());
    l.collect_act(obs.data(), N, act_rng, act.data());
    for (int i = 0; i < N; ++i)
      for (int a = 0; a < A; ++a) {
        const double d = act[i * A + a] - obs[(i * A + a) * 2];
        rew[i * A + a] = static_cast<float>(-d * d);
      }
    const bool trunc = (++t % 4) == 0;
    std::vector<uint8_t> term(N, 0), tr(N, trunc ? 1 : 0);
    std::vector<float> final_obs = obs;
    for (size_t i = 0; i < obs.size(); i += 2) {
      if (trunc) obs[i] = static_cast<float>(2 * data.uniform() - 1);
      obs[i + 1] = static_cast<float>(t % 4) / 4.0f;
    }
    core::StepView v;
    v.n = N, v.obs_dim = 2 * A, v.act_dim = A, v.n_agents = A;
    v.reward = rew.data(), v.shaped_reward = rew.data();
    v.terminated = term.data(), v.truncated = tr.data();
    v.final_obs = final_obs.data(), v.next_obs = obs.data();
    l.observe(v);
  }
  std::map<std::string, double> iteration(rl::Learner& l, core::Rng& rng) {
    for (int k = 0; k < l.collect_steps(); ++k) step(l, rng);
    return l.update(rng);
  }
};

std::vector<float> all_params(rl::IppoLearner& l) {
  std::vector<float> out;
  for (size_t g = 0; g < l.groups().size(); ++g) {
    const auto p = l.group_learner(static_cast<int>(g)).parameters();
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

}  // namespace

TEST_SUITE("rl_ippo") {
  TEST_CASE("full, typed and independent sharing partition the agents") {
    const auto ctx = make_ctx(4, 2, rl::Sharing::kFull);
    const auto full = rl::ippo_groups(ctx.agents, rl::Sharing::kFull, 8, 4);
    REQUIRE(full.size() == 1u);
    CHECK(full[0].name == "all");
    CHECK(full[0].agents == std::vector<int>{0, 1, 2, 3});
    const auto typed = rl::ippo_groups(ctx.agents, rl::Sharing::kTyped, 8, 4);
    REQUIRE(typed.size() == 2u);  // sorted type names
    CHECK(typed[0].name == "marker");
    CHECK(typed[0].agents == std::vector<int>{1, 3});
    CHECK(typed[1].name == "pointer");
    CHECK(typed[1].agents == std::vector<int>{0, 2});
    const auto ind = rl::ippo_groups(ctx.agents, rl::Sharing::kIndependent, 8, 4);
    REQUIRE(ind.size() == 4u);
    CHECK(ind[1].name == "marker_1");
    CHECK(ind[2].agents == std::vector<int>{2});
    // A single-agent env is one group over the whole vectors.
    const auto one = rl::ippo_groups({}, rl::Sharing::kTyped, 5, 3);
    REQUIRE(one.size() == 1u);
    CHECK(one[0].obs_dim == 5);
    CHECK(one[0].act_dim == 3);
    // The learner builds one PpoLearner per group with the group's slice sizes.
    core::Rng init(1, 0);
    rl::IppoLearner l(make_ctx(4, 2, rl::Sharing::kTyped), init);
    CHECK(l.name() == "ippo");
    CHECK(l.group_learner(0).collected().N == 4);  // N = 2 envs × 2 agents
    CHECK(l.group_learner(0).collected().obs_dim == 2);
  }

  TEST_CASE("a typed group of agents with different sizes is refused, naming the agents") {
    auto ctx = make_ctx(3, 2, rl::Sharing::kTyped);
    ctx.obs_dim = 7;
    ctx.agents[2].obs_dim = 3;  // pointer_2 sees 3 values, pointer_0 2
    CHECK_THROWS_WITH_AS(rl::ippo_groups(ctx.agents, rl::Sharing::kTyped, 7, 3),
                         "group 'pointer' shares one network between agents of different sizes: "
                         "'pointer_0' has obs 2, act 1; 'pointer_2' has obs 3, act 1",
                         core::ConfigError);
    core::Rng init(1, 0);
    CHECK_THROWS_AS(rl::make_learner("ippo", ctx, init), core::ConfigError);
    // Independent sharing has no such constraint.
    pz::test::ippo_set(ctx,
                       [&](pz::rl::IppoConfig& c_) { c_.sharing = rl::Sharing::kIndependent; });
    CHECK(rl::make_learner("ippo", ctx, init)->name() == "ippo");
  }

  // Guards [ppo] bounded_mean under IPPO: each group's network maps its mean into its own agents'
  // box, and a group whose agents' boxes differ is refused before any work.
  TEST_CASE("bounded_mean: each group's mean lies in its agents' box; differing boxes refused") {
    rl::LearnerContext ctx = make_ctx(4, 2, rl::Sharing::kTyped);
    pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.bounded_mean = true; });
    ctx.act_low = {-1.0f, 0.0f, -1.0f, 0.0f};  // pointer_0, marker_1, pointer_2, marker_3
    ctx.act_high = {1.0f, 2.0f, 1.0f, 2.0f};
    core::Rng init(1, 0);
    rl::IppoLearner l(ctx, init);
    // Groups sorted by name: marker (box [0, 2], centre 1), pointer ([−1, 1], centre 0). The
    // output layer starts at 0.01 scale, so each mean starts near its box's centre.
    const std::vector<float> obs = {0.3f, -0.2f, 1.1f, 0.5f};
    for (const auto& [g, centre] : {std::pair{0, 1.0}, std::pair{1, 0.0}}) {
      std::vector<float> a(2);
      l.group_learner(g).act(obs.data(), 2, nullptr, a.data(), nullptr, nullptr, nullptr);
      for (float x : a) CHECK(std::abs(x - centre) < 0.1);
    }
    ctx.act_low[2] = -2.0f;  // pointer_2's box is now [−2, 1]
    core::Rng init2(1, 0);
    CHECK_THROWS_WITH_AS(rl::IppoLearner(ctx, init2),
                         "[ppo] bounded_mean: IPPO group 'pointer' shares one network between "
                         "agents 'pointer_0' and 'pointer_2', whose action boxes differ; expected "
                         "one box per group",
                         core::ConfigError);
  }

  TEST_CASE("spec: [ippo] keys are parsed and checked before any work") {
    const std::string base =
        "[env]\nid = \"test_target\"\nagents = 2\n[learner]\nalgo = \"ippo\"\n";
    const auto s =
        exp::parse_spec(base + "[ippo]\nsharing = \"typed\"\nfull_batch = false\n", "t.toml");
    CHECK(s.learner.algo == "ippo");
    CHECK(s.learner_sections.at("ippo").str("sharing") == "typed");
    CHECK_FALSE(s.learner_sections.at("ippo").boolean("full_batch"));
    CHECK(exp::parse_spec(base, "t.toml")
              .learner_sections.at("ippo")
              .boolean("full_batch"));  // the reference's default
    try {
      exp::parse_spec(base + "[ippo]\nsharing = \"shared\"\n", "t.toml");
      FAIL("no error");
    } catch (const core::ConfigError& e) {
      const std::string msg = e.what();
      CHECK(msg.find("t.toml:7: [ippo] sharing: expected one of") == 0);
      CHECK(msg.find("\"full\", \"typed\", \"independent\"") != std::string::npos);
      CHECK(msg.find("shared") != std::string::npos);
    }
    // cost_critic is ippo_lagrangian's: with plain ippo it would have no effect.
    CHECK_THROWS_WITH_AS(
        exp::parse_spec(base + "[ippo]\ncost_critic = \"shared\"\n", "t.toml"),
        doctest::Contains("t.toml:7: [ippo] cost_critic: has no effect here: the layout of "
                          "ippo_lagrangian's cost critics, found [learner] algo = \"ippo\""),
        core::ConfigError);
  }

  TEST_CASE("per-agent GAE with the team done (hand-checked)") {
    auto ctx = make_ctx(2, 1, rl::Sharing::kFull);
    ctx.rollout_length = 3;
    pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.gamma = 0.9; });
    pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.gae_lambda = 0.8; });
    core::Rng init(3, 0), rng(4, 0);
    rl::IppoLearner l(ctx, init);
    // Agent 0 sees obs[0..2), agent 1 obs[2..4). The team terminates at t = 1.
    const float rewards[3][2] = {{1, -1}, {2, 0}, {3, 5}};
    std::vector<float> obs = {0.1f, 0.2f, -0.3f, 0.4f};
    std::vector<float> act(2);
    std::vector<float> next;
    for (int t = 0; t < 3; ++t) {
      l.collect_act(obs.data(), 1, rng, act.data());
      const std::vector<float> fin = obs;
      for (float& x : obs) x += 0.25f;
      uint8_t term = t == 1, trunc = 0;
      core::StepView v;
      v.n = 1, v.obs_dim = 4, v.act_dim = 2, v.n_agents = 2, v.t = t;
      v.reward = rewards[t], v.shaped_reward = rewards[t];
      v.terminated = &term, v.truncated = &trunc;
      v.final_obs = fin.data(), v.next_obs = obs.data();
      l.observe(v);
    }
    rl::PpoLearner& g = l.group_learner(0);
    const rl::Rollout& ro = g.collected();
    REQUIRE(ro.N == 2);  // column k = agent k of env 0
    for (int t = 0; t < 3; ++t)
      for (int k = 0; k < 2; ++k) {
        CHECK(ro.rewards[t * 2 + k] == rewards[t][k]);
        CHECK(ro.dones[t * 2 + k] == (t == 1 ? 1 : 0));  // team done on every agent
        CHECK(ro.obs[(t * 2 + k) * 2] == doctest::Approx(0.1f + 0.25f * t + (k ? -0.4f : 0.f)));
      }
    std::vector<float> adv, targets;
    g.compute_targets(ro, {0, 1}, &adv, &targets);
    for (int k = 0; k < 2; ++k) {
      float v_last = 0;
      g.value(&ro.next_obs[k * 2], 1, &v_last);
      const double v0 = ro.values[0 * 2 + k], v1 = ro.values[1 * 2 + k], v2 = ro.values[2 * 2 + k];
      const double a2 = rewards[2][k] + 0.9 * v_last - v2;
      const double a1 = rewards[1][k] - v1;  // terminal: no bootstrap, no continuation
      const double a0 = rewards[0][k] + 0.9 * v1 - v0 + 0.9 * 0.8 * a1;
      CHECK(adv[2 * 2 + k] == doctest::Approx(a2).epsilon(1e-5));
      CHECK(adv[1 * 2 + k] == doctest::Approx(a1).epsilon(1e-5));
      CHECK(adv[0 * 2 + k] == doctest::Approx(a0).epsilon(1e-5));
      CHECK(targets[0 * 2 + k] == doctest::Approx(a0 + v0).epsilon(1e-5));
    }
  }

  TEST_CASE("full-batch mode is one Adam step per epoch on all T·A·N samples") {
    auto ctx = make_ctx(2, 4, rl::Sharing::kFull);
    pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.n_epochs = 1; });
    pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.max_grad_norm = 0; });
    pz::test::ppo_set(ctx, [&](pz::rl::PpoConfig& c_) { c_.normalize_obs = false; });
    core::Rng init(5, 0), rng(6, 0);
    rl::IppoLearner l(ctx, init);
    rl::PpoLearner& g = l.group_learner(0);
    CHECK(g.config().n_minibatches == 1);
    CHECK_FALSE(g.config().normalize_advantages);
    Feeder f(4, 2);
    for (int k = 0; k < 4; ++k) f.step(l, rng);
    const std::vector<float> p0 = g.parameters();
    std::vector<float> grad;
    const double loss = g.loss_and_grad(g.collected(), {0, 1, 2, 3, 4, 5, 6, 7}, &grad, nullptr);
    const auto m = l.update(rng);
    CHECK(m.at("losses/total") == doctest::Approx(loss).epsilon(1e-6));
    const std::vector<float> p1 = g.parameters();
    // First Adam step from zero moments: p − lr·ĝ/(|ĝ| + ε) with ĝ = g.
    int moved = 0;
    for (size_t i = 0; i < p0.size(); ++i) {
      const double want = p0[i] - 1e-2 * grad[i] / (std::abs(grad[i]) + 1e-8);
      CHECK(std::abs(p1[i] - want) < 1e-6);  // float rounding of the moments
      moved += std::abs(p1[i] - p0[i]) > 5e-3;
    }
    CHECK(moved > static_cast<int>(p0.size()) / 2);
    // Minibatched mode takes n_minibatches steps per epoch: a different result.
    pz::test::ippo_set(ctx, [&](pz::rl::IppoConfig& c_) { c_.full_batch = false; });
    core::Rng init2(5, 0), rng2(6, 0);
    rl::IppoLearner lm(ctx, init2);
    CHECK(lm.group_learner(0).config().n_minibatches == 2);
    Feeder f2(4, 2);
    f2.iteration(lm, rng2);
    CHECK_FALSE(same_bits(lm.group_learner(0).parameters(), p1));
  }

  TEST_CASE("1, 2 and 3 threads give bitwise-identical updates for every sharing mode") {
    for (auto sharing : {rl::Sharing::kFull, rl::Sharing::kTyped, rl::Sharing::kIndependent}) {
      std::vector<std::vector<float>> params;
      std::vector<double> losses;
      for (int threads : {1, 2, 3}) {
        core::ThreadPool pool(threads);
        auto ctx = make_ctx(4, 16, sharing, &pool);
        ctx.rollout_length = 8;
        pz::test::ippo_set(
            ctx, [&](pz::rl::IppoConfig& c_) { c_.full_batch = sharing != rl::Sharing::kTyped; });
        core::Rng init(9, 0), rng(10, 0);
        rl::IppoLearner l(ctx, init);
        Feeder f(16, 4);
        f.iteration(l, rng);
        losses.push_back(f.iteration(l, rng).at("losses/total"));
        params.push_back(all_params(l));
      }
      CHECK(same_bits(params[0], params[1]));
      CHECK(same_bits(params[0], params[2]));
      CHECK(std::memcmp(&losses[0], &losses[1], sizeof(double)) == 0);
      CHECK(std::memcmp(&losses[0], &losses[2], sizeof(double)) == 0);
    }
  }

  TEST_CASE("groups' phases side by side give each group's own sequential update, bytes") {
    // update() batches the groups' row blocks per phase on the pool; each group must end where
    // its own update_policy (no pool) takes it, with the shuffle streams IPPO draws per group.
    for (auto sharing : {rl::Sharing::kTyped, rl::Sharing::kIndependent}) {
      core::ThreadPool pool(2);
      auto ctx_a = make_ctx(5, 16, sharing, &pool), ctx_b = make_ctx(5, 16, sharing);
      for (auto* c : {&ctx_a, &ctx_b}) {
        c->rollout_length = 8;
        pz::test::ippo_set(*c, [&](pz::rl::IppoConfig& c_) { c_.full_batch = true; });
      }
      core::Rng init_a(9, 0), init_b(9, 0), rng_a(10, 0), rng_b(10, 0);
      rl::IppoLearner a(ctx_a, init_a), b(ctx_b, init_b);
      REQUIRE(a.groups().size() > 1);
      Feeder fa(16, 5), fb(16, 5);
      for (int k = 0; k < a.collect_steps(); ++k) fa.step(a, rng_a), fb.step(b, rng_b);
      a.update(rng_a);
      const size_t G = b.groups().size();
      std::vector<core::Rng> shuffle;
      for (size_t g = 0; g < G; ++g) shuffle.emplace_back(rng_b.next_u64(), g);
      for (size_t g = 0; g < G; ++g) b.group_learner(static_cast<int>(g)).update_policy(shuffle[g]);
      CHECK(same_bits(all_params(a), all_params(b)));
    }
  }

  TEST_CASE("save/load holds every group and continues identically") {
    const auto ctx = make_ctx(4, 4, rl::Sharing::kTyped);
    core::Rng init_a(11, 0), init_b(12, 0), rng_a(13, 0);
    rl::IppoLearner a(ctx, init_a), b(ctx, init_b);
    Feeder fa(4, 4);
    fa.iteration(a, rng_a);
    core::StateDict sd;
    a.save(sd);
    CHECK(sd.f32.count("learner/group/0/actor/l0/w") == 1);
    CHECK(sd.f32.count("learner/group/1/adam/m/critic/l2/b") == 1);
    b.load(sd);
    CHECK(same_bits(all_params(a), all_params(b)));
    Feeder fb = fa;
    core::Rng rng_b = rng_a;
    const auto ma = fa.iteration(a, rng_a);
    const auto mb = fb.iteration(b, rng_b);
    CHECK(same_bits(all_params(a), all_params(b)));  // Adam moments and normalizers came along
    CHECK(ma.at("losses/total") == mb.at("losses/total"));
    // A learner with another partition refuses the checkpoint and keeps its state.
    core::Rng init_c(14, 0);
    rl::IppoLearner c(make_ctx(4, 4, rl::Sharing::kIndependent), init_c);
    const auto before = all_params(c);
    CHECK_THROWS_AS(c.load(sd), core::ConfigError);
    CHECK(same_bits(before, all_params(c)));
  }

  TEST_CASE("IPPO trains the two-agent target env end to end and improves the team return") {
    const auto dir =
        std::filesystem::temp_directory_path() / ("pz_test_ippo_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const auto spec = exp::load_spec("tests/data/ippo_target.toml");  // cwd: the source root
    exp::TrainOptions opt;
    opt.out_dir = dir.string();
    opt.quiet = true;
    opt.threads = 2;
    const auto r = exp::train(spec, opt);
    const auto team = io::read_column(r.run_file, "metrics/eval/iid/team_return_mean");
    const auto a0 = io::read_column(r.run_file, "metrics/eval/iid/agent_return/pointer_0");
    const auto a1 = io::read_column(r.run_file, "metrics/eval/iid/agent_return/marker_1");
    REQUIRE(team.size() >= 2);
    MESSAGE("team return first " << team.front() << ", last " << team.back());
    CHECK(team.back() == doctest::Approx((a0.back() + a1.back()) / 2).epsilon(1e-9));
    CHECK(team.front() < -1.5);               // mean action ~0 vs a target uniform in [−1, 1)
    CHECK(team.back() > 0.2 * team.front());  // the squared pointing error falls over 5x
    CHECK(a0.back() > 0.2 * a0.front());
    CHECK(a1.back() > 0.2 * a1.front());
    std::filesystem::remove_all(dir);
  }
}
