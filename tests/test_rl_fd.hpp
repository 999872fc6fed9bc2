// Finite-difference check of a PPO learner's analytic gradient, shared by the PPO and Safe-RL
// tests.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "powerzoo/rl/ppo/ppo.hpp"

namespace pz::test {

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
