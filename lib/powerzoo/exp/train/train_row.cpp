// The columns of a train row: steps, time, throughput and where the iteration's time went, the
// rollout's rewards and costs, the [log] percentiles and weight statistics.
#include "powerzoo/exp/train/train_row.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "powerzoo/exp/run/log_levels.hpp"

namespace pz::exp {

std::map<std::string, double> add_step_metrics(const vec::CollectStats& st,
                                               const envs::EnvSpec& esp, int N, int T,
                                               long long steps, double wall, double iter_seconds,
                                               const LogSection& log, const rl::Learner& learner,
                                               std::map<std::string, double>& m) {
  m["global_step"] = static_cast<double>(steps);
  m["wall_time"] = wall;
  m["throughput/train_sps"] = T * N / std::max(iter_seconds, 1e-9);
  m["throughput/env_sps"] = T * N / std::max(st.seconds, 1e-9);
  // Where the iteration's time went (the rest of it: the per-step checks, observe(), this row).
  m["throughput/env_seconds"] = st.env_seconds;
  m["throughput/act_seconds"] = st.act_seconds;
  m["throughput/update_seconds"] = st.between_seconds;
  add_rollout_metrics(st, esp, N, m);
  add_percentiles(m, "episode_return_", "", st.episode_returns, log.percentiles);
  for (size_t j = 0; j < esp.cost_names.size() && !log.percentiles.empty(); ++j) {
    std::vector<double> c;
    for (const auto& ep : st.episode_costs) c.push_back(j < ep.size() ? ep[j] : 0.0);
    add_percentiles(m, "episode_cost_", "/" + esp.cost_names[j], c, log.percentiles);
  }
  if (std::find(log.level.begin(), log.level.end(), "weights") != log.level.end()) {
    std::vector<std::span<const float>> params;
    learner.trainable_parameters(params);
    add_weight_stats(m, params, log.percentiles);
  }
  return filter_levels(m, log.level);
}

void add_rollout_metrics(const vec::CollectStats& st, const envs::EnvSpec& esp, int N,
                         std::map<std::string, double>& m) {
  const int TN = st.steps * N;
  m["rollout/reward_mean"] = st.reward_sum / TN;
  for (size_t j = 0; j < st.cost_sum.size(); ++j)
    m["rollout/cost_" + esp.cost_names[j]] = st.cost_sum[j] / TN;
  if (!st.episode_returns.empty()) {
    double s = 0;
    for (double r : st.episode_returns) s += r;
    m["episode_return"] = s / st.episode_returns.size();
    m["episode_shaped_return"] = st.episode_shaped_sum / st.episode_returns.size();
  } else {
    m["episode_return"] = NAN;
    m["episode_shaped_return"] = NAN;
  }
}

}  // namespace pz::exp
