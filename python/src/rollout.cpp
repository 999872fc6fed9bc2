// run_rollout: the loop of evaluate() (exp/eval/evaluate.cpp) over a caller's actions.
#include "rollout.hpp"

#include <algorithm>
#include <limits>
#include <span>

#include "powerzoo/envs/network_view.hpp"

namespace pz::py {

RolloutRecord run_rollout(VecSession& s, const float* actions, int T, bool trace_vectors) {
  s.check_ready("rollout");
  vec::VectorEnv& v = s.venv();
  const envs::EnvSpec& sp = s.env_spec();
  const size_t N = static_cast<size_t>(s.n_envs());
  const size_t od = sp.obs_dim, ad = sp.act_dim, k = sp.cost_names.size();
  const size_t nt = sp.trace_names.size();
  const size_t wt = trace_vectors ? static_cast<size_t>(envs::trace_vector_width(sp)) : 0;
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  RolloutRecord r;
  // Reserved up front: growing these [T, N, ...] buffers step by step re-allocates and page-faults
  // them again and again (most of a rollout's time on the quickstart before).
  const size_t rows = static_cast<size_t>(std::max(T, 0)) * N;
  r.obs.reserve(rows * od);
  r.final_obs.reserve(rows * od);
  r.reward.reserve(rows);
  r.agent_reward.reserve(rows * v.n_agents());
  r.shaped_reward.reserve(rows * v.n_agents());
  r.costs.reserve(rows * k);
  r.terminated.reserve(rows);
  r.truncated.reserve(rows);
  r.episode_return.reserve(rows);
  r.episode_length.reserve(rows);
  r.episode_cost.reserve(rows * k);
  r.trace.reserve(rows * nt);
  r.trace_vec.reserve(rows * wt);
  std::vector<uint8_t> was_ended(N, 0);
  for (int t = 0; t < T; ++t) {
    bool all_ended = s.eval();
    for (size_t i = 0; i < N; ++i) {
      was_ended[i] = s.eval() && s.ended(static_cast<int>(i));
      all_ended = all_ended && was_ended[i];
    }
    if (all_ended) break;
    r.obs.insert(r.obs.end(), v.obs.begin(), v.obs.end());
    s.step(actions + static_cast<size_t>(t) * N * ad);
    r.reward.insert(r.reward.end(), v.team_reward.begin(), v.team_reward.end());
    r.agent_reward.insert(r.agent_reward.end(), v.reward.begin(), v.reward.end());
    r.shaped_reward.insert(r.shaped_reward.end(), v.shaped_reward.begin(), v.shaped_reward.end());
    r.costs.insert(r.costs.end(), v.costs.begin(), v.costs.end());
    r.terminated.insert(r.terminated.end(), v.terminated.begin(), v.terminated.end());
    r.truncated.insert(r.truncated.end(), v.truncated.begin(), v.truncated.end());
    const size_t row = r.final_obs.size();
    r.final_obs.insert(r.final_obs.end(), v.obs.begin(), v.obs.end());
    r.episode_return.resize(r.episode_return.size() + N, kNaN);
    r.episode_length.resize(r.episode_length.size() + N, 0);
    r.episode_cost.resize(r.episode_cost.size() + N * k, kNaN);
    const size_t base = static_cast<size_t>(t) * N;
    for (const auto& [i, ep] : v.finished()) {
      r.episode_return[base + i] = ep.ret;
      r.episode_length[base + i] = ep.length;
      for (size_t j = 0; j < k && j < ep.cost_sum.size(); ++j)
        r.episode_cost[(base + i) * k + j] = ep.cost_sum[j];
    }
    for (size_t i = 0; i < N; ++i) {
      const bool done = v.terminated[i] || v.truncated[i];
      if (done) std::copy_n(v.final_obs.begin() + i * od, od, r.final_obs.begin() + row + i * od);
      for (size_t j = 0; j < nt; ++j)
        r.trace.push_back(was_ended[i] ? 0.0f : static_cast<float>(v.info[i].trace[j]));
    }
    if (wt > 0) {
      const size_t at = r.trace_vec.size();
      r.trace_vec.resize(at + N * wt, 0.0f);
      for (size_t i = 0; i < N; ++i) {
        const bool reset_already = !s.eval() && (v.terminated[i] || v.truncated[i]);
        if (!was_ended[i] && !reset_already)
          s.env().write_trace(v.state(static_cast<int>(i)),
                              std::span<float>(r.trace_vec.data() + at + i * wt, wt));
      }
    }
    ++r.T;
  }
  return r;
}

}  // namespace pz::py
