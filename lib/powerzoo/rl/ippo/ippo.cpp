// IPPO learner (de Witt et al. 2020, arXiv:2011.09533, as PowerZooJax's ippo.py): agents
// partitioned into parameter groups, one PpoLearner per group over the group's (env, agent)
// columns; per-agent GAE with the team done; IPPO-Lagrangian's team duals; registration "ippo" and
// "ippo_lagrangian".
#include "powerzoo/rl/ippo/ippo.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/rl/ppo/lagrangian.hpp"
#include "powerzoo/rl/ppo/ppo_entry.hpp"

namespace pz::rl {

std::vector<AgentGroup> ippo_groups(const std::vector<AgentSlice>& agents, Sharing sharing,
                                    int obs_dim, int act_dim) {
  std::vector<AgentSlice> list = agents;
  if (list.empty()) list.push_back(AgentSlice{"agent", 0, obs_dim, 0, act_dim});
  std::vector<AgentGroup> out;
  auto add = [&](const std::string& name, int a) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const AgentGroup& g) { return g.name == name; });
    if (it == out.end()) {
      out.push_back(AgentGroup{name, {}, list[a].obs_dim, list[a].act_dim});
      it = out.end() - 1;
    }
    if (list[a].obs_dim != it->obs_dim || list[a].act_dim != it->act_dim) {
      const AgentSlice& first = list[it->agents.front()];
      throw core::ConfigError(
          "group '" + name + "' shares one network between agents of different sizes: '" +
          first.name + "' has obs " + std::to_string(first.obs_dim) + ", act " +
          std::to_string(first.act_dim) + "; '" + list[a].name + "' has obs " +
          std::to_string(list[a].obs_dim) + ", act " + std::to_string(list[a].act_dim));
    }
    it->agents.push_back(a);
  };
  for (int a = 0; a < static_cast<int>(list.size()); ++a) {
    switch (sharing) {
      case Sharing::kFull:
        add("all", a);
        break;
      case Sharing::kTyped:
        add(list[a].name.substr(0, list[a].name.find('_')), a);
        break;
      case Sharing::kIndependent:
        add(list[a].name, a);
        break;
    }
  }
  // Typed groups in sorted type order (the reference's sorted type list); the others keep the
  // agent order they were built in.
  if (sharing == Sharing::kTyped)
    std::sort(out.begin(), out.end(),
              [](const AgentGroup& x, const AgentGroup& y) { return x.name < y.name; });
  return out;
}

namespace {

/// Group-side buffers of one group: its agents' rows of the env arrays, row i·A_g + k.
struct GroupBuffers {
  std::vector<float> obs, act, reward, shaped, final_obs, next_obs, costs;
  std::vector<uint8_t> terminated, truncated;
};

/// The action box of group g's network ([ppo] bounded_mean maps its mean into it): its agents'
/// slices of the env's box, which must agree, as one network serves them all.
void group_box(const LearnerContext& ctx, const std::vector<AgentSlice>& agents,
               const AgentGroup& g, LearnerContext& sub) {
  const AgentSlice& first = agents[g.agents[0]];
  auto slice = [&](const std::vector<float>& v, const AgentSlice& a) {
    return std::vector<float>(v.begin() + a.act_offset, v.begin() + a.act_offset + a.act_dim);
  };
  sub.act_low = slice(ctx.act_low, first);
  sub.act_high = slice(ctx.act_high, first);
  for (int k : g.agents)
    if (slice(ctx.act_low, agents[k]) != sub.act_low ||
        slice(ctx.act_high, agents[k]) != sub.act_high)
      throw core::ConfigError("[ppo] bounded_mean: IPPO group '" + g.name +
                              "' shares one network "
                              "between agents '" +
                              first.name + "' and '" + agents[k].name +
                              "', whose action boxes differ; expected one box per group");
}

}  // namespace

