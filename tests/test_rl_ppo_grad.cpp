// Tests for the PPO learner's loss and gradient: central finite differences (widths on and off
// the SIMD width, squash none and tanh, bounded mean), the tanh-squashed Gaussian policy and the
// bounded mean.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"
#include "test_rl_fd.hpp"

using pz::core::Rng;
using pz::rl::PpoConfig;
using pz::rl::PpoLearner;
using pz::rl::Rollout;
using pz::test::random_rollout;

TEST_SUITE("rl") {
  // Guards the scalar tail of Mlp::backward's fused activation-gradient rows: hidden widths 7 and
  // 5 leave a remainder after the SIMD batches (the other tests' widths are multiples of 8); the
  // ReLU path's bits are guarded by the dcmg_sac run of scripts/check_numbers.py.
  TEST_CASE("loss_and_grad matches finite differences on widths off the SIMD width") {
    {
      const int T = 3, N = 4, obs_dim = 3, act_dim = 2;
      PpoConfig cfg;
      cfg.hidden = {7, 5};
      cfg.entropy_coef = 0.05;
      cfg.normalize_advantages = true;
      Rng init(21, 0), data(22, 0), pick(23, 0);
      PpoLearner learner(obs_dim, act_dim, cfg, init);
      // Actor 3→7→5→2 = 28 + 40 + 12 = 80, log σ 2, critic 3→7→5→1 = 28 + 40 + 6 = 74.
      REQUIRE(learner.n_parameters() == 80 + 2 + 74);
      auto p = learner.parameters();
      for (auto& x : p) x += static_cast<float>(0.3 * data.normal());
      learner.set_parameters(p);
      Rollout r = random_rollout(learner, T, N, obs_dim, act_dim, 0, data, false);
      learner.normalizer().merge(r.obs.data(), T * N);
      const std::vector<int> cols = {3, 0, 2};
      std::vector<float> grad, adv, tgt;
      learner.loss_and_grad(r, cols, &grad, nullptr);
      learner.compute_targets(r, cols, &adv, &tgt);
      std::vector<int64_t> idx;
      for (int k = 0; k < 40; ++k) idx.push_back(static_cast<int64_t>(pick.below(156)));
      const int n_nonzero = pz::test::check_gradient_fd(learner, r, cols, adv, tgt, grad, idx);
      CHECK(n_nonzero > 15);
    }
  }

  // The third mode guards [ppo] bounded_mean's chain rule, μ = mid + half·tanh(h), on a box that
  // is neither symmetric nor of half-width 1.
  TEST_CASE("loss_and_grad matches central finite differences (squash none, tanh, bounded mean)") {
    for (const int mode : {0, 1, 2}) {
      const bool squash = mode == 1, bounded = mode == 2;
      CAPTURE(mode);
      const int T = 3, N = 4, obs_dim = 3, act_dim = 2;
      PpoConfig cfg;
      cfg.squash = squash ? pz::rl::Squash::kTanh : pz::rl::Squash::kNone;
      cfg.bounded_mean = bounded;
      cfg.hidden = {8, 8};
      cfg.entropy_coef = 0.05;
      cfg.critic_loss_weight = 0.5;
      cfg.clip_range = 0.2;
      cfg.normalize_advantages = true;
      cfg.gamma = 0.9;
      cfg.gae_lambda = 0.8;
      Rng init(11, 0), data(12, 0), pick(13, 0);
      PpoLearner learner(obs_dim, act_dim, cfg, init);
      if (bounded) learner.set_action_box({-2.0f, 0.0f}, {1.0f, 3.0f});
      // Layout: actor 3→8→8→2 = 32 + 72 + 18 = 122, log_std 2, critic 3→8→8→1 = 32 + 72 + 9.
      REQUIRE(learner.n_parameters() == 122 + 2 + 113);
      const int64_t ls_off = 122, critic_off = 124, n_par = 237;
      // Move away from the init (actor output ×0.01 would make most actor gradients tiny).
      auto p = learner.parameters();
      for (auto& x : p) x += static_cast<float>(0.3 * data.normal());
      p[ls_off] = -0.3f;
      p[ls_off + 1] = 0.2f;
      learner.set_parameters(p);
      Rollout r = random_rollout(learner, T, N, obs_dim, act_dim, 0, data, squash);
      learner.normalizer().merge(r.obs.data(), T * N);
      const std::vector<int> cols = {3, 0, 2};

      std::vector<float> grad, grad_fixed, adv, tgt;
      std::map<std::string, double> metrics;
      const double loss = learner.loss_and_grad(r, cols, &grad, &metrics);
      // Some, but not all, samples are clipped.
      CHECK(metrics["losses/clipping_fraction"] > 0.0);
      CHECK(metrics["losses/clipping_fraction"] < 1.0);
      learner.compute_targets(r, cols, &adv, &tgt);
      const double loss_fixed =
          learner.loss_and_grad_fixed(r, cols, adv, tgt, &grad_fixed, nullptr);
      CHECK(loss_fixed == loss);
      CHECK(grad_fixed == grad);

      std::vector<int64_t> idx = {ls_off, ls_off + 1, 0, 5, 40, 100, 121, critic_off, n_par - 1};
      for (int k = 0; k < 14; ++k) idx.push_back(static_cast<int64_t>(pick.below(ls_off)));
      for (int k = 0; k < 14; ++k) {
        idx.push_back(critic_off + static_cast<int64_t>(pick.below(n_par - critic_off)));
      }
      const int n_nonzero = pz::test::check_gradient_fd(learner, r, cols, adv, tgt, grad, idx);
      CHECK(n_nonzero > 20);  // the check is not vacuous
    }
  }

  TEST_CASE("squash = tanh: env action tanh(u), raw u, log π with the tanh Jacobian") {
    const int obs_dim = 3, act_dim = 2, n = 5;
    PpoConfig cfg;
    cfg.hidden = {8};
    PpoConfig cfg_t = cfg;
    cfg_t.squash = pz::rl::Squash::kTanh;
    Rng i0(5, 0), i1(5, 0), d(6, 0);
    PpoLearner plain(obs_dim, act_dim, cfg, i0), sq(obs_dim, act_dim, cfg_t, i1);
    auto p = plain.parameters();
    for (auto& x : p) x += static_cast<float>(0.8 * d.normal());  // |μ| of order 1
    plain.set_parameters(p);
    sq.set_parameters(p);
    std::vector<float> obs(n * obs_dim);
    for (auto& x : obs) x = static_cast<float>(d.normal());
    std::vector<float> a0(n * act_dim), lp0(n), v0(n), a1(n * act_dim), u1(n * act_dim), lp1(n),
        v1(n);
    Rng r0(7, 0), r1(7, 0);
    plain.act(obs.data(), n, &r0, a0.data(), lp0.data(), v0.data());
    sq.act(obs.data(), n, &r1, a1.data(), lp1.data(), v1.data(), u1.data());
    CHECK(u1 == a0);  // same draws, same u
    CHECK(v1 == v0);
    for (int i = 0; i < n; ++i) {
      double jac = 0.0;
      for (int k = 0; k < act_dim; ++k) {
        const double u = u1[i * act_dim + k];
        CHECK(a1[i * act_dim + k] == static_cast<float>(std::tanh(u)));
        CHECK(std::abs(a1[i * act_dim + k]) < 1.0f);
        jac += std::log(1.0 - std::tanh(u) * std::tanh(u));
      }
      CHECK(lp1[i] == doctest::Approx(lp0[i] - jac).epsilon(1e-6));
    }
    // Deterministic: raw μ, env tanh(μ).
    std::vector<float> mu(n * act_dim), e(n * act_dim), raw(n * act_dim);
    plain.act(obs.data(), n, nullptr, mu.data(), nullptr, nullptr);
    sq.act(obs.data(), n, nullptr, e.data(), nullptr, nullptr, raw.data());
    CHECK(raw == mu);
    for (int k = 0; k < n * act_dim; ++k)
      CHECK(e[k] == static_cast<float>(std::tanh(double(mu[k]))));
    // Stable form: finite log π far in the tail (naive log(1 − tanh²u) is −inf for |u| ≳ 19).
    PpoConfig wide = cfg_t;
    wide.init_log_std = 3.0;  // σ ≈ 20
    Rng i2(5, 0), r2(9, 0);
    PpoLearner far(obs_dim, act_dim, wide, i2);
    std::vector<float> af(200 * act_dim), uf(200 * act_dim), lf(200), obs_f(200 * obs_dim, 0.5f);
    far.act(obs_f.data(), 200, &r2, af.data(), lf.data(), nullptr, uf.data());
    double umax = 0.0;
    for (float u : uf) umax = std::max(umax, std::abs(double(u)));
    CHECK(umax > 25.0);
    for (float l : lf) CHECK(std::isfinite(l));
  }

  TEST_CASE("squash = tanh learning sanity: 1-step bandit, reward −(tanh(u) − 0.5)²") {
    PpoConfig cfg;
    cfg.hidden = {16};
    cfg.learning_rate = 3e-3;
    cfg.entropy_coef = 0.0;
    cfg.rollout_length = 4;
    cfg.squash = pz::rl::Squash::kTanh;
    Rng init(1, 0), act_rng(2, 0), shuffle(3, 0);
    PpoLearner learner(1, 1, cfg, init);
    const float a = pz::test::train_bandit(learner, 4, 16, 50, act_rng, shuffle);
    INFO("deterministic action tanh(μ) after 50 updates: " << a);
    CHECK(std::abs(a - 0.5f) < 0.1f);
  }

  TEST_CASE("bounded_mean: the mean is the box centre + half-width · tanh(head), inside the box") {
    const int obs_dim = 3, act_dim = 2, n = 64;
    PpoConfig cfg;
    cfg.hidden = {8, 8};
    cfg.init_actor_scale = 3.0;  // heads well beyond ±1, so unbounded means leave the box
    cfg.bounded_mean = true;
    Rng init_a(31, 0), init_b(31, 0), data(32, 0);
    PpoLearner bounded(obs_dim, act_dim, cfg, init_a);
    cfg.bounded_mean = false;
    PpoLearner plain(obs_dim, act_dim, cfg, init_b);  // the same parameters: its mean is the head
    bounded.set_action_box({-2.0f, 0.0f}, {1.0f, 3.0f});
    std::vector<float> obs(n * obs_dim);
    for (auto& x : obs) x = static_cast<float>(2.0 * data.normal());
    std::vector<float> a(n * act_dim), h(n * act_dim);
    bounded.act(obs.data(), n, nullptr, a.data(), nullptr, nullptr, nullptr);
    plain.act(obs.data(), n, nullptr, h.data(), nullptr, nullptr, nullptr);
    const double mid[2] = {-0.5, 1.5}, half[2] = {1.5, 1.5};
    int outside = 0;
    for (int i = 0; i < n; ++i)
      for (int d = 0; d < act_dim; ++d) {
        const size_t k = static_cast<size_t>(i) * act_dim + d;
        CHECK(a[k] == doctest::Approx(mid[d] + half[d] * std::tanh(double(h[k]))).epsilon(1e-6));
        CHECK(a[k] >= mid[d] - half[d]);
        CHECK(a[k] <= mid[d] + half[d]);
        outside += std::abs(h[k] - mid[d]) > half[d];
      }
    CHECK(outside > 10);  // the unbounded heads do leave the box: the bound is doing the work
  }
}
