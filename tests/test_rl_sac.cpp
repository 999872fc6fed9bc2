// Tests for SAC: losses on a hand-made batch against hand computation, gradients against finite
// differences, Polyak arithmetic, the temperature update's sign, the replay ring and its
// sampling, the learning-starts cadence, checkpoints, thread invariance and a learning sanity run.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "powerzoo/core/acting.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/rl/nn/optimizer.hpp"
#include "powerzoo/rl/sac/replay.hpp"
#include "powerzoo/rl/sac/sac.hpp"

using pz::core::Rng;
using pz::rl::PpoConfig;
using pz::rl::SacBatch;
using pz::rl::SacConfig;
using pz::rl::SacLearner;

namespace {

// Central differences (h = 1e-3 on the float parameters) of loss() over the entries idx of the
// parameter vector get()/set(), against grad (absolute 1e-4 or relative 1e-2). Returns how many
// checked entries have |grad| > 1e-3.
int check_fd(const std::function<std::vector<float>()>& get,
             const std::function<void(const std::vector<float>&)>& set,
             const std::function<double()>& loss, const std::vector<float>& grad,
             const std::vector<int>& idx) {
  const std::vector<float> p = get();
  int nonzero = 0;
  for (int i : idx) {
    auto q = p;
    q[i] = p[i] + 1e-3f;
    const double hp = double(q[i]) - double(p[i]);
    set(q);
    const double lp = loss();
    q[i] = p[i] - 1e-3f;
    const double hm = double(p[i]) - double(q[i]);
    set(q);
    const double lm = loss();
    const double fd = (lp - lm) / (hp + hm), g = grad[i];
    const double err = std::abs(fd - g), rel = err / std::max(std::abs(fd), std::abs(g));
    INFO("param " << i << ": analytic " << g << ", finite difference " << fd);
    CHECK((err < 1e-4 || rel < 1e-2));
    nonzero += std::abs(g) > 1e-3;
  }
  set(p);
  return nonzero;
}

SacBatch random_batch(int B, int obs_dim, int act_dim, Rng& rng) {
  SacBatch b;
  b.B = B;
  for (int i = 0; i < B * obs_dim; ++i) b.obs.push_back(static_cast<float>(rng.normal()));
  for (int i = 0; i < B * obs_dim; ++i) b.next_obs.push_back(static_cast<float>(rng.normal()));
  for (int i = 0; i < B * act_dim; ++i) b.act.push_back(static_cast<float>(2 * rng.uniform() - 1));
  for (int i = 0; i < B; ++i) b.reward.push_back(static_cast<float>(rng.normal()));
  for (int i = 0; i < B; ++i) b.done.push_back(i % 3 == 0 ? 1.0f : 0.0f);
  return b;
}

std::vector<float> normals(size_t n, Rng& rng) {
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(rng.normal());
  return v;
}

// A vector step of N envs for observe(): obs, actions, rewards given, no episode ends unless set.
struct FakeStep {
  std::vector<float> obs, act, rew, next, final_obs;
  std::vector<uint8_t> term, trunc;
  pz::core::StepView view(int obs_dim, int act_dim) const {
    pz::core::StepView v;
    v.n = static_cast<int>(rew.size()), v.obs_dim = obs_dim, v.act_dim = act_dim;
    v.obs = obs.data(), v.actions = act.data(), v.reward = rew.data();
    v.shaped_reward = rew.data(), v.terminated = term.data(), v.truncated = trunc.data();
    v.final_obs = final_obs.data(), v.next_obs = next.data();
    return v;
  }
};

FakeStep fake_step(int N, int obs_dim, int act_dim, Rng& rng) {
  FakeStep s;
  s.obs = normals(size_t(N) * obs_dim, rng);
  s.next = normals(size_t(N) * obs_dim, rng);
  s.final_obs = normals(size_t(N) * obs_dim, rng);
  s.act = normals(size_t(N) * act_dim, rng);
  s.rew = normals(N, rng);
  s.term.assign(N, 0);
  s.trunc.assign(N, 0);
  return s;
}

}  // namespace

