// VectorEnv implementation.
#include "powerzoo/vec/vector_env.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <span>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/params.hpp"

namespace pz::vec {

VectorEnv::VectorEnv(std::shared_ptr<const envs::Env> env, int n_envs, uint64_t seed,
                     uint64_t stream_base, core::ThreadPool& pool)
    : env_(std::move(env)), n_(n_envs), pool_(pool) {
  const auto& sp = env_->spec();
  const size_t k = sp.cost_names.size();
  obs.assign(static_cast<size_t>(n_) * sp.obs_dim, 0.0f);
  final_obs.assign(obs.size(), 0.0f);
  n_agents_ = sp.n_agents();
  if (n_agents_ > envs::Step::kMaxAgents)
    throw core::ConfigError("env " + sp.id + " declares " + std::to_string(n_agents_) +
                            " agents, at most " + std::to_string(envs::Step::kMaxAgents) +
                            " are supported");
  reward.assign(static_cast<size_t>(n_) * n_agents_, 0.0f);
  shaped_reward.assign(reward.size(), 0.0f);
  team_reward.assign(static_cast<size_t>(n_), 0.0f);
  costs.assign(static_cast<size_t>(n_) * k, 0.0f);
  terminated.assign(n_, 0);
  truncated.assign(n_, 0);
  info.assign(n_, envs::Info{});
  finished_flag_.assign(n_, 0);
  running_.assign(n_, fresh_stats(k));
  for (int i = 0; i < n_; ++i) {
    states_.push_back(env_->make_state());
    rngs_.emplace_back(seed, stream_base + static_cast<uint64_t>(i));
  }
}

EpisodeStats VectorEnv::fresh_stats(size_t n_costs) const {
  EpisodeStats ep;
  ep.cost_sum.assign(n_costs, 0.0);
  ep.violation_steps.assign(n_costs, 0);
  ep.agent_ret.assign(static_cast<size_t>(n_agents_), 0.0);
  return ep;
}

size_t VectorEnv::choose_blocks() {
  const size_t full = std::min<size_t>(pool_.size(), static_cast<size_t>(n_));
  if (full <= 1) return full;
  // Which thread steps an env never changes its result, so the split may follow the measured
  // cost: each step_all is timed, inline (one block) and on the pool have their own running
  // cost, the cheaper one is used, and every kRecheck steps the other is tried for two steps
  // (a change of cost, e.g. the episode phase or a busy machine, is seen). Only a step in the
  // same mode as the one before counts: the first pool step after inline ones finds the
  // workers asleep. Cheap envs whose hand-off costs more than it saves stay inline.
  ++steps_;
  if (inline_ns_ < 0 && steps_ <= 2) return 1;
  if (pool_ns_ < 0) return full;
  const bool pool_cheaper = pool_ns_ < inline_ns_;
  const bool recheck = steps_ % kRecheck < 2;
  return pool_cheaper != recheck ? full : 1;
}

void VectorEnv::reset_all(const envs::ResetOptions& opt) {
  const auto& sp = env_->spec();
  const size_t k = sp.cost_names.size();
  const size_t blocks = std::min<size_t>(pool_.size(), static_cast<size_t>(n_));
  pool_.run_blocks(blocks, [&](size_t b) {
    const int lo = static_cast<int>(b * n_ / blocks), hi = static_cast<int>((b + 1) * n_ / blocks);
    for (int i = lo; i < hi; ++i) {
      envs::ResetOptions o = opt;
      if (opt.episode >= 0) o.episode = opt.episode + i;
      env_->reset(*states_[i], rngs_[i],
                  std::span<float>(&obs[static_cast<size_t>(i) * sp.obs_dim], sp.obs_dim), o);
      running_[i] = fresh_stats(k);
      finished_flag_[i] = 0;
    }
  });
  finished_.clear();
}

void VectorEnv::step_all(const float* actions) {
  const auto& sp = env_->spec();
  const size_t k = sp.cost_names.size();
  const size_t od = sp.obs_dim;
  const size_t na = static_cast<size_t>(n_agents_);
  const size_t blocks = choose_blocks();
  const bool timed = pool_.size() > 1 && n_ > 1;
  const auto t0 = std::chrono::steady_clock::now();
  pool_.run_blocks(blocks, [&](size_t b) {
    const int lo = static_cast<int>(b * n_ / blocks), hi = static_cast<int>((b + 1) * n_ / blocks);
    for (int i = lo; i < hi; ++i) {
      float* o = &obs[i * od];
      float* c = &costs[i * k];
      if (!auto_reset_ && finished_flag_[i]) {
        std::fill_n(&reward[i * na], na, 0.0f);
        std::fill_n(&shaped_reward[i * na], na, 0.0f);
        team_reward[i] = 0.0f;
        std::fill(c, c + k, 0.0f);
        terminated[i] = truncated[i] = 0;
        continue;
      }
      const envs::Step st =
          env_->step(*states_[i], std::span<const float>(actions + i * sp.act_dim, sp.act_dim),
                     rngs_[i], std::span<float>(o, od), std::span<float>(c, k), &info[i]);
      const double shaped = st.learner_reward();
      EpisodeStats& ep = running_[i];
      for (size_t j = 0; j < k; ++j) {
        ep.cost_sum[j] += c[j];
        ep.violation_steps[j] += c[j] > 1e-6f;
      }
      if (na == 1) {
        reward[i] = st.reward;
        shaped_reward[i] = static_cast<float>(shaped);
        ep.agent_ret[0] += st.reward;
      } else {
        const bool is_shaped = !std::isnan(st.shaped_reward);
        for (size_t a = 0; a < na; ++a) {
          reward[i * na + a] = st.agent_reward[a];
          shaped_reward[i * na + a] = is_shaped ? st.agent_shaped[a] : st.agent_reward[a];
          ep.agent_ret[a] += st.agent_reward[a];
        }
      }
      team_reward[i] = st.reward;
      terminated[i] = st.terminated;
      truncated[i] = st.truncated && !st.terminated;
      ep.ret += st.reward;
      ep.shaped_ret += shaped;
      ep.gen_cost += info[i].gen_cost;
      for (int j = 0; j < envs::Info::kMaxSums; ++j) ep.sums[j] += info[i].sums[j];
      ep.length += 1;
      ep.safe_steps += info[i].is_safe;
      if (st.terminated || st.truncated) {
        ep.terminated = st.terminated;
        std::copy(o, o + od, &final_obs[i * od]);
        finished_flag_[i] = 1;
        if (auto_reset_) {
          env_->reset(*states_[i], rngs_[i], std::span<float>(o, od));
          finished_flag_[i] = 2;  // finished and reset in this step
        }
      }
    }
  });
  if (timed) {  // what a step of all envs costs, inline or on the pool
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    double& ema = blocks == 1 ? inline_ns_ : pool_ns_;
    if (blocks == last_blocks_) ema = ema < 0 ? ns : 0.75 * ema + 0.25 * ns;
    last_blocks_ = blocks;
  }
  // Collect finished episodes in env order (deterministic), outside the workers.
  finished_.clear();
  for (int i = 0; i < n_; ++i) {
    if (finished_flag_[i] == 0) continue;
    if (auto_reset_) {
      finished_.emplace_back(i, running_[i]);
      running_[i] = fresh_stats(k);
      finished_flag_[i] = 0;
    } else if (finished_flag_[i] == 1) {
      finished_.emplace_back(i, running_[i]);
      finished_flag_[i] = 3;  // reported; stays finished
    }
  }
}

void VectorEnv::save(core::StateDict& sd, const std::string& prefix) const {
  const size_t k = env_->spec().cost_names.size();
  std::vector<double> states, stats;
  std::vector<int64_t> offsets, rng_words;
  for (int i = 0; i < n_; ++i) {
    offsets.push_back(static_cast<int64_t>(states.size()));
    env_->save_state(*states_[i], states);
    const EpisodeStats& ep = running_[i];
    stats.insert(stats.end(), {ep.ret, ep.shaped_ret, ep.gen_cost, static_cast<double>(ep.length),
                               static_cast<double>(ep.safe_steps)});
    for (size_t j = 0; j < k; ++j) stats.push_back(ep.cost_sum[j]);
    for (size_t j = 0; j < k; ++j) stats.push_back(ep.violation_steps[j]);
    stats.insert(stats.end(), ep.sums, ep.sums + envs::Info::kMaxSums);
    if (n_agents_ > 1) stats.insert(stats.end(), ep.agent_ret.begin(), ep.agent_ret.end());
    for (uint64_t w : rngs_[i].state()) rng_words.push_back(static_cast<int64_t>(w));
  }
  sd.f64[prefix + "env_states"] = states;
  sd.i64[prefix + "env_state_offsets"] = offsets;
  sd.f64[prefix + "episode_stats"] = stats;
  // The width of the episode sums fixes the stats layout; stored so a build with another
  // Info::kMaxSums refuses the checkpoint by name instead of misreading it.
  sd.i64[prefix + "episode_sum_width"] = {envs::Info::kMaxSums};
  sd.i64[prefix + "rngs"] = rng_words;
  sd.f32[prefix + "obs"] = obs;
}

void VectorEnv::load(const core::StateDict& sd, const std::string& prefix) {
  const size_t k = env_->spec().cost_names.size();
  // Step counts of the running episodes (a damaged file may hold any double there).
  auto count = [](double x) {
    if (!(std::isfinite(x) && x == std::floor(x) && x >= 0 && x <= 1e9))
      throw core::ConfigError(
          "checkpoint: vector env episode statistics: expected a step count, "
          "found " +
          core::format_number(x));
    return static_cast<int>(x);
  };
  auto need = [&](auto& map, const std::string& name, const char* type) -> const auto& {
    auto it = map.find(prefix + name);
    if (it == map.end()) throw core::ConfigError(core::absent_entry(sd, prefix + name, type));
    return it->second;
  };
  const auto& states = need(sd.f64, "env_states", "float64");
  const auto& offsets = need(sd.i64, "env_state_offsets", "int64");
  const auto& stats = need(sd.f64, "episode_stats", "float64");
  const auto& rng_words = need(sd.i64, "rngs", "int64");
  const auto& o = need(sd.f32, "obs", "float32");
  // Checkpoints before the width was stored were written with 8 episode sums.
  const auto wit = sd.i64.find(prefix + "episode_sum_width");
  const int64_t width = wit == sd.i64.end() || wit->second.empty() ? 8 : wit->second[0];
  if (width != envs::Info::kMaxSums)
    throw core::ConfigError("checkpoint: vector env episode statistics hold " +
                            std::to_string(width) + " episode sums per env, this build keeps " +
                            std::to_string(envs::Info::kMaxSums) +
                            " (Info::kMaxSums changed): resume with the build that wrote it or "
                            "start a new run");
  const size_t base = 5 + 2 * k + envs::Info::kMaxSums;
  const size_t per_env = base + (n_agents_ > 1 ? static_cast<size_t>(n_agents_) : 0);
  if (static_cast<int>(offsets.size()) != n_ || stats.size() != per_env * n_ ||
      rng_words.size() != 4u * n_ || o.size() != obs.size())
    throw core::ConfigError(
        "checkpoint: vector env state is for a different number of envs or "
        "a different env (n_envs = " +
        std::to_string(offsets.size()) + ")");
  for (int i = 0; i < n_; ++i) {
    const size_t off = static_cast<size_t>(offsets[i]);
    if (off > states.size()) throw core::ConfigError("checkpoint: corrupt env state offsets");
    env_->load_state(*states_[i], std::span<const double>(states).subspan(off));
    const double* st = &stats[per_env * i];
    EpisodeStats& ep = running_[i];
    ep = EpisodeStats{};
    ep.ret = st[0];
    ep.shaped_ret = st[1];
    ep.gen_cost = st[2];
    ep.length = count(st[3]);
    ep.safe_steps = count(st[4]);
    ep.cost_sum.assign(st + 5, st + 5 + k);
    ep.violation_steps.assign(k, 0);
    for (size_t j = 0; j < k; ++j) ep.violation_steps[j] = count(st[5 + k + j]);
    std::copy(st + 5 + 2 * k, st + base, ep.sums);
    if (n_agents_ > 1)
      ep.agent_ret.assign(st + base, st + per_env);
    else
      ep.agent_ret = {ep.ret};
    std::array<uint64_t, 4> w;
    for (int j = 0; j < 4; ++j) w[j] = static_cast<uint64_t>(rng_words[4 * i + j]);
    rngs_[i].set_state(w);
    finished_flag_[i] = 0;
  }
  obs = o;
  finished_.clear();
}

}  // namespace pz::vec
