// PpoLearner as a Learner: collection of its own rollout and update with the dual step (the
// entries ppo, ppo_lagrangian and saute_ppo are in rl/ppo/ppo_entry.cpp).
#include <algorithm>
#include <memory>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/learner.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"
#include "powerzoo/rl/ppo/ppo_impl.hpp"

namespace pz::rl {

const std::string& PpoLearner::name() const { return impl_->collect.name; }

void PpoLearner::act(const float* obs, int n, core::Rng* rng, float* actions) {
  act(obs, n, rng, actions, nullptr, nullptr);
}

int PpoLearner::collect_steps() const { return impl_->cfg.rollout_length; }

const Rollout& PpoLearner::collected() const { return impl_->collect.ro; }

void PpoLearner::set_context(const std::string& name, const LearnerContext& ctx) {
  PpoCollect& c = impl_->collect;
  const size_t k = static_cast<size_t>(impl_->n_costs);
  if (k > 0 && (ctx.constraint_channels.size() != k || ctx.constraint_names.size() != k ||
                ctx.thresholds.size() != k || ctx.cost_scale.size() != k)) {
    throw core::ConfigError("PPO-Lagrangian learner has " + std::to_string(k) +
                            " cost critics but the context has " +
                            std::to_string(ctx.constraint_channels.size()) + " constraints");
  }
  c.name = name;
  c.horizon = ctx.horizon;
  c.channels.assign(ctx.constraint_channels.begin(), ctx.constraint_channels.begin() + k);
  c.names.assign(ctx.constraint_names.begin(), ctx.constraint_names.begin() + k);
  c.scale.assign(ctx.cost_scale.begin(), ctx.cost_scale.begin() + k);
  c.budget.resize(k);
  for (size_t j = 0; j < k; ++j) c.budget[j] = ctx.thresholds[j] / ctx.cost_scale[j];
  c.ro.resize(impl_->cfg.rollout_length, ctx.n_envs, impl_->obs_dim, impl_->act_dim,
              impl_->n_costs);
  c.t = 0;
  if (!ctx.act_low.empty() || !ctx.act_high.empty()) set_action_box(ctx.act_low, ctx.act_high);
  if (impl_->cfg.bounded_mean && impl_->mean_half.empty())
    throw core::ConfigError(
        "[ppo] bounded_mean = true needs the env's action box; the env has none");
  set_pool(ctx.pool);
}

void PpoLearner::collect_act(const float* obs, int n, core::Rng& rng, float* actions) {
  Impl& s = *impl_;
  PpoCollect& c = s.collect;
  Rollout& ro = c.ro;
  if (c.t == 0) {
    if (ro.N != n || ro.T != s.cfg.rollout_length)
      ro.resize(s.cfg.rollout_length, n, s.obs_dim, s.act_dim, s.n_costs);
    c.ep_cost.assign(s.n_costs, 0.0);
    c.episodes = 0;
  }
  if (n != ro.N)
    throw core::ConfigError("PPO collect_act: expected " + std::to_string(ro.N) + " envs, found " +
                            std::to_string(n));
  const size_t tn = static_cast<size_t>(c.t) * n;
  float* obs_t = &ro.obs[tn * s.obs_dim];
  std::copy(obs, obs + static_cast<size_t>(n) * s.obs_dim, obs_t);
  act(obs_t, n, &rng, actions, &ro.logp[tn], &ro.values[tn], &ro.actions[tn * s.act_dim]);
}

void PpoLearner::observe(const core::StepView& st) {
  Impl& s = *impl_;
  PpoCollect& c = s.collect;
  Rollout& ro = c.ro;
  const int N = st.n, K = s.n_costs;
  if (N != ro.N || st.obs_dim != s.obs_dim || st.n_agents != 1 || c.t >= ro.T)
    throw core::ConfigError("PPO observe: step of " + std::to_string(N) + " envs x " +
                            std::to_string(st.n_agents) + " agents, obs_dim " +
                            std::to_string(st.obs_dim) + " does not match the rollout");
  const size_t od = s.obs_dim, t = c.t, nc = st.n_costs;
  for (int i = 0; i < N; ++i) ro.dones[t * N + i] = st.terminated[i] | st.truncated[i];
  process_rewards(st.shaped_reward, &ro.dones[t * N], N, &ro.rewards[t * N]);
  for (int i = 0; i < N; ++i) {
    ro.truncated[t * N + i] = st.truncated[i];
    for (int j = 0; j < K; ++j)
      ro.costs[(t * N + i) * K + j] =
          static_cast<float>(st.costs[i * nc + c.channels[j]] / c.scale[j]);
    if (ro.dones[t * N + i])
      std::copy(&st.final_obs[i * od], &st.final_obs[(i + 1) * od],
                &ro.final_obs[(t * N + i) * od]);
  }
  for (const core::EpisodeEnd& ep : st.finished) {
    for (int j = 0; j < K; ++j) c.ep_cost[j] += ep.cost_sum[c.channels[j]] / c.scale[j];
    c.episodes += K > 0 ? 1 : 0;
  }
  if (++c.t == ro.T) std::copy(st.next_obs, st.next_obs + N * od, ro.next_obs.begin());
}

std::map<std::string, double> PpoLearner::update_policy(core::Rng& rng) {
  Impl& s = *impl_;
  PpoCollect& c = s.collect;
  const Rollout& ro = c.ro;
  if (c.t != ro.T || ro.T == 0)
    throw core::RunError("PPO update: the rollout has " + std::to_string(c.t) + " of " +
                         std::to_string(ro.T) + " steps");
  c.t = 0;
  return update(ro, rng);
}

std::vector<std::map<std::string, double>> PpoLearner::update_policies(
    const std::vector<PpoLearner*>& learners, const std::vector<core::Rng*>& rngs,
    core::ThreadPool* pool) {
  std::vector<const Rollout*> rollouts;
  for (PpoLearner* l : learners) {
    PpoCollect& c = l->impl_->collect;
    if (c.t != c.ro.T || c.ro.T == 0)
      throw core::RunError("PPO update: the rollout has " + std::to_string(c.t) + " of " +
                           std::to_string(c.ro.T) + " steps");
    rollouts.push_back(&c.ro);
  }
  for (PpoLearner* l : learners) l->impl_->collect.t = 0;
  return update_many(learners, rollouts, rngs, pool);
}

std::map<std::string, double> PpoLearner::update(core::Rng& rng) {
  Impl& s = *impl_;
  PpoCollect& c = s.collect;
  const Rollout& ro = c.ro;
  auto metrics = update_policy(rng);
  const int K = s.n_costs;
  if (K > 0) {
    // Dual step (PPO-Lagrangian, Ray, Achiam & Amodei 2019, as PowerZooJax's cmdp.py) with Ĵ_C =
    // mean scaled cost of the episodes that finished in this rollout; if none finished, the
    // reference's estimate mean per-step cost × horizon.
    std::vector<double> j_c(K);
    for (int j = 0; j < K; ++j) {
      if (c.episodes > 0) {
        j_c[j] = c.ep_cost[j] / c.episodes;
      } else {
        double sum = 0;
        for (size_t i = 0; i < static_cast<size_t>(ro.T) * ro.N; ++i) sum += ro.costs[i * K + j];
        j_c[j] = sum / (static_cast<double>(ro.T) * ro.N) * c.horizon;
      }
    }
    const auto lam = dual_update(j_c, c.budget);
    for (int j = 0; j < K; ++j) {
      metrics["lambda/" + c.names[j]] = lam[j];
      metrics["safety/episode_cost_est/" + c.names[j]] = j_c[j];
    }
  }
  return metrics;
}

std::map<std::string, double> PpoLearner::status() const {
  std::map<std::string, double> out;
  const auto lam = lambdas();
  for (size_t j = 0; j < lam.size() && j < impl_->collect.names.size(); ++j)
    out["lambda/" + impl_->collect.names[j]] = lam[j];
  return out;
}

}  // namespace pz::rl
