// Random PPO rollouts, the finite-difference check of a PPO learner's analytic gradient and the
// one-step bandit of the learning-sanity tests, shared by the PPO, Beta and Safe-RL tests.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"

namespace pz::test {

/// Random rollout of T steps × N envs with k cost channels (k = 0: none) and a fixed done /
/// truncated pattern. logp_old is the learner's current log-likelihood of the stored actions minus
/// an offset in [−0.6, 0.6], so ratios ρ ∈ [0.55, 1.8] straddle 1 ± 0.2. With squash = true the
/// stored actions are raw samples u and logp includes the tanh Jacobian −Σ log(1 − tanh²u) (naive
/// form; |u| stays small here).
inline rl::Rollout random_rollout(rl::PpoLearner& learner, int T, int N, int obs_dim, int act_dim,
                                  int k, core::Rng& rng, bool squash = false) {
  rl::Rollout r;
  r.resize(T, N, obs_dim, act_dim, k);
  for (auto& x : r.obs) x = static_cast<float>(1.5 * rng.normal() + 0.3);
  for (auto& x : r.final_obs) x = static_cast<float>(rng.normal());
  for (auto& x : r.next_obs) x = static_cast<float>(rng.normal());
  for (auto& x : r.actions) x = static_cast<float>(rng.normal());
  for (auto& x : r.rewards) x = static_cast<float>(rng.normal());
  for (auto& x : r.costs) x = static_cast<float>(std::max(0.0, rng.normal()));
  for (int t = 0; t < T; ++t) {
    for (int n = 0; n < N; ++n) {
      const int i = t * N + n;
      if ((t + n) % 3 == 1) r.dones[i] = 1;                       // terminated
      if ((t * 7 + n) % 5 == 2) r.dones[i] = r.truncated[i] = 1;  // truncated
    }
  }
  // Current log-likelihood of the stored actions: deterministic act() gives u = μ (raw).
  std::vector<float> mu(r.actions.size()), env_a(r.actions.size());
  learner.act(r.obs.data(), T * N, nullptr, env_a.data(), nullptr, nullptr, mu.data());
  core::StateDict sd;
  learner.save(sd);
  const auto& ls = sd.f32.at("learner/actor/log_std");
  std::vector<double> log_std(ls.begin(), ls.begin() + act_dim);
  for (int i = 0; i < T * N; ++i) {
    double lp = 0.0;
    for (int d = 0; d < act_dim; ++d) {
      const double z = (r.actions[i * act_dim + d] - mu[i * act_dim + d]) / std::exp(log_std[d]);
      lp += -0.5 * z * z - log_std[d] - 0.5 * std::log(2.0 * std::numbers::pi);
      if (squash) {
        const double th = std::tanh(double(r.actions[i * act_dim + d]));
        lp -= std::log(1.0 - th * th);
      }
    }
    r.logp[i] = static_cast<float>(lp - (1.2 * rng.uniform() - 0.6));
  }
  return r;
}

/// Trains `learner` (obs and action of size 1) on the one-step bandit whose reward is
/// −(a − 0.5)² for the env action a: `iterations` rollouts of T steps × N envs at obs 1, each
/// step done, one update per rollout. Returns the deterministic action at obs 1 afterwards.
inline float train_bandit(rl::PpoLearner& learner, int T, int N, int iterations, core::Rng& act_rng,
                          core::Rng& shuffle) {
  rl::Rollout r;
  r.resize(T, N, 1, 1);
  std::fill(r.obs.begin(), r.obs.end(), 1.0f);
  std::fill(r.next_obs.begin(), r.next_obs.end(), 1.0f);
  std::fill(r.dones.begin(), r.dones.end(), 1);
  std::vector<float> env_a(N);
  for (int it = 0; it < iterations; ++it) {
    for (int t = 0; t < T; ++t) {
      learner.act(&r.obs[t * N], N, &act_rng, env_a.data(), &r.logp[t * N], &r.values[t * N],
                  &r.actions[t * N]);
      for (int n = 0; n < N; ++n) r.rewards[t * N + n] = -(env_a[n] - 0.5f) * (env_a[n] - 0.5f);
    }
    learner.update(r, shuffle);
  }
  float a = 0.0f;
  const float one = 1.0f;
  learner.act(&one, 1, nullptr, &a, nullptr, nullptr);
  return a;
}

/// Central differences (h = 1e-3 on the float parameters, actual step used) of
/// loss_and_grad_fixed at the learner's current parameters p for each index in idx, checked
/// against grad (absolute 1e-4 or relative 1e-2). Restores p. Returns how many of the checked
/// entries have |grad| > 1e-3, so callers can assert the check is not vacuous.
inline int check_gradient_fd(rl::PpoLearner& learner, const rl::Rollout& r,
                             const std::vector<int>& cols, const std::vector<float>& adv,
                             const std::vector<float>& tgt, const std::vector<float>& grad,
                             const std::vector<int64_t>& idx) {
  const std::vector<float> p = learner.parameters();
  int n_nonzero = 0;
  for (int64_t i : idx) {
    const float h = 1e-3f;
    auto q = p;
    q[i] = p[i] + h;
    const double hp = double(q[i]) - double(p[i]);
    learner.set_parameters(q);
    const double lp = learner.loss_and_grad_fixed(r, cols, adv, tgt, nullptr, nullptr);
    q[i] = p[i] - h;
    const double hm = double(p[i]) - double(q[i]);
    learner.set_parameters(q);
    const double lm = learner.loss_and_grad_fixed(r, cols, adv, tgt, nullptr, nullptr);
    const double fd = (lp - lm) / (hp + hm);
    const double g = grad[i];
    const double err = std::abs(fd - g);
    const double rel = err / std::max(std::abs(fd), std::abs(g));
    INFO("param " << i << ": analytic " << g << ", finite difference " << fd);
    CHECK((err < 1e-4 || rel < 1e-2));
    if (std::abs(g) > 1e-3) ++n_nonzero;
  }
  learner.set_parameters(p);
  return n_nonzero;
}

}  // namespace pz::test
