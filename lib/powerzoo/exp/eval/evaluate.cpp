// Evaluation loop over a non-resetting VectorEnv.
#include "powerzoo/exp/eval/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/fault.hpp"
#include "powerzoo/envs/network_view.hpp"
#include "powerzoo/exp/eval/eval_venv.hpp"
#include "powerzoo/exp/run/log_levels.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::exp {
namespace {
void mean_std(const std::vector<double>& x, double& mean, double& stdev) {
  mean = 0;
  for (double v : x) mean += v;
  mean /= std::max<size_t>(x.size(), 1);
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  stdev = std::sqrt(var / std::max<size_t>(x.size(), 1));
}
}  // namespace

PolicyFn deterministic_policy(rl::Learner& learner) {
  return [&learner](const float* obs, int n, float* actions) {
    learner.act(obs, n, nullptr, actions);
  };
}

std::map<std::string, double> evaluate(std::shared_ptr<const envs::Env> env, const PolicyFn& policy,
                                       int n_episodes, uint64_t eval_seed, double dt_hours,
                                       const std::vector<double>& penalty, core::ThreadPool& pool,
                                       Trajectories* traj, const std::vector<double>& percentiles) {
  const envs::EnvSpec sp = env->spec();
  const auto venv_ptr = make_eval_venv(env, n_episodes, eval_seed, penalty, pool);
  vec::VectorEnv& venv = *venv_ptr;
  const size_t K = static_cast<size_t>(n_episodes);
  const size_t k = sp.cost_names.size();
  std::vector<float> actions(K * sp.act_dim);
  if (traj) {
    *traj = Trajectories{};
    traj->T = sp.horizon;
    traj->N = n_episodes;
    traj->obs_dim = sp.obs_dim;
    traj->act_dim = sp.act_dim;
    traj->n_costs = static_cast<int>(k);
    traj->trace_names = sp.trace_names;
    traj->trace_vectors = sp.trace_vectors;
    traj->final_obs.assign(K * sp.obs_dim, 0.0f);
  }
  const size_t n_trace = sp.trace_names.size();
  const size_t w_trace = static_cast<size_t>(envs::trace_vector_width(sp));
  std::vector<uint8_t> ended(K, 0);
  std::vector<vec::EpisodeStats> done_eps(K);
  size_t n_done = 0;
  for (int t = 0; t < sp.horizon && n_done < K; ++t) {
    policy(venv.obs.data(), n_episodes, actions.data());
    for (size_t i = 0; i < actions.size(); ++i)  // as in training: a fault, not an action
      if (!std::isfinite(actions[i]))
        throw core::RunError("non-finite action from the policy for evaluation episode " +
                             std::to_string(i / sp.act_dim) + " at step " + std::to_string(t) +
                             ": action[" + std::to_string(i % sp.act_dim) +
                             "] = " + std::to_string(actions[i]));
    if (t == sp.horizon / 2) core::fault_point("eval");
    if (traj) {
      traj->obs.insert(traj->obs.end(), venv.obs.begin(), venv.obs.end());
      traj->action.insert(traj->action.end(), actions.begin(), actions.end());
    }
    venv.step_all(actions.data());
    if (traj) {
      traj->reward.insert(traj->reward.end(), venv.reward.begin(), venv.reward.end());
      traj->costs.insert(traj->costs.end(), venv.costs.begin(), venv.costs.end());
      traj->terminated.insert(traj->terminated.end(), venv.terminated.begin(),
                              venv.terminated.end());
      traj->truncated.insert(traj->truncated.end(), venv.truncated.begin(), venv.truncated.end());
      for (size_t i = 0; i < K && n_trace > 0; ++i)
        for (size_t j = 0; j < n_trace; ++j)
          traj->trace.push_back(ended[i] ? 0.0f : static_cast<float>(venv.info[i].trace[j]));
      if (w_trace > 0) {
        const size_t row = traj->trace_vec.size();
        traj->trace_vec.resize(row + K * w_trace, 0.0f);
        for (size_t i = 0; i < K; ++i)
          if (!ended[i])
            env->write_trace(venv.state(static_cast<int>(i)),
                             std::span<float>(traj->trace_vec.data() + row + i * w_trace, w_trace));
      }
      for (size_t i = 0; i < K; ++i)
        if (!ended[i] && (venv.terminated[i] || venv.truncated[i]))
          std::copy_n(venv.obs.begin() + i * sp.obs_dim, sp.obs_dim,
                      traj->final_obs.begin() + i * sp.obs_dim);
    }
    for (size_t i = 0; i < K; ++i) ended[i] |= venv.terminated[i] | venv.truncated[i];
    for (const auto& [i, ep] : venv.finished()) {
      done_eps[i] = ep;
      ++n_done;
    }
  }
  if (traj) traj->T = static_cast<int>(traj->truncated.size() / K);  // reward: per agent
  std::vector<double> ret, shaped, gen, len;
  std::vector<double> cost_sum(k, 0.0);
  std::vector<double> viol_steps(k, 0.0);
  double total_steps = 0, feasible = 0, safe_steps = 0;
  for (const auto& ep : done_eps) {
    ret.push_back(ep.ret);
    shaped.push_back(ep.shaped_ret);
    gen.push_back(ep.gen_cost * dt_hours);
    len.push_back(ep.length);
    total_steps += ep.length;
    safe_steps += ep.safe_steps;
    bool ok = true;
    for (size_t j = 0; j < k && j < ep.cost_sum.size(); ++j) {
      cost_sum[j] += ep.cost_sum[j];
      viol_steps[j] += ep.violation_steps[j];
      ok = ok && ep.violation_steps[j] == 0;
    }
    feasible += ok;
  }
  std::map<std::string, double> m;
  double mean, sd;
  mean_std(ret, mean, sd);
  m["return_mean"] = mean;
  m["return_std"] = sd;
  mean_std(shaped, mean, sd);
  m["shaped_return_mean"] = mean;
  m["shaped_return_std"] = sd;
  mean_std(gen, mean, sd);
  m["gen_cost_mean"] = mean;
  mean_std(len, mean, sd);
  m["episode_length_mean"] = mean;
  for (size_t j = 0; j < k; ++j) {
    m["cost/" + sp.cost_names[j]] = cost_sum[j] / static_cast<double>(K);
    m["violation_rate/" + sp.cost_names[j]] = viol_steps[j] / std::max(total_steps, 1.0);
  }
  add_percentiles(m, "return_", "", ret, percentiles);
  for (size_t j = 0; j < k && !percentiles.empty(); ++j) {
    std::vector<double> c;
    for (const auto& ep : done_eps) c.push_back(j < ep.cost_sum.size() ? ep.cost_sum[j] : 0.0);
    add_percentiles(m, "cost_", "/" + sp.cost_names[j], c, percentiles);
  }
  // Reference definition: mean over steps of the env's is_safe (every constraint holds).
  m["feasibility_rate"] = safe_steps / std::max(total_steps, 1.0);
  // Stricter: episodes in which no cost channel was ever positive.
  m["episode_feasibility_rate"] = feasible / static_cast<double>(K);
  for (size_t j = 0; j < sp.episode_sum_names.size(); ++j) {
    double sum = 0;
    for (const auto& ep : done_eps) sum += ep.sums[j];
    m[sp.episode_sum_names[j]] = sum / static_cast<double>(K);
  }
  if (sp.n_agents() > 1) {
    // Multi-agent (PowerZooJax's IPPO monitor eval): team return Σ_t mean over agents, whatever the
    // env's own team reward is, and each agent's return, in agent order.
    const auto list = sp.agent_list();
    const size_t na = list.size();
    std::vector<double> team;
    std::vector<double> agent(na, 0.0);
    for (const auto& ep : done_eps) {
      double sum = 0;
      for (size_t a = 0; a < na && a < ep.agent_ret.size(); ++a) {
        sum += ep.agent_ret[a];
        agent[a] += ep.agent_ret[a] / static_cast<double>(K);
      }
      team.push_back(sum / static_cast<double>(na));
    }
    mean_std(team, mean, sd);
    m["team_return_mean"] = mean;
    m["team_return_std"] = sd;
    for (size_t a = 0; a < na; ++a) m["agent_return/" + list[a].name] = agent[a];
  }
  if (m.count("opf_gen_cost_usd") && m.count("policy_gen_cost_usd") && m["opf_gen_cost_usd"] > 0)
    m["opf_gap"] = m["policy_gen_cost_usd"] / m["opf_gen_cost_usd"] - 1.0;
  return m;
}