struct IppoLearner::Impl {
  std::string name = "ippo";
  int obs_dim = 0, act_dim = 0, n_envs = 0, rollout_length = 0;
  std::vector<AgentSlice> agents;  // resolved list (never empty)
  std::vector<AgentGroup> groups;
  std::vector<PpoLearner> learners;
  std::vector<GroupBuffers> buf;
  core::ThreadPool* pool = nullptr;
  // IPPO-Lagrangian (PowerZooJax's ippo_typed_lagrangian): every group's cost critics learn the
  // team costs; one team dual per constraint, moved once per update from the team's episodes.
  int n_costs = 0, horizon = 0;
  std::vector<int> channels;
  std::vector<std::string> cost_names;
  std::vector<double> scale, budget;
  LagrangeDuals duals;
  std::vector<double> ep_cost, step_cost;  // Σ scaled episode / per-step costs of the rollout
  int episodes = 0;
  double cost_samples = 0;

  /// Rows [n·A_g, width] of src [n, stride] at column offset(agent index) for g's agents.
  template <class T, class Off>
  void gather(const AgentGroup& g, const T* src, int n, int stride, int width, Off offset,
              std::vector<T>& dst) const {
    const size_t ag = g.agents.size();
    dst.resize(static_cast<size_t>(n) * ag * width);
    for (int i = 0; i < n; ++i)
      for (size_t k = 0; k < ag; ++k)
        std::copy_n(src + static_cast<size_t>(i) * stride + offset(g.agents[k]), width,
                    &dst[(i * ag + k) * width]);
  }
  // Each group acts on its agents' observation rows (n · A_g of them) and writes their actions
  // back into the env's action rows; act_rows(learner, obs, rows, act) is the group's call.
  template <class ActRows>
  void act_by_group(const float* obs, int n, float* actions, ActRows act_rows) {
    for (size_t g = 0; g < groups.size(); ++g) {
      GroupBuffers& b = buf[g];
      const AgentGroup& grp = groups[g];
      gather_obs(grp, obs, n, b.obs);
      const int rows = n * static_cast<int>(grp.agents.size());
      b.act.resize(static_cast<size_t>(rows) * grp.act_dim);
      act_rows(learners[g], b.obs.data(), rows, b.act.data());
      scatter_act(grp, b.act.data(), n, actions);
    }
  }
  void gather_obs(const AgentGroup& g, const float* obs, int n, std::vector<float>& dst) const {
    gather(
        g, obs, n, obs_dim, g.obs_dim, [&](int a) { return agents[a].obs_offset; }, dst);
  }
  /// Writes group g's actions [n·A_g, act_g] back into the env actions [n, act_dim].
  void scatter_act(const AgentGroup& g, const float* src, int n, float* actions) const {
    const size_t ag = g.agents.size();
    for (int i = 0; i < n; ++i)
      for (size_t k = 0; k < ag; ++k)
        std::copy_n(src + (i * ag + k) * g.act_dim, g.act_dim,
                    actions + static_cast<size_t>(i) * act_dim + agents[g.agents[k]].act_offset);
  }
  void reset_costs() {
    std::fill(ep_cost.begin(), ep_cost.end(), 0.0);
    std::fill(step_cost.begin(), step_cost.end(), 0.0);
    episodes = 0;
    cost_samples = 0;
  }
};

