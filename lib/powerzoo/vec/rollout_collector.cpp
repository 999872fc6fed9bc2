// Rollout collection loop: act, step, check, observe, and the env-side statistics.
#include "powerzoo/vec/rollout_collector.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"

namespace pz::vec {
namespace {

// Throws core::RunError at the first non-finite value of x[N, width]: what it is (`what`, from
// `source`), the env index, the global step and the column by name (`column(j)`). A NaN or Inf
// never reaches the learner's update or a checkpoint.
// True if no value of x[0, n) is NaN or ±Inf: an exponent test on the bits, branch-free so the
// compiler vectorizes it (every step checks every value the learner and the envs produce).
bool all_finite(const float* x, size_t n) {
  uint32_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t b;
    std::memcpy(&b, x + i, sizeof b);
    bad |= static_cast<uint32_t>((b & 0x7f800000u) == 0x7f800000u);
  }
  return bad == 0;
}

template <class Column>
void check_finite(const float* x, int n_envs, int width, const char* what, const char* source,
                  long long step, const Column& column) {
  const size_t n = static_cast<size_t>(n_envs) * width;
  if (all_finite(x, n)) return;
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(x[i])) continue;
    std::ostringstream os;
    os << "non-finite " << what << " " << source << " env " << i / width << " at global step "
       << step << ": " << column(static_cast<int>(i % width)) << " = " << core::format_number(x[i]);
    throw core::RunError(os.str());
  }
}

// "obs[5] (field load_mw)" for observation column j.
std::string obs_column(const envs::EnvSpec& esp, int j) {
  for (const auto& f : esp.obs_fields)
    if (j >= f.slice.offset && j < f.slice.offset + f.slice.size)
      return "obs[" + std::to_string(j) + "] (field " + f.name + ")";
  return "obs[" + std::to_string(j) + "]";
}

std::string agent_column(const envs::EnvSpec& esp, const char* name, int a) {
  return esp.n_agents() == 1 ? std::string(name)
                             : std::string(name) + " of agent " + esp.agent_list()[a].name;
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
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  const auto t0 = Clock::now();
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
    const auto t_act = Clock::now();
    actor.collect_act(obs_before_.data(), N, rng, actions_.data());
    const auto t_env = Clock::now();
    st.act_seconds += std::chrono::duration<double>(t_env - t_act).count();
    check_finite(actions_.data(), N, esp.act_dim, "action", "from the learner for", step_at,
                 [](int j) { return "action[" + std::to_string(j) + "]"; });
    venv_.step_all(actions_.data());
    st.env_seconds += since(t_env);
    const int na = venv_.n_agents();
    check_finite(venv_.reward.data(), N, na, "reward", "from", step_at,
                 [&](int a) { return agent_column(esp, "reward", a); });
    check_finite(venv_.shaped_reward.data(), N, na, "shaped reward", "from", step_at,
                 [&](int a) { return agent_column(esp, "shaped reward (reward - penalty)", a); });
    check_finite(venv_.costs.data(), N, static_cast<int>(n_costs), "cost", "from", step_at,
                 [&](int j) { return "cost " + esp.cost_names[j]; });
    check_finite(venv_.obs.data(), N, esp.obs_dim, "observation", "from", step_at,
                 [&](int j) { return obs_column(esp, j); });
    for (int i = 0; i < N; ++i)  // the last observation of an episode that ended (bootstrapping)
      if (venv_.terminated[i] || venv_.truncated[i])
        for (int j = 0; j < esp.obs_dim; ++j)
          if (!std::isfinite(venv_.final_obs[static_cast<size_t>(i) * esp.obs_dim + j]))
            throw core::RunError("non-finite final observation from env " + std::to_string(i) +
                                 " at global step " + std::to_string(step_at) + ": " +
                                 obs_column(esp, j));
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
    for (int i = 0; i < N; ++i) {
      // Multi-agent: the team reward, mean over the agents' rewards (A = 1: the reward itself).
      double team = 0;
      for (int a = 0; a < na; ++a) team += venv_.reward[static_cast<size_t>(i) * na + a];
      st.reward_sum += na == 1 ? team : team / na;
      for (size_t j = 0; j < n_costs; ++j) st.cost_sum[j] += venv_.costs[i * n_costs + j];
    }
    for (const auto& ep : ended_) {
      st.episode_returns.push_back(ep.ret);
      st.episode_costs.emplace_back(ep.cost_sum, ep.cost_sum + (ep.cost_sum ? n_costs : 0));
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
      const auto tb = Clock::now();
      between();
      st.between_seconds += since(tb);
    }
  }
  st.seconds = since(t0) - st.between_seconds;
  return st;
}

}  // namespace pz::vec
