// Spec → learner: Safe-RL view, learner env (Sauté wrapping), learner context and factory call.
#include "powerzoo/exp/learners.hpp"

#include <cmath>
#include <sstream>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/saute.hpp"
#include "powerzoo/exp/build.hpp"
#include "powerzoo/rl/ippo.hpp"

namespace pz::exp {
namespace {

std::string fmt_bound(float x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::ostringstream o;
  o << x;
  return o.str();
}

}  // namespace

SafetyView safety_view(const Spec& spec, const envs::EnvSpec& env_spec) {
  SafetyView v;
  const auto& sf = spec.safety;
  const size_t k = sf.constraints.size();
  for (const auto& name : sf.constraints) {
    int idx = -1;
    for (size_t c = 0; c < env_spec.cost_names.size(); ++c)
      if (env_spec.cost_names[c] == name) idx = static_cast<int>(c);
    if (idx < 0) {
      std::string known;
      for (const auto& n : env_spec.cost_names) known += (known.empty() ? "" : ", ") + n;
      const std::string hint = core::did_you_mean(name, env_spec.cost_names);
      throw core::ConfigError((spec.source_path.empty() ? "spec" : spec.source_path) +
                              ": [safety] constraints: expected a cost channel of " + env_spec.id +
                              " (" + (known.empty() ? "none" : known) + "), found '" +
                              core::echo(name) + "'" +
                              (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    v.channels.push_back(idx);
    v.names.push_back(name);
  }
  v.thresholds = sf.thresholds.empty() ? std::vector<double>(k, 0.0) : sf.thresholds;
  if (sf.cost_scale.empty())
    v.cost_scale.assign(k, 1.0);
  else if (sf.cost_scale.size() == 1)
    v.cost_scale.assign(k, sf.cost_scale[0]);
  else
    v.cost_scale = sf.cost_scale;
  return v;
}

std::shared_ptr<const envs::Env> make_learner_env(const Spec& spec, const std::string& split,
                                                  bool training) {
  auto env = make_env(spec, split);
  if (spec.ppo.algo != rl::Algo::kSautePpo) return env;
  // Sauté-PPO (rl.md §2.9): train with reward shaping, evaluate with it off (budget obs kept).
  const SafetyView sv = safety_view(spec, env->spec());
  return std::make_shared<const envs::SauteEnv>(
      env, sv.channels, sv.thresholds, env->spec().horizon, spec.ppo.saute_unsafe_reward, training);
}

int learner_cost_channels(const Spec& spec) {
  return spec.ppo.algo == rl::Algo::kPpoLagrangian || spec.ppo.algo == rl::Algo::kIppoLagrangian
             ? static_cast<int>(spec.safety.constraints.size())
             : 0;
}

void check_batching(const Spec& spec) {
  if (spec.ppo.algo == rl::Algo::kSac) {  // replay minibatches: [sac] batch_size
    // Both ran to the end with exit 0 and never took a gradient step.
    if (spec.sac.learning_starts >= spec.ppo.total_steps)
      throw core::ConfigError(spec.at("sac.learning_starts") +
                              "[sac] learning_starts: expected fewer transitions than "
                              "[ppo] total_steps = " +
                              std::to_string(spec.ppo.total_steps) +
                              " (else no update runs), found " +
                              std::to_string(spec.sac.learning_starts));
    if (spec.sac.batch_size > spec.sac.buffer_size)
      throw core::ConfigError(spec.at("sac.batch_size") +
                              "[sac] batch_size: expected at most [sac] buffer_size = " +
                              std::to_string(spec.sac.buffer_size) + " transitions, found " +
                              std::to_string(spec.sac.batch_size));
    return;
  }
  const int N = spec.vec.n_envs, n_mb = spec.ppo.n_minibatches;
  if (N % n_mb != 0)
    throw core::ConfigError(spec.at("ppo.n_minibatches") +
                            "[ppo] n_minibatches: expected a divisor of "
                            "[vec] n_envs = " +
                            std::to_string(N) + ", found " + std::to_string(n_mb));
  // Training runs whole iterations of n_envs × rollout_length steps; a budget below one
  // iteration trained more than it asked for.
  const int64_t per_iter = static_cast<int64_t>(N) * spec.ppo.rollout_length;
  if (spec.ppo.total_steps < per_iter)
    throw core::ConfigError(spec.at("ppo.total_steps") +
                            "[ppo] total_steps: expected at least one iteration, [vec] n_envs × "
                            "[ppo] rollout_length = " +
                            std::to_string(per_iter) + " steps, found " +
                            std::to_string(spec.ppo.total_steps));
}

void check_action_box(const Spec& spec, const envs::EnvSpec& env_spec) {
  const bool beta = spec.ppo.policy == rl::Policy::kBeta;
  const bool sac = spec.ppo.algo == rl::Algo::kSac;
  if (!beta && !sac) return;
  if (beta && spec.ppo.algo == rl::Algo::kIppo)
    throw core::ConfigError(spec.at("ppo.policy") +
                            "[ppo] policy = \"beta\": ippo supports the Gaussian policy only "
                            "(expected \"gaussian\")");
  // Both map a bounded distribution onto the box: low + u·(high − low), loc + scale·tanh(u).
  for (int d = 0; d < env_spec.act_dim; ++d) {
    const float lo = env_spec.act_low.at(d), hi = env_spec.act_high.at(d);
    if (std::isfinite(lo) && std::isfinite(hi) && hi > lo) continue;
    const std::string what = beta ? "[ppo] policy = \"beta\"" : "[ppo] algo = \"sac\"";
    throw core::ConfigError(spec.at(beta ? "ppo.policy" : "ppo.algo") + what +
                            ": expected an env with a bounded action box, found action " +
                            std::to_string(d) + " of " + env_spec.id + " in [" + fmt_bound(lo) +
                            ", " + fmt_bound(hi) + "]");
  }
}

std::string learner_name(const Spec& spec) { return rl::algo_name(spec.ppo.algo); }

rl::LearnerContext learner_context(const Spec& spec, const envs::EnvSpec& env_spec, int n_envs) {
  rl::LearnerContext ctx;
  ctx.obs_dim = env_spec.obs_dim;
  ctx.act_dim = env_spec.act_dim;
  ctx.n_envs = n_envs;
  ctx.horizon = env_spec.horizon;
  ctx.act_low = env_spec.act_low;
  ctx.act_high = env_spec.act_high;
  for (const auto& a : env_spec.agents)
    ctx.agents.push_back(
        rl::AgentSlice{a.name, a.obs.offset, a.obs.size, a.act.offset, a.act.size});
  ctx.ppo = spec.ppo;
  ctx.ippo = spec.ippo;
  ctx.sac = spec.sac;
  // Resolved for every learner (a bad [safety] name is bad input even for plain PPO); only
  // ppo_lagrangian turns them into cost critics.
  const SafetyView sv = safety_view(spec, env_spec);
  ctx.constraint_channels = sv.channels;
  ctx.constraint_names = sv.names;
  ctx.thresholds = sv.thresholds;
  ctx.cost_scale = sv.cost_scale;
  return ctx;
}

std::unique_ptr<rl::Learner> make_spec_learner(const Spec& spec, const envs::EnvSpec& env_spec,
                                               int n_envs, core::Rng& init_rng,
                                               core::ThreadPool* pool) {
  rl::LearnerContext ctx = learner_context(spec, env_spec, n_envs);
  ctx.pool = pool;
  check_action_box(spec, env_spec);
  if (spec.ppo.algo == rl::Algo::kIppo || spec.ppo.algo == rl::Algo::kIppoLagrangian) {
    // The grouping is bad input of [ippo] sharing (mismatched sizes in one group), found here
    // because only the env knows its agents.
    try {
      rl::ippo_groups(ctx.agents, spec.ippo.sharing, ctx.obs_dim, ctx.act_dim);
    } catch (const core::ConfigError& e) {
      throw core::ConfigError(spec.at("ippo.sharing") + "[ippo] sharing: " + e.what());
    }
  }
  try {
    return rl::make_learner(learner_name(spec), ctx, init_rng);
  } catch (const core::ConfigError& e) {
    throw core::ConfigError((spec.source_path.empty() ? "spec" : spec.source_path) +
                            ": [ppo] algo: " + e.what());
  }
}

}  // namespace pz::exp
