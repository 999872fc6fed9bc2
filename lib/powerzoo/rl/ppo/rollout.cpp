// Rollout buffer allocation.
#include "powerzoo/rl/ppo/rollout.hpp"

namespace pz::rl {

void Rollout::resize(int T_, int N_, int obs_dim_, int act_dim_, int n_costs_) {
  T = T_, N = N_, obs_dim = obs_dim_, act_dim = act_dim_, n_costs = n_costs_;
  const size_t tn = static_cast<size_t>(T) * N;
  obs.assign(tn * obs_dim, 0.0f);
  actions.assign(tn * act_dim, 0.0f);
  logp.assign(tn, 0.0f);
  values.assign(tn, 0.0f);
  rewards.assign(tn, 0.0f);
  dones.assign(tn, 0);
  truncated.assign(tn, 0);
  final_obs.assign(tn * obs_dim, 0.0f);
  next_obs.assign(static_cast<size_t>(N) * obs_dim, 0.0f);
  costs.assign(tn * n_costs, 0.0f);
}

}  // namespace pz::rl
