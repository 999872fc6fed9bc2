// Generalized advantage estimation for one env column with seed done/truncation rules (GAE,
// Schulman et al. 2015, arXiv:1506.02438, with PowerZooJax's seed PPO trainer (nnx-ppo)'s done
// rules).
#include "powerzoo/rl/ppo/rollout.hpp"

namespace pz::rl {

// Backward recursion, A_T := 0 (Schulman et al. 2016, "High-dimensional continuous control using
// generalized advantage estimation"), accumulated in double:
//   terminated t (done, not truncated): δ_t = r_t − V_t
//   truncated t, kZeroTd:               δ_t = 0                               (seed trainer)
//   truncated t, kBootstrap:            δ_t = r_t + γ·values_next[t] − V_t    (V(final_obs_t))
//   otherwise:                          δ_t = r_t + γ·values_next[t] − V_t
//   A_t = δ_t + (1 − done_t)·γλ·A_{t+1}
// A truncated step counts as done even if its dones flag is unset (the Rollout contract says
// truncated implies done).
void gae(int T, const float* rewards, const float* values, const float* values_next,
         const uint8_t* dones, const uint8_t* truncated, double gamma, double lambda,
         Truncation mode, float* advantages) {
  double a_next = 0.0;
  for (int t = T - 1; t >= 0; --t) {
    const bool trunc = truncated[t] != 0;
    const bool done = dones[t] != 0 || trunc;
    double delta;
    if (trunc) {
      delta = (mode == Truncation::kZeroTd)
                  ? 0.0
                  : double(rewards[t]) + gamma * double(values_next[t]) - double(values[t]);
    } else {
      const double v_next = done ? 0.0 : double(values_next[t]);
      delta = double(rewards[t]) + gamma * v_next - double(values[t]);
    }
    const double a = delta + (done ? 0.0 : gamma * lambda * a_next);
    advantages[t] = static_cast<float>(a);
    a_next = a;
  }
}

}  // namespace pz::rl