IppoLearner::IppoLearner(const LearnerContext& ctx, core::Rng& init_rng, bool lagrangian)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  if (lagrangian) {
    s.name = "ippo_lagrangian";
    s.n_costs = static_cast<int>(ctx.constraint_channels.size());
    if (s.n_costs == 0)
      throw core::ConfigError("ippo_lagrangian needs [safety] constraints (the team costs)");
    s.channels = ctx.constraint_channels;
    s.cost_names = ctx.constraint_names;
    s.scale = ctx.cost_scale;
    for (int j = 0; j < s.n_costs; ++j) s.budget.push_back(ctx.thresholds[j] / ctx.cost_scale[j]);
    s.horizon = ctx.horizon;
    s.duals = LagrangeDuals(s.n_costs, ppo_config(ctx));
    s.ep_cost.assign(s.n_costs, 0.0);
    s.step_cost.assign(s.n_costs, 0.0);
  }
  s.obs_dim = ctx.obs_dim;
  s.act_dim = ctx.act_dim;
  s.n_envs = ctx.n_envs;
  s.rollout_length = ctx.rollout_length;
  s.pool = ctx.pool;
  s.agents = ctx.agents;
  if (s.agents.empty()) s.agents.push_back(AgentSlice{"agent", 0, ctx.obs_dim, 0, ctx.act_dim});
  const IppoConfig icfg = ippo_config(ctx);
  s.groups = ippo_groups(s.agents, icfg.sharing, ctx.obs_dim, ctx.act_dim);
  PpoConfig cfg = ppo_config(ctx);
  // A group's agents may have different action boxes; the Beta policy maps one box per network.
  if (cfg.policy == Policy::kBeta)
    throw core::ConfigError("ippo supports the Gaussian policy only, found policy = \"beta\"");
  if (icfg.full_batch) {
    // The reference's IPPO does not normalize advantages; its Lagrangian variant normalizes
    // A_R and each A_C over the batch (here: each group's full batch).
    cfg.n_minibatches = 1;
    cfg.normalize_advantages = lagrangian;
  }
  cfg.cost_critic = icfg.cost_critic;
  for (const AgentGroup& g : s.groups) {
    const int cols = ctx.n_envs * static_cast<int>(g.agents.size());
    if (cols % cfg.n_minibatches != 0)
      throw core::ConfigError("IPPO group '" + g.name + "' has " + std::to_string(cols) +
                              " (env, agent) columns; n_minibatches = " +
                              std::to_string(cfg.n_minibatches) + " must divide them");
    PpoLearner l(g.obs_dim, g.act_dim, cfg, init_rng, s.n_costs);
    LearnerContext sub;
    sub.obs_dim = g.obs_dim;
    sub.act_dim = g.act_dim;
    sub.n_envs = cols;
    sub.horizon = ctx.horizon;
    sub.rollout_length = cfg.rollout_length;
    sub.pool = ctx.pool;
    if (lagrangian) {
      sub.constraint_channels = ctx.constraint_channels;
      sub.constraint_names = ctx.constraint_names;
      sub.thresholds = ctx.thresholds;
      sub.cost_scale = ctx.cost_scale;
    }
    if (cfg.bounded_mean && !ctx.act_low.empty()) group_box(ctx, s.agents, g, sub);
    l.set_context(s.name, sub);
    l.set_max_block_rows(kIppoBlockRows);
    s.learners.push_back(std::move(l));
  }
  s.buf.resize(s.groups.size());
}

IppoLearner::~IppoLearner() = default;

const std::string& IppoLearner::name() const { return impl_->name; }

int IppoLearner::collect_steps() const { return impl_->rollout_length; }

const std::vector<AgentGroup>& IppoLearner::groups() const { return impl_->groups; }

PpoLearner& IppoLearner::group_learner(int g) { return impl_->learners.at(g); }

void IppoLearner::act(const float* obs, int n, core::Rng* rng, float* actions) {
  impl_->act_by_group(obs, n, actions, [&](PpoLearner& l, const float* o, int rows, float* a) {
    l.act(o, rows, rng, a);
  });
}

void IppoLearner::collect_act(const float* obs, int n, core::Rng& rng, float* actions) {
  impl_->act_by_group(obs, n, actions, [&](PpoLearner& l, const float* o, int rows, float* a) {
    l.collect_act(o, rows, rng, a);
  });
}

