// Tests for the PPO keys that reproduce Rejax's PPO (github.com/keraJLi/rejax, algos/ppo.py):
// grad_clip = "element", clip_value_loss, advantages = "rollout".
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/rl/nn/optimizer.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"
#include "test_rl_fd.hpp"

using pz::core::Rng;
using pz::rl::PpoConfig;
using pz::rl::PpoLearner;
using pz::rl::Rollout;

namespace {

// Random rollout (every 4th step terminated, every 5th truncated) whose stored log π are the
// learner's own (ratio 1 at the start, as in a real update) and whose rollout-time values are
// the learner's values plus N(0, 0.3²) noise, so that some samples leave the value clip ±0.2.
Rollout rollout_for(PpoLearner& learner, int T, int N, int obs_dim, int act_dim, Rng& rng) {
  Rollout r;
  r.resize(T, N, obs_dim, act_dim);
  for (auto& x : r.obs) x = static_cast<float>(1.5 * rng.normal() + 0.3);
  for (auto& x : r.final_obs) x = static_cast<float>(rng.normal());
  for (auto& x : r.next_obs) x = static_cast<float>(rng.normal());
  for (auto& x : r.rewards) x = static_cast<float>(rng.normal());
  for (int k = 0; k < T * N; ++k) {
    if (k % 4 == 3) r.dones[k] = 1;
    if (k % 5 == 2) r.dones[k] = r.truncated[k] = 1;
  }
  std::vector<float> env_a(r.actions.size());
  Rng act_rng(77, 0);
  learner.act(r.obs.data(), T * N, &act_rng, env_a.data(), r.logp.data(), r.values.data(),
              r.actions.data());
  for (auto& v : r.values) v += static_cast<float>(0.3 * rng.normal());
  return r;
}

PpoConfig small_config() {
  PpoConfig cfg;
  cfg.hidden = {8, 8};
  cfg.gamma = 0.9;
  cfg.gae_lambda = 0.8;
  cfg.clip_range = 0.2;
  return cfg;
}

}  // namespace