TEST_SUITE("rl_sac") {
  TEST_CASE("actor and critic losses on a hand-made batch equal the hand computation") {
    PpoConfig ppo;
    ppo.hidden = {};  // every network one affine layer: the losses are closed forms
    ppo.normalize_obs = false;
    ppo.gamma = 0.9;
    SacConfig sac;
    Rng init(1, 0);
    SacLearner l(1, 1, ppo, sac, init);
    l.set_action_box({-2.0f}, {4.0f});  // loc 1, scale 3
    // Actor W [1, 2] = (w_μ, w_logσ), b = (b_μ, b_logσ); each critic W [2, 1] = (c_s, c_a), b.
    l.set_actor_parameters({0.5f, 0.2f, 0.1f, -0.7f});
    l.set_critic_parameters({0.3f, -0.4f, 0.05f, -0.2f, 0.6f, 0.1f});
    l.set_target_critic_parameters({0.25f, -0.3f, 0.0f, 0.1f, 0.2f, -0.05f});
    const double alpha = 0.2;
    l.set_log_alpha(std::log(alpha));
    SacBatch b;
    b.B = 2;
    b.obs = {1.0f, -2.0f};
    b.act = {0.5f, -1.5f};
    b.reward = {1.0f, -0.5f};
    b.done = {0.0f, 1.0f};
    b.next_obs = {0.5f, 3.0f};
    const std::vector<float> xi = {0.8f, -1.1f}, xi_next = {-0.3f, 0.6f};

    // π: μ = 0.5s + 0.1, log σ = 0.2s − 0.7, u = μ + σξ, a = 1 + 3·tanh u,
    // log π = −ξ²/2 − log σ − ½log 2π − log(1 − tanh²u).
    auto pi = [](double s, double x, double* a) {
      const double mu = 0.5 * s + 0.1, ls = 0.2 * s - 0.7, u = mu + std::exp(ls) * x;
      *a = 1.0 + 3.0 * std::tanh(u);
      return -0.5 * x * x - ls - 0.5 * std::log(2 * std::numbers::pi) -
             std::log(1.0 - std::tanh(u) * std::tanh(u));
    };
    auto q = [](const std::vector<double>& c, double s, double a) {
      return c[0] * s + c[1] * a + c[2];
    };
    const std::vector<double> c0 = {0.3, -0.4, 0.05}, c1 = {-0.2, 0.6, 0.1};
    const std::vector<double> t0 = {0.25, -0.3, 0.0}, t1 = {0.1, 0.2, -0.05};
    double actor = 0, lp_hand[2];
    for (int i = 0; i < 2; ++i) {
      double a = 0;
      lp_hand[i] = pi(b.obs[i], xi[i], &a);
      actor += alpha * lp_hand[i] - std::min(q(c0, b.obs[i], a), q(c1, b.obs[i], a));
    }
    actor /= 2;
    std::vector<float> logp;
    CHECK(l.actor_loss(b, xi, nullptr, &logp) == doctest::Approx(actor).epsilon(1e-6));
    CHECK(logp[0] == doctest::Approx(lp_hand[0]).epsilon(1e-6));
    CHECK(logp[1] == doctest::Approx(lp_hand[1]).epsilon(1e-6));

    double critic = 0, y[2];
    std::vector<double> g_hand(6, 0.0);
    for (int i = 0; i < 2; ++i) {
      double a = 0;
      const double lp = pi(b.next_obs[i], xi_next[i], &a);
      const double soft = std::min(q(t0, b.next_obs[i], a), q(t1, b.next_obs[i], a)) - alpha * lp;
      y[i] = b.reward[i] + 0.9 * (1.0 - b.done[i]) * soft;
      for (int j = 0; j < 2; ++j) {
        const double e = q(j == 0 ? c0 : c1, b.obs[i], b.act[i]) - y[i];
        critic += 0.5 * e * e / 2;
        // ∂/∂(c_s, c_a, bias) of critic j: mean_i e·(s, a, 1).
        g_hand[3 * j] += e * b.obs[i] / 2;
        g_hand[3 * j + 1] += e * b.act[i] / 2;
        g_hand[3 * j + 2] += e / 2;
      }
    }
    CHECK(y[1] == doctest::Approx(-0.5));  // done: no bootstrap
    std::vector<float> g;
    double q_mean = 0;
    CHECK(l.critic_loss(b, xi_next, &g, &q_mean) == doctest::Approx(critic).epsilon(1e-6));
    for (int k = 0; k < 6; ++k) CHECK(g[k] == doctest::Approx(g_hand[k]).epsilon(1e-5));
    CHECK(q_mean ==
          doctest::Approx((q(c0, 1, 0.5) + q(c0, -2, -1.5) + q(c1, 1, 0.5) + q(c1, -2, -1.5)) / 4)
              .epsilon(1e-6));
    // Temperature: −α·mean(log π − act_dim).
    double dla = 0;
    CHECK(l.target_entropy() == -1.0);
    CHECK(l.alpha_loss(logp, &dla) ==
          doctest::Approx(-alpha * ((lp_hand[0] - 1) + (lp_hand[1] - 1)) / 2).epsilon(1e-6));
    CHECK(dla == doctest::Approx(-alpha * ((lp_hand[0] - 1) + (lp_hand[1] - 1)) / 2).epsilon(1e-6));
  }

  TEST_CASE("actor and critic gradients match central finite differences (ReLU and tanh)") {
    for (const auto act : {pz::rl::Activation::kRelu, pz::rl::Activation::kTanh}) {
      CAPTURE(static_cast<int>(act));
      const int obs_dim = 3, A = 2, B = 7;
      PpoConfig ppo;
      ppo.hidden = {8, 8};
      ppo.gamma = 0.95;
      SacConfig sac;
      sac.activation = act;
      // ReLU makes the losses piecewise smooth: central differences across a kink would differ
      // from the one-sided analytic slope. With this data no checked step crosses one.
      Rng init(3, 0), data(8, 0), pick(5, 0);
      SacLearner l(obs_dim, A, ppo, sac, init);
      l.set_action_box({-1.0f, 0.0f}, {1.0f, 5.0f});
      SacBatch b = random_batch(B, obs_dim, A, data);
      l.normalizer().merge(b.obs.data(), B);  // normalized inputs, as in training
      l.set_log_alpha(std::log(0.3));
      auto tp = l.target_critic_parameters();
      for (auto& x : tp) x += static_cast<float>(0.1 * data.normal());  // targets ≠ critics
      l.set_target_critic_parameters(tp);
      // Actor layout 3→8→8→4 = 32 + 72 + 36 = 140; push one log σ output past the clamp at 2.
      auto ap = l.actor_parameters();
      REQUIRE(ap.size() == 140u);
      ap[139] = 4.0f;
      l.set_actor_parameters(ap);
      const auto xi = normals(size_t(B) * A, data), xi_next = normals(size_t(B) * A, data);

      std::vector<float> ga;
      l.actor_loss(b, xi, &ga, nullptr);
      std::vector<int> idx = {0, 31, 32, 103, 104, 136, 137, 138, 139};
      for (int k = 0; k < 20; ++k) idx.push_back(static_cast<int>(pick.below(140)));
      const int na = check_fd([&] { return l.actor_parameters(); },
                              [&](const std::vector<float>& p) { l.set_actor_parameters(p); },
                              [&] { return l.actor_loss(b, xi, nullptr, nullptr); }, ga, idx);
      CHECK(na > 12);
      CHECK(ga[139] == 0.0f);  // log σ of dimension 1 clamped: no gradient through its bias

      std::vector<float> gc;
      l.critic_loss(b, xi_next, &gc, nullptr);
      // Each critic 5→8→8→1 = 48 + 72 + 9 = 129.
      REQUIRE(gc.size() == 258u);
      std::vector<int> cidx = {0, 47, 120, 128, 129, 200, 257};
      for (int k = 0; k < 20; ++k) cidx.push_back(static_cast<int>(pick.below(258)));
      const int nc =
          check_fd([&] { return l.critic_parameters(); },
                   [&](const std::vector<float>& p) { l.set_critic_parameters(p); },
                   [&] { return l.critic_loss(b, xi_next, nullptr, nullptr); }, gc, cidx);
      CHECK(nc > 12);
    }
  }

  // Guards the actor step's backward through the critics: each row goes back through the one
  // critic that attains min(Q_0, Q_1) (gathered rows, action columns only). With Q_1 = −Q_0 the
  // minimum is Q_0 on the rows where Q_0 ≤ 0 and Q_1 elsewhere, so both critics carry rows.
  TEST_CASE("actor gradient through the minimum critic of each row matches finite differences") {
    const int obs_dim = 3, A = 2, B = 40;
    PpoConfig ppo;
    ppo.hidden = {8, 8};
    SacConfig sac;
    sac.activation = pz::rl::Activation::kTanh;  // smooth: no ReLU kink under a difference step
    Rng init(7, 0), data(9, 0), pick(2, 0);
    SacLearner l(obs_dim, A, ppo, sac, init);
    SacBatch b = random_batch(B, obs_dim, A, data);
    l.normalizer().merge(b.obs.data(), B);
    auto cp = l.critic_parameters();
    const size_t pc = cp.size() / 2;  // each critic 5→8→8→1: its output layer is its last 9
    std::copy_n(cp.begin(), pc, cp.begin() + pc);
    l.set_critic_parameters(cp);  // Q_1 = Q_0
    const auto xi = normals(size_t(B) * A, data);
    std::vector<float> ga, logp;
    const double loss_same = l.actor_loss(b, xi, nullptr, &logp);  // mean(log π − Q_0), α = 1
    for (size_t k = 2 * pc - 9; k < 2 * pc; ++k) cp[k] = -cp[k];
    l.set_critic_parameters(cp);                            // Q_1 = −Q_0
    const double loss = l.actor_loss(b, xi, &ga, nullptr);  // mean(log π + |Q_0|)
    double mean_logp = 0.0;
    for (float x : logp) mean_logp += double(x) / B;
    // Both critics attain the minimum on some rows: |Q_0| is neither −Q_0 nor Q_0 on every row.
    CHECK(std::abs(loss - loss_same) > 1e-3);
    CHECK(std::abs(loss - (2.0 * mean_logp - loss_same)) > 1e-3);
    std::vector<int> idx;
    for (int k = 0; k < 30; ++k) idx.push_back(static_cast<int>(pick.below(ga.size())));
    const int n = check_fd([&] { return l.actor_parameters(); },
                           [&](const std::vector<float>& p) { l.set_actor_parameters(p); },
                           [&] { return l.actor_loss(b, xi, nullptr, nullptr); }, ga, idx);
    CHECK(n > 20);
  }

  TEST_CASE("Polyak update: Q̄ ← (1 − τ)·Q̄ + τ·Q") {
    PpoConfig ppo;
    ppo.hidden = {4};
    SacConfig sac;
    sac.tau = 0.25;
    Rng init(1, 0);
    SacLearner l(2, 1, ppo, sac, init);
    CHECK(l.target_critic_parameters() == l.critic_parameters());  // targets start as the critics
    const size_t P = l.critic_parameters().size();
    l.set_critic_parameters(std::vector<float>(P, 1.0f));
    l.set_target_critic_parameters(std::vector<float>(P, 0.0f));
    l.polyak_update();
    CHECK(l.target_critic_parameters() == std::vector<float>(P, 0.25f));
    l.polyak_update();
    CHECK(l.target_critic_parameters() == std::vector<float>(P, 0.4375f));  // 0.75·0.25 + 0.25
    CHECK(l.critic_parameters() == std::vector<float>(P, 1.0f));            // online unchanged
  }

  TEST_CASE("temperature: entropy below the target makes α grow, above it makes α shrink") {
    PpoConfig ppo;
    ppo.hidden = {};
    ppo.normalize_obs = false;
    SacConfig sac;
    Rng init(1, 0), data(2, 0);
    SacLearner l(1, 1, ppo, sac, init);
    double d = 0;
    l.alpha_loss({2.0f, 3.0f}, &d);  // −mean log π = −2.5 < target −1
    CHECK(d == doctest::Approx(-1.5));
    l.alpha_loss({-3.0f, -2.0f}, &d);  // entropy 2.5 > −1
    CHECK(d == doctest::Approx(3.5));
    // Through a whole gradient step: a nearly deterministic policy (σ = e⁻⁸) has log π ≈ 8.
    const SacBatch b = random_batch(16, 1, 1, data);
    l.set_actor_parameters({0.0f, 0.0f, 0.0f, -8.0f});
    const double before = l.log_alpha();
    const auto m = l.gradient_step(b, data);
    CHECK(m.at("losses/entropy") < -1.0);
    CHECK(l.log_alpha() > before);
    CHECK(m.at("sac/alpha") == doctest::Approx(std::exp(l.log_alpha())));
    // σ = 1 around 0: the squashed entropy (≈ 0.55) is above the target −1.
    l.set_actor_parameters({0.0f, 0.0f, 0.0f, 0.0f});
    const double before2 = l.log_alpha();
    const auto m2 = l.gradient_step(b, data);
    CHECK(m2.at("losses/entropy") > -1.0);
    CHECK(l.log_alpha() < before2);
  }

  TEST_CASE("replay buffer: ring order, uniform deterministic sampling, save/load") {
    pz::rl::ReplayBuffer r(3, 1, 1);
    const float o1[] = {1, 2}, a1[] = {10, 20}, r1[] = {0.1f, 0.2f}, d1[] = {0, 1}, n1[] = {-1, -2};
    r.push(2, o1, a1, r1, d1, n1);
    CHECK(r.size() == 2);
    CHECK(r.pos() == 2);
    const float o2[] = {3, 4}, a2[] = {30, 40}, r2[] = {0.3f, 0.4f}, d2[] = {0, 0}, n2[] = {-3, -4};
    r.push(2, o2, a2, r2, d2, n2);
    CHECK(r.size() == 3);
    CHECK(r.pos() == 1);  // the 4th transition overwrote row 0, the oldest
    const int rows[] = {0, 1, 2};
    float obs[3], act[3], rew[3], done[3], next[3];
    r.gather(rows, 3, obs, act, rew, done, next);
    CHECK(std::vector<float>(obs, obs + 3) == std::vector<float>{4, 2, 3});
    CHECK(std::vector<float>(act, act + 3) == std::vector<float>{40, 20, 30});
    CHECK(std::vector<float>(rew, rew + 3) == std::vector<float>{0.4f, 0.2f, 0.3f});
    CHECK(std::vector<float>(done, done + 3) == std::vector<float>{0, 1, 0});
    CHECK(std::vector<float>(next, next + 3) == std::vector<float>{-4, -2, -3});
    // Sampling: a function of the rng state alone; uniform over the stored rows.
    Rng s1(9, 0), s2(9, 0);
    std::vector<int> i1(3000), i2(3000);
    r.sample_indices(3000, s1, i1.data());
    r.sample_indices(3000, s2, i2.data());
    CHECK(i1 == i2);
    int count[3] = {0, 0, 0};
    for (int i : i1) {
      REQUIRE((i >= 0 && i < 3));
      ++count[i];
    }
    for (int c : count) CHECK(std::abs(c - 1000) < 100);  // ±4 standard deviations
    // Save/load reproduces every row and the ring position.
    pz::core::StateDict sd;
    r.save(sd, "replay/");
    pz::rl::ReplayBuffer back(3, 1, 1);
    back.load(sd, "replay/");
    CHECK(back.size() == 3);
    CHECK(back.pos() == 1);
    float obs2[3], act2[3], rew2[3], done2[3], next2[3];
    back.gather(rows, 3, obs2, act2, rew2, done2, next2);
    CHECK(std::vector<float>(obs2, obs2 + 3) == std::vector<float>(obs, obs + 3));
    CHECK(std::vector<float>(next2, next2 + 3) == std::vector<float>(next, next + 3));
    pz::rl::ReplayBuffer other(4, 1, 1);
    CHECK_THROWS_AS(other.load(sd, "replay/"), pz::core::ConfigError);
    pz::rl::ReplayBuffer empty(3, 1, 1);
    int idx = 0;
    CHECK_THROWS_AS(empty.sample_indices(1, s1, &idx), pz::core::RunError);
  }

  TEST_CASE("observe stores final_obs at episode ends, bootstraps through truncation") {
    PpoConfig ppo;
    ppo.hidden = {4};
    SacConfig sac;
    sac.buffer_size = 16;
    Rng init(1, 0), data(2, 0);
    SacLearner l(2, 1, ppo, sac, init);
    FakeStep st = fake_step(3, 2, 1, data);
    st.term[1] = 1;   // terminal: done 1
    st.trunc[2] = 1;  // time limit: done 0, next = final_obs
    l.observe(st.view(2, 1));
    const int rows[] = {0, 1, 2};
    float obs[6], act[3], rew[3], done[3], next[6];
    l.replay().gather(rows, 3, obs, act, rew, done, next);
    CHECK(std::vector<float>(done, done + 3) == std::vector<float>{0, 1, 0});
    CHECK(std::vector<float>(next, next + 2) == std::vector<float>(&st.next[0], &st.next[2]));
    CHECK(std::vector<float>(next + 2, next + 4) ==
          std::vector<float>(&st.final_obs[2], &st.final_obs[4]));
    CHECK(std::vector<float>(next + 4, next + 6) ==
          std::vector<float>(&st.final_obs[4], &st.final_obs[6]));
    CHECK(std::vector<float>(rew, rew + 3) == st.rew);
    CHECK(l.transitions_seen() == 3);
  }

  TEST_CASE("gradient steps start once more than learning_starts transitions were stored") {
    PpoConfig ppo;
    ppo.hidden = {8};
    SacConfig sac;
    sac.learning_starts = 10;
    sac.batch_size = 5;
    sac.num_epochs = 2;
    Rng init(1, 0), data(2, 0), upd(3, 0);
    SacLearner l(3, 2, ppo, sac, init);
    const auto target0 = l.target_critic_parameters();
    for (int step = 1; step <= 4; ++step) {
      CAPTURE(step);
      FakeStep st = fake_step(4, 3, 2, data);
      l.observe(st.view(3, 2));
      const auto m = l.update(upd);
      if (step < 3) {  // 4, 8 transitions: not yet
        CHECK(m.empty());
        CHECK(l.gradient_steps() == 0);
        // Polyak of equal nets (Rejax runs it from the first step): unchanged up to rounding.
        const auto tp = l.target_critic_parameters();
        for (size_t k = 0; k < tp.size(); ++k)
          REQUIRE(std::abs(tp[k] - target0[k]) <= 1e-6f * std::abs(target0[k]));
      } else {  // 12, 16 > 10: num_epochs steps each
        CHECK(l.gradient_steps() == 2 * (step - 2));
        CHECK(m.count("losses/q_loss") == 1);
        CHECK(m.at("sac/replay_size") == 4.0 * step);
        CHECK(l.target_critic_parameters() != l.critic_parameters());
      }
    }
  }

  TEST_CASE("save/load continues exactly (parameters, optimizers, normalizer, replay buffer)") {
    PpoConfig ppo;
    ppo.hidden = {8};
    SacConfig sac;
    sac.learning_starts = 8;
    sac.batch_size = 6;
    sac.buffer_size = 20;
    Rng init(1, 0), data(2, 0), upd(3, 0);
    SacLearner a(3, 2, ppo, sac, init);
    for (int k = 0; k < 6; ++k) {
      a.observe(fake_step(4, 3, 2, data).view(3, 2));
      a.update(upd);
    }
    pz::core::StateDict sd;
    a.save(sd);
    Rng init2(7, 7);
    SacLearner b(3, 2, ppo, sac, init2);
    b.load(sd);
    Rng data_b = data, upd_b = upd;
    for (int k = 0; k < 4; ++k) {
      a.observe(fake_step(4, 3, 2, data).view(3, 2));
      b.observe(fake_step(4, 3, 2, data_b).view(3, 2));
      CHECK(a.update(upd) == b.update(upd_b));
    }
    CHECK(a.actor_parameters() == b.actor_parameters());
    CHECK(a.critic_parameters() == b.critic_parameters());
    CHECK(a.target_critic_parameters() == b.target_critic_parameters());
    CHECK(a.log_alpha() == b.log_alpha());
    pz::core::StateDict sa, sb;
    a.save(sa);
    b.save(sb);
    CHECK(sa.f32 == sb.f32);
    CHECK(sa.i64 == sb.i64);
    // A learner of another shape refuses the checkpoint and stays unchanged.
    PpoConfig wide = ppo;
    wide.hidden = {16};
    SacLearner c(3, 2, wide, sac, init);
    const auto before = c.actor_parameters();
    CHECK_THROWS_AS(c.load(sd), pz::core::ConfigError);
    CHECK(c.actor_parameters() == before);
  }

  TEST_CASE("a gradient step on 1 and 3 threads gives the same bytes") {
    PpoConfig ppo;
    ppo.hidden = {64, 64};
    SacConfig sac;
    Rng i1(1, 0), i2(1, 0), data(2, 0);
    SacLearner a(5, 3, ppo, sac, i1), b(5, 3, ppo, sac, i2);
    pz::core::ThreadPool pool(3);
    b.set_pool(&pool);
    const SacBatch batch = random_batch(256, 5, 3, data);
    a.normalizer().merge(batch.obs.data(), 256);
    b.normalizer().merge(batch.obs.data(), 256);
    Rng r1(5, 0), r2(5, 0);
    for (int k = 0; k < 3; ++k) CHECK(a.gradient_step(batch, r1) == b.gradient_step(batch, r2));
    CHECK(a.actor_parameters() == b.actor_parameters());
    CHECK(a.critic_parameters() == b.critic_parameters());
    std::vector<float> o(8 * 5, 0.3f), x1(8 * 3), x2(8 * 3);
    a.act(o.data(), 8, nullptr, x1.data());
    b.act(o.data(), 8, nullptr, x2.data());
    CHECK(x1 == x2);
  }

  // Guards the fused optimizer pass of gradient_step (row blocks added, norm, clamp and Adam in
  // one pass per chunk of the parameters): the same bytes as the losses' reduced gradients,
  // clamped to ±max_grad_norm and put through adam_step. Widths give parameter counts above the
  // parallel threshold and not a multiple of the SIMD width (the norm's unvectorized tail).
  TEST_CASE("fused reduce, clamp and Adam pass equals the losses' gradients through adam_step") {
    PpoConfig ppo;
    ppo.hidden = {64, 64};
    ppo.max_grad_norm = 0.01;  // small enough that the clamp bites
    SacConfig sac;
    Rng i1(4, 0), i2(4, 0), data(6, 0);
    SacLearner a(5, 3, ppo, sac, i1), b(5, 3, ppo, sac, i2);
    REQUIRE(a.actor_parameters().size() % 8 != 0);
    REQUIRE(a.critic_parameters().size() % 8 != 0);
    pz::core::ThreadPool pool(3);
    a.set_pool(&pool);
    const SacBatch batch = random_batch(256, 5, 3, data);
    a.normalizer().merge(batch.obs.data(), 256);
    b.normalizer().merge(batch.obs.data(), 256);
    std::vector<float> am, av, cm, cv;
    Rng ra(8, 0), rb(8, 0);
    for (int step = 1; step <= 2; ++step) {
      const auto m = a.gradient_step(batch, ra);
      const auto noise = normals(256 * 3, rb), next_noise = normals(256 * 3, rb);
      std::vector<float> g, logp;
      b.actor_loss(batch, noise, &g, &logp);
      double sq = 0.0;
      for (float x : g) sq += double(x) * x;
      CHECK(m.at("grad_norm/actor") == doctest::Approx(std::sqrt(sq)).epsilon(1e-6));
      int clamped = 0;
      for (float& x : g) clamped += std::abs(x) > 0.01f, x = std::clamp(x, -0.01f, 0.01f);
      CHECK(clamped > 0);
      auto p = b.actor_parameters();
      am.resize(p.size()), av.resize(p.size());
      pz::rl::adam_step(p, g, am, av, step, ppo.learning_rate, 0.9, 0.999, ppo.adam_eps, 0.0, 0.0);
      b.set_actor_parameters(p);
      CHECK(a.actor_parameters() == p);
      b.critic_loss(batch, next_noise, &g);
      sq = 0.0;
      for (float x : g) sq += double(x) * x;
      CHECK(m.at("grad_norm/critic") == doctest::Approx(std::sqrt(sq)).epsilon(1e-6));
      for (float& x : g) x = std::clamp(x, -0.01f, 0.01f);
      p = b.critic_parameters();
      cm.resize(p.size()), cv.resize(p.size());
      pz::rl::adam_step(p, g, cm, cv, step, ppo.learning_rate, 0.9, 0.999, ppo.adam_eps, 0.0, 0.0);
      b.set_critic_parameters(p);
      CHECK(a.critic_parameters() == p);
      b.set_log_alpha(a.log_alpha());  // the temperature's own step is not under test here
    }
  }

  TEST_CASE("[sac] keys: Rejax 0.1.2 defaults, round trip, cross-key checks name the key") {
    using pz::exp::parse_spec;
    const auto s = parse_spec("[learner]\nalgo = \"sac\"\n[sac]\nnum_epochs = 2\n", "s.toml");
    CHECK(s.learner.algo == "sac");
    const auto& sac = s.learner_sections.at("sac");
    CHECK(s.learner_sections.size() == 1);  // sac reads [sac] only
    CHECK(sac.integer("buffer_size") == 131072);
    CHECK(sac.integer("learning_starts") == 2048);
    CHECK(sac.integer("batch_size") == 256);
    CHECK(sac.integer("num_epochs") == 2);
    CHECK(sac.number("tau") == 0.01);
    CHECK(sac.number("init_alpha") == 1.0);
    CHECK(sac.number("target_entropy_per_dim") == -1.0);
    CHECK(sac.str("activation") == "relu");
    // The network keys SAC used to read from [ppo]: their defaults are the old [ppo] defaults.
    CHECK(sac.number("learning_rate") == 3e-4);
    CHECK(sac.number("gamma") == 0.995);
    CHECK(sac.at("hidden") == pz::core::ParamValue(std::vector<int64_t>{64, 64}));
    CHECK(sac.number("max_grad_norm") == 0.5);
    CHECK(sac.number("adam_eps") == 1e-8);
    CHECK(sac.boolean("normalize_obs"));
    CHECK(pz::exp::to_toml(parse_spec(pz::exp::to_toml(s), "x")) == pz::exp::to_toml(s));
    // n_minibatches is PPO's: it need not divide n_envs under sac.
    CHECK_NOTHROW(parse_spec("[vec]\nn_envs = 6\n[learner]\nalgo = \"sac\"\n", "s.toml"));
    CHECK_THROWS_WITH_AS(
        parse_spec("[vec]\nn_envs = 64\n[learner]\nalgo = \"sac\"\n[sac]\nbuffer_size = 32\n",
                   "s.toml"),
        "s.toml:6: [sac] buffer_size: expected at least [vec] n_envs = 64 (one vector step of "
        "transitions), found 32",
        pz::core::ConfigError);
    // [ppo] is not read by sac: its keys (policy, normalize_rewards, ...) would do nothing.
    CHECK_THROWS_WITH_AS(
        parse_spec("[learner]\nalgo = \"sac\"\n[ppo]\npolicy = \"beta\"\n", "s.toml"),
        "s.toml:4: [ppo] is read by ippo, ippo_lagrangian, ppo, ppo_lagrangian, saute_ppo; "
        "[learner] algo = \"sac\" does not read it",
        pz::core::ConfigError);
    CHECK_THROWS_WITH_AS(
        parse_spec("[learner]\nalgo = \"sac\"\n[ppo]\nlearning_rate = 1e-3\n", "s.toml"),
        doctest::Contains("(sac's learning_rate is [sac] learning_rate)"), pz::core::ConfigError);
    CHECK_THROWS_WITH_AS(parse_spec("[sac]\ntau = 0\n", "s.toml"),
                         "s.toml:2: [sac] tau: expected a number in (0, 1], found 0",
                         pz::core::ConfigError);
    // An unbounded action box is refused before anything is written.
    const auto u = parse_spec(
        "[env]\nid = \"test_target\"\nunbounded = true\n[learner]\nalgo = \"sac\"\n", "u.toml");
    pz::exp::TrainOptions opt;
    opt.out_dir = (std::filesystem::temp_directory_path() / "pz_sac_never").string();
    opt.quiet = true;
    CHECK_THROWS_WITH_AS(
        pz::exp::train(u, opt),
        "u.toml:5: [learner] algo = \"sac\": expected an env with a bounded action "
        "box, found action 0 of test_target in [-inf, inf]",
        pz::core::ConfigError);
    CHECK_FALSE(std::filesystem::exists(opt.out_dir));
  }

  TEST_CASE("SAC learning sanity: 1-step bandit on [−1, 1], reward −(a − 0.5)²") {
    PpoConfig ppo;
    ppo.hidden = {32};
    ppo.learning_rate = 3e-3;
    ppo.normalize_obs = false;
    SacConfig sac;
    sac.learning_starts = 64;
    sac.batch_size = 64;
    sac.buffer_size = 4096;
    Rng init(1, 0), act_rng(2, 0), upd(3, 0);
    SacLearner l(1, 1, ppo, sac, init);
    const int N = 16;
    FakeStep st;
    st.obs.assign(N, 1.0f), st.next.assign(N, 1.0f), st.final_obs.assign(N, 1.0f);
    st.act.resize(N), st.rew.resize(N);
    st.term.assign(N, 1), st.trunc.assign(N, 0);
    for (int it = 0; it < 400; ++it) {
      l.collect_act(st.obs.data(), N, act_rng, st.act.data());
      for (int i = 0; i < N; ++i) st.rew[i] = -(st.act[i] - 0.5f) * (st.act[i] - 0.5f);
      l.observe(st.view(1, 1));
      l.update(upd);
    }
    float a = 0.0f;
    const float one = 1.0f;
    l.act(&one, 1, nullptr, &a);
    INFO("deterministic action tanh(μ) after 400 vector steps: " << a);
    CHECK(std::abs(a - 0.5f) < 0.1f);
  }
}