void IppoLearner::observe(const core::StepView& st) {
  Impl& s = *impl_;
  const int N = st.n, A = static_cast<int>(s.agents.size());
  if (st.n_agents != A || st.obs_dim != s.obs_dim)
    throw core::ConfigError("IPPO observe: step of " + std::to_string(st.n_agents) +
                            " agents, obs_dim " + std::to_string(st.obs_dim) + "; learner has " +
                            std::to_string(A) + " agents, obs_dim " + std::to_string(s.obs_dim));
  for (size_t g = 0; g < s.groups.size(); ++g) {
    GroupBuffers& b = s.buf[g];
    const AgentGroup& grp = s.groups[g];
    const size_t ag = grp.agents.size();
    // Agent k of the group reads reward column agents[k] of [N, A]; the done flags are the team's.
    auto agent_col = [](int a) { return a; };
    s.gather(grp, st.reward, N, A, 1, agent_col, b.reward);
    s.gather(grp, st.shaped_reward, N, A, 1, agent_col, b.shaped);
    auto zero = [](int) { return 0; };
    s.gather(grp, st.terminated, N, 1, 1, zero, b.terminated);
    s.gather(grp, st.truncated, N, 1, 1, zero, b.truncated);
    s.gather_obs(grp, st.final_obs, N, b.final_obs);
    s.gather_obs(grp, st.next_obs, N, b.next_obs);
    core::StepView v;
    v.n = N * static_cast<int>(ag);
    v.obs_dim = grp.obs_dim;
    v.act_dim = grp.act_dim;
    // IPPO has no cost critics ([reward] penalties arrive in shaped_reward); IPPO-Lagrangian's
    // see the team's cost row at each of the group's (env, agent) columns. Its episodes (for
    // the dual) are counted here, once for the team, so the groups get none.
    v.n_costs = 0;
    if (s.n_costs > 0) {
      s.gather(grp, st.costs, N, st.n_costs, st.n_costs, zero, b.costs);
      v.n_costs = st.n_costs;
      v.costs = b.costs.data();
    }
    v.n_agents = 1;
    v.t = st.t;
    v.global_step = st.global_step;
    // v.obs and v.actions stay null: the group's learner stored both in collect_act.
    v.reward = b.reward.data();
    v.shaped_reward = b.shaped.data();
    v.terminated = b.terminated.data();
    v.truncated = b.truncated.data();
    v.final_obs = b.final_obs.data();
    v.next_obs = b.next_obs.data();
    s.learners[g].observe(v);
  }
  for (int j = 0; j < s.n_costs; ++j) {
    for (int i = 0; i < N; ++i)
      s.step_cost[j] += st.costs[static_cast<size_t>(i) * st.n_costs + s.channels[j]] / s.scale[j];
    for (const core::EpisodeEnd& ep : st.finished)
      s.ep_cost[j] += ep.cost_sum[s.channels[j]] / s.scale[j];
  }
  if (s.n_costs > 0) {
    s.episodes += static_cast<int>(st.finished.size());
    s.cost_samples += N;
  }
}

std::map<std::string, double> IppoLearner::update(core::Rng& rng) {
  Impl& s = *impl_;
  const size_t G = s.groups.size();
  // One shuffle stream per group, drawn in group order before any group runs.
  std::vector<core::Rng> shuffle;
  for (size_t g = 0; g < G; ++g) shuffle.emplace_back(rng.next_u64(), g);
  std::vector<std::map<std::string, double>> res(G);
  // IPPO-Lagrangian: the groups update with the team λ (set on each after the last dual step)
  // and do no dual step of their own (plain IPPO's groups have no costs, so update_policy is
  // their whole update). The groups' phases run side by side (PpoLearner::update_policies).
  const bool team_dual = s.n_costs > 0;
  std::vector<PpoLearner*> ls;
  std::vector<core::Rng*> rngs;
  for (size_t g = 0; g < G; ++g) ls.push_back(&s.learners[g]), rngs.push_back(&shuffle[g]);
  res = PpoLearner::update_policies(ls, rngs, s.pool);
  std::map<std::string, double> out;
  if (G == 1) {
    out = res[0];
  } else {
    for (size_t g = 0; g < G; ++g) {
      for (const auto& [k, v] : res[g]) out[k] += v / static_cast<double>(G);
      const std::string p = "group/" + s.groups[g].name + "/";
      out[p + "losses/total"] = res[g]["losses/total"];
      out[p + "grad_norm"] = res[g]["grad_norm"];
    }
  }
  if (team_dual) {
    // Ĵ_C: mean scaled cost of the team's episodes that ended in the rollout; if none ended,
    // mean per-step cost × horizon (as PpoLearner).
    std::vector<double> j_c(s.n_costs);
    for (int j = 0; j < s.n_costs; ++j)
      j_c[j] = s.episodes > 0 ? s.ep_cost[j] / s.episodes
                              : s.step_cost[j] / std::max(s.cost_samples, 1.0) * s.horizon;
    const auto lam = s.duals.update(j_c, s.budget);
    for (auto& l : s.learners) l.set_log_lambdas(s.duals.log_lambdas());
    for (int j = 0; j < s.n_costs; ++j) {
      out["lambda/" + s.cost_names[j]] = lam[j];
      out["safety/episode_cost_est/" + s.cost_names[j]] = j_c[j];
    }
    s.reset_costs();
  }
  return out;
}