std::map<std::string, double> evaluate_with_reference(std::shared_ptr<const envs::Env> env,
                                                      const PolicyFn& policy, int n_episodes,
                                                      uint64_t eval_seed, double dt_hours,
                                                      const std::vector<double>& penalty,
                                                      core::ThreadPool& pool, Trajectories* traj,
                                                      const std::vector<double>& percentiles) {
  auto m = evaluate(env, policy, n_episodes, eval_seed, dt_hours, penalty, pool, traj, percentiles);
  const envs::EnvSpec& sp = env->spec();
  if (sp.reference_action.empty() || sp.episode_sum_names.empty()) return m;
  const std::vector<float> ref = sp.reference_action;
  const PolicyFn constant = [&ref](const float*, int n, float* a) {
    for (int i = 0; i < n; ++i)
      std::copy(ref.begin(), ref.end(), a + static_cast<size_t>(i) * ref.size());
  };
  const auto r = evaluate(env, constant, n_episodes, eval_seed, dt_hours, penalty, pool);
  for (size_t j = 0; j < sp.episode_sum_names.size() && j < sp.reduction_names.size(); ++j) {
    const std::string& name = sp.episode_sum_names[j];
    const double base = r.at(name);
    if (!sp.reduction_names[j].empty() && base != 0)
      m[sp.reduction_names[j]] = 100.0 * (1.0 - m[name] / base);
  }
  return m;
}

