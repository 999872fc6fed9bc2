// Rollout collection loop: act, step, check, observe, and the env-side statistics.
#include "powerzoo/vec/rollout_collector.hpp"

#include <chrono>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"

namespace pz::vec {
namespace {

void check_finite(const float* x, size_t n, int width, const char* what, long long step) {
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]))
      throw core::RunError(std::string("non-finite ") + what + " at env " +
                           std::to_string(i / width) + ", global step " + std::to_string(step));
  }
}

template <class T>
void append(std::vector<T>& dst, const std::vector<T>& src) {
  dst.insert(dst.end(), src.begin(), src.end());
}

}  // namespace

RolloutCollector::RolloutCollector(VectorEnv& venv, bool record)
    : venv_(venv), keep_record_(record) {}

CollectStats RolloutCollector::collect(core::Actor& actor, core::Rng& rng, int steps,
                                       long long global_step, int every,
                                       const std::function<void()>& between) {
  if (between && (every <= 0 || steps % every != 0))
    throw core::ConfigError("collect: " + std::to_string(every) + " steps between updates do not " +
                            "divide the " + std::to_string(steps) + " steps of a collection");
  const auto t0 = std::chrono::steady_clock::now();
  double between_secs = 0;
  const envs::EnvSpec& esp = venv_.spec();
  const int N = venv_.n_envs();
  const size_t n_costs = esp.cost_names.size();
  CollectStats st;
  st.cost_sum.assign(n_costs, 0.0);
  actions_.resize(static_cast<size_t>(N) * esp.act_dim);
  obs_before_.resize(venv_.obs.size());
  if (keep_record_) {
    record_ = CollectRecord{};
    record_.N = N, record_.obs_dim = esp.obs_dim, record_.act_dim = esp.act_dim;
    record_.n_costs = static_cast<int>(n_costs);
  }
  for (int t = 0; t < steps; ++t) {
    const long long step_at = global_step + static_cast<long long>(t) * N;
    std::copy(venv_.obs.begin(), venv_.obs.end(), obs_before_.begin());
    actor.collect_act(obs_before_.data(), N, rng, actions_.data());
    venv_.step_all(actions_.data());
    check_finite(venv_.obs.data(), venv_.obs.size(), esp.obs_dim, "observation", step_at);
    check_finite(venv_.shaped_reward.data(), venv_.shaped_reward.size(), 1, "reward", step_at);
    ended_.clear();
    for (const auto& [i, ep] : venv_.finished())
      ended_.push_back({i, ep.ret, ep.shaped_ret, ep.length, ep.cost_sum.data()});
    core::StepView v;
    v.n = N, v.obs_dim = esp.obs_dim, v.act_dim = esp.act_dim;
    v.n_costs = static_cast<int>(n_costs), v.t = t, v.global_step = step_at;
    v.n_agents = venv_.n_agents();
    v.obs = obs_before_.data();
    v.actions = actions_.data();
    v.reward = venv_.reward.data();
    v.shaped_reward = venv_.shaped_reward.data();
    v.costs = venv_.costs.data();
    v.terminated = venv_.terminated.data();
    v.truncated = venv_.truncated.data();
    v.final_obs = venv_.final_obs.data();
    v.next_obs = venv_.obs.data();
    v.finished = ended_;
    actor.observe(v);
    const int na = venv_.n_agents();
    for (int i = 0; i < N; ++i) {
      // Multi-agent: the team reward, mean over the agents' rewards (A = 1: the reward itself).
      double team = 0;
      for (int a = 0; a < na; ++a) team += venv_.reward[static_cast<size_t>(i) * na + a];
      st.reward_sum += na == 1 ? team : team / na;
      for (size_t j = 0; j < n_costs; ++j) st.cost_sum[j] += venv_.costs[i * n_costs + j];
    }
    for (const auto& ep : ended_) {
      st.episode_returns.push_back(ep.ret);
      st.episode_shaped_sum += ep.shaped_ret;
    }
    if (keep_record_) {
      append(record_.obs, obs_before_);
      append(record_.action, actions_);
      append(record_.reward, venv_.shaped_reward);
      append(record_.costs, venv_.costs);
      for (int i = 0; i < N; ++i)  // terminated and not truncated
        record_.terminated.push_back(venv_.terminated[i] && !venv_.truncated[i]);
      append(record_.truncated, venv_.truncated);
      ++record_.T;
    }
    ++st.steps;
    if (between && st.steps % every == 0) {
      const auto tb = std::chrono::steady_clock::now();
      between();
      between_secs += std::chrono::duration<double>(std::chrono::steady_clock::now() - tb).count();
    }
  }
  st.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - between_secs;
  return st;
}

}  // namespace pz::vec