std::map<std::string, double> IppoLearner::status() const {
  std::map<std::string, double> out;
  const auto lam = impl_->duals.lambdas();
  for (size_t j = 0; j < lam.size(); ++j) out["lambda/" + impl_->cost_names[j]] = lam[j];
  return out;
}

const std::vector<double>& IppoLearner::log_lambdas() const { return impl_->duals.log_lambdas(); }

namespace {

const std::string kPrefix = "learner/";

std::string group_prefix(size_t g) { return kPrefix + "group/" + std::to_string(g) + "/"; }

/// Copies the entries of `from` under prefix `a` into `to` under prefix `b`.
void move_prefix(const core::StateDict& from, const std::string& a, const std::string& b,
                 core::StateDict& to) {
  auto copy = [&](const auto& src, auto& dst) {
    for (const auto& [k, v] : src)
      if (k.starts_with(a)) dst[b + k.substr(a.size())] = v;
  };
  copy(from.f32, to.f32);
  copy(from.f64, to.f64);
  copy(from.i64, to.i64);
  copy(from.str, to.str);
}

std::vector<int64_t> partition(const std::vector<AgentGroup>& groups) {
  std::vector<int64_t> p;
  for (const AgentGroup& g : groups) {
    p.push_back(static_cast<int64_t>(g.agents.size()));
    p.insert(p.end(), g.agents.begin(), g.agents.end());
  }
  return p;
}

}  // namespace

void IppoLearner::trainable_parameters(std::vector<std::span<const float>>& out) const {
  for (const auto& l : impl_->learners) l.trainable_parameters(out);
}

void IppoLearner::save(core::StateDict& sd) const {
  const Impl& s = *impl_;
  sd.i64[kPrefix + "ippo/groups"] = partition(s.groups);
  s.duals.save(sd, kPrefix + "ippo/");
  for (size_t g = 0; g < s.learners.size(); ++g) {
    core::StateDict one;
    s.learners[g].save(one);
    move_prefix(one, kPrefix, group_prefix(g), sd);
  }
}

void IppoLearner::load(const core::StateDict& sd) {
  Impl& s = *impl_;
  auto it = sd.i64.find(kPrefix + "ippo/groups");
  if (it == sd.i64.end() || it->second != partition(s.groups))
    throw core::ConfigError(
        "checkpoint: IPPO parameter groups (sharing, agents) do not match this learner");
  // A failed group load leaves that group unchanged; the groups loaded before it are restored
  // from their previous state, so a failed load changes nothing.
  LagrangeDuals duals = s.duals;
  duals.load(sd, kPrefix + "ippo/");  // validates before anything changes
  std::vector<core::StateDict> before(s.learners.size());
  for (size_t g = 0; g < s.learners.size(); ++g) s.learners[g].save(before[g]);
  size_t g = 0;
  try {
    for (; g < s.learners.size(); ++g) {
      core::StateDict one;
      move_prefix(sd, group_prefix(g), kPrefix, one);
      s.learners[g].load(one);
    }
  } catch (const core::ConfigError& e) {
    for (size_t j = 0; j < g; ++j) s.learners[j].load(before[j]);
    throw core::ConfigError("checkpoint: IPPO group '" + s.groups[g].name + "': " + e.what());
  }
  s.duals = duals;
  s.reset_costs();  // checkpoints are written between updates
}

}  // namespace pz::rl