void check_finite_metrics(const std::map<std::string, double>& metrics, const std::string& what) {
  for (const auto& [k, v] : metrics)
    if (!std::isfinite(v)) {
      std::ostringstream os;
      os << v;
      throw core::RunError(what + ": non-finite metric " + k + " = " + os.str() +
                           " (every evaluation metric is finite for a finite env and policy; "
                           "check reward_scale, load_scale and the learner's learning rate)");
    }
}

void write_trajectories(io::RunFile& out, const std::string& group, const Trajectories& t) {
  const int64_t T = t.T, N = t.N;
  out.write_f32(group + "obs", {T, N, t.obs_dim}, t.obs.data());
  out.write_f32(group + "action", {T, N, t.act_dim}, t.action.data());
  // Multi-agent envs record one reward per agent: [T, N, n_agents].
  const int64_t na = T * N > 0 ? static_cast<int64_t>(t.reward.size()) / (T * N) : 1;
  if (na > 1)
    out.write_f32(group + "reward", {T, N, na}, t.reward.data());
  else
    out.write_f32(group + "reward", {T, N}, t.reward.data());
  out.write_f32(group + "costs", {T, N, t.n_costs}, t.costs.data());
  out.write_u8(group + "terminated", {T, N}, t.terminated.data());
  out.write_u8(group + "truncated", {T, N}, t.truncated.data());
  if (t.final_obs.size() == static_cast<size_t>(N * t.obs_dim))
    out.write_f32(group + "final_obs", {N, t.obs_dim}, t.final_obs.data());
  // One [T, N] dataset per traced quantity: info/<name>.
  const size_t nt = t.trace_names.size();
  if (nt > 0 && t.trace.size() == static_cast<size_t>(T * N) * nt) {
    std::vector<float> col(static_cast<size_t>(T * N));
    for (size_t j = 0; j < nt; ++j) {
      for (size_t r = 0; r < col.size(); ++r) col[r] = t.trace[r * nt + j];
      out.write_f32(group + "info/" + t.trace_names[j], {T, N}, col.data());
    }
  }
  // One [T, N, size] dataset per vector quantity.
  size_t w = 0;
  for (const auto& v : t.trace_vectors) w += static_cast<size_t>(v.size);
  if (w == 0 || t.trace_vec.size() != static_cast<size_t>(T * N) * w) return;
  size_t off = 0;
  for (const auto& v : t.trace_vectors) {
    const size_t n = static_cast<size_t>(v.size);
    std::vector<float> block(static_cast<size_t>(T * N) * n);
    for (size_t r = 0; r < static_cast<size_t>(T * N); ++r)
      std::copy_n(t.trace_vec.begin() + r * w + off, n, block.begin() + r * n);
    out.write_f32(group + "info/" + v.name, {T, N, v.size}, block.data());
    off += n;
  }
}

void write_network(io::RunFile& out, const envs::NetworkView& net) {
  if (net.bus_id.empty()) return;
  const int64_t nb = static_cast<int64_t>(net.bus_id.size());
  const int64_t nl = static_cast<int64_t>(net.branch_from.size());
  out.write_i32("network/bus_id", {nb}, net.bus_id.data());
  out.write_i32("network/branch_from_bus", {nl}, net.branch_from.data());
  out.write_i32("network/branch_to_bus", {nl}, net.branch_to.data());
  out.write_f32("network/branch_rate_mva", {nl}, net.branch_rate_mva.data());
}

}  // namespace pz::exp