TEST_SUITE("rl") {
  TEST_CASE("adam_step with elementwise: every entry clamped to ±max_norm (optax.clip)") {
    // p0 = [1, −2, 0.5], g1 = [2, −0.1, −0.7], g2 = [0.2, 0.1, −3], lr 0.1, clamp 0.5.
    std::vector<float> p = {1.0f, -2.0f, 0.5f}, m(3, 0.0f), v(3, 0.0f);
    std::vector<float> g = {2.0f, -0.1f, -0.7f};
    const double n1 = pz::rl::adam_step(p, g, m, v, 1, 0.1, 0.9, 0.999, 1e-8, 0.0, 0.5, nullptr,
                                        /*elementwise=*/true);
    CHECK(n1 == doctest::Approx(std::sqrt(4.5)));  // pre-clip global norm
    CHECK(g[0] == 0.5f);                           // clamped in place
    CHECK(g[1] == -0.1f);                          // inside: unchanged
    CHECK(g[2] == -0.5f);
    CHECK(m[0] == doctest::Approx(0.05).epsilon(1e-6));
    CHECK(m[2] == doctest::Approx(-0.05).epsilon(1e-6));
    CHECK(v[0] == doctest::Approx(2.5e-4).epsilon(1e-6));
    CHECK(p[2] == doctest::Approx(0.6).epsilon(1e-6));  // step 1 ≈ −lr·sign(g)
    // Step 2, entry 2: g = −3 → −0.5; m = 0.9·(−0.05) + 0.1·(−0.5) = −0.095, v = 0.999·2.5e-4 +
    // 0.001·0.25 = 4.9975e-4; m̂ = −0.5, v̂ = 0.25 → update −1 → p = 0.6 + 0.1 = 0.7. A global-norm
    // clip at 0.5 would have moved entry 0 by less than entry 2 here; the clamp treats them alike.
    g = {0.2f, 0.1f, -3.0f};
    pz::rl::adam_step(p, g, m, v, 2, 0.1, 0.9, 0.999, 1e-8, 0.0, 0.5, nullptr, true);
    CHECK(m[2] == doctest::Approx(-0.095).epsilon(1e-6));
    CHECK(v[2] == doctest::Approx(4.9975e-4).epsilon(1e-6));
    CHECK(p[2] == doctest::Approx(0.7).epsilon(1e-5));
    // Off at max_norm = 0, as the global-norm clip.
    g = {2.0f, -0.1f, -0.7f};
    pz::rl::adam_step(p, g, m, v, 3, 0.1, 0.9, 0.999, 1e-8, 0.0, 0.0, nullptr, true);
    CHECK(g[0] == 2.0f);
  }

  TEST_CASE("clip_value_loss: critic loss ½·mean max(err², err_c²) and its gradient vs FD") {
    const int T = 4, N = 6, obs_dim = 3, act_dim = 2;
    PpoConfig cfg = small_config();
    cfg.clip_value_loss = true;
    cfg.critic_loss_weight = 0.5;
    Rng init(21, 0), data(22, 0), pick(23, 0);
    PpoLearner learner(obs_dim, act_dim, cfg, init);
    auto p = learner.parameters();
    for (auto& x : p) x += static_cast<float>(0.3 * data.normal());
    learner.set_parameters(p);
    Rollout r = rollout_for(learner, T, N, obs_dim, act_dim, data);
    const std::vector<int> cols = {4, 1, 5, 0};
    const int B = static_cast<int>(cols.size());

    std::vector<float> adv, tgt, grad;
    learner.compute_targets(r, cols, &adv, &tgt);
    std::map<std::string, double> metrics;
    learner.loss_and_grad_fixed(r, cols, adv, tgt, &grad, &metrics);
    // The critic loss by hand from value() on the minibatch rows.
    std::vector<float> v(T * N);
    learner.value(r.obs.data(), T * N, v.data());
    double sum = 0.0;
    int n_clipped_branch = 0, n_outside = 0;
    for (int t = 0; t < T; ++t) {
      for (int j = 0; j < B; ++j) {
        const int src = t * N + cols[j];
        const double g = tgt[t * B + j], vo = r.values[src], vn = v[src];
        const double e = vn - g, ec = vo + std::clamp(vn - vo, -0.2, 0.2) - g;
        sum += std::max(e * e, ec * ec);
        n_clipped_branch += ec * ec > e * e;
        n_outside += std::abs(vn - vo) > 0.2;
      }
    }
    CHECK(n_clipped_branch > 0);  // both branches and both sides of the clip occur
    CHECK(n_clipped_branch < T * B);
    CHECK(n_outside > 0);
    CHECK(metrics.at("losses/critic") == doctest::Approx(0.5 * sum / (T * B)).epsilon(1e-5));

    // Gradient of the critic's parameters (and a few of the actor's) against central
    // differences. Layout: actor 3→8→8→2 = 122, log σ 2, critic 3→8→8→1 = 113.
    std::vector<int64_t> idx = {0, 50, 121, 122, 123};
    for (int k = 0; k < 24; ++k) idx.push_back(124 + static_cast<int64_t>(pick.below(113)));
    const int n_nonzero = pz::test::check_gradient_fd(learner, r, cols, adv, tgt, grad, idx);
    CHECK(n_nonzero > 10);
  }

  TEST_CASE("clip_value_loss = false is the plain ½·mean (V − G)² on the same rollout") {
    const int T = 3, N = 4, obs_dim = 3, act_dim = 2;
    PpoConfig cfg = small_config();
    Rng init(31, 0), data(32, 0);
    PpoLearner learner(obs_dim, act_dim, cfg, init);
    Rollout r = rollout_for(learner, T, N, obs_dim, act_dim, data);
    const std::vector<int> cols = {0, 1, 2, 3};
    std::vector<float> adv, tgt, v(T * N);
    learner.compute_targets(r, cols, &adv, &tgt);
    std::map<std::string, double> metrics;
    learner.loss_and_grad_fixed(r, cols, adv, tgt, nullptr, &metrics);
    learner.value(r.obs.data(), T * N, v.data());
    double sum = 0.0;
    for (int i = 0; i < T * N; ++i) sum += (double(v[i]) - tgt[i]) * (double(v[i]) - tgt[i]);
    CHECK(metrics.at("losses/critic") == doctest::Approx(0.5 * sum / (T * N)).epsilon(1e-5));
  }

  TEST_CASE(
      "advantages = rollout: one minibatch, one epoch equals per-minibatch GAE; later "
      "epochs keep the collecting critic's advantages") {
    const int T = 5, N = 8, obs_dim = 3, act_dim = 2;
    auto run = [&](pz::rl::AdvantageTiming timing, int epochs, int minibatches) {
      PpoConfig cfg = small_config();
      cfg.advantages = timing;
      cfg.n_epochs = epochs;
      cfg.n_minibatches = minibatches;
      cfg.learning_rate = 1e-2;
      Rng init(41, 0), data(42, 0), shuffle(43, 0);
      PpoLearner learner(obs_dim, act_dim, cfg, init);
      Rollout r = rollout_for(learner, T, N, obs_dim, act_dim, data);
      learner.update(r, shuffle);
      return learner.parameters();
    };
    using pz::rl::AdvantageTiming;
    // Before the first gradient step the current critic is the collecting one.
    const auto a = run(AdvantageTiming::kMinibatch, 1, 1);
    const auto b = run(AdvantageTiming::kRollout, 1, 1);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) CHECK(b[i] == doctest::Approx(a[i]).epsilon(1e-5));
    // After it, per-minibatch GAE reads the moved critic: the updates differ.
    const auto c = run(AdvantageTiming::kMinibatch, 2, 2);
    const auto d = run(AdvantageTiming::kRollout, 2, 2);
    double diff = 0.0;
    for (size_t i = 0; i < c.size(); ++i) diff = std::max(diff, std::abs(double(c[i]) - d[i]));
    CHECK(diff > 1e-4);
    // Deterministic given the seeds.
    CHECK(run(AdvantageTiming::kRollout, 2, 2) == d);
  }
}
