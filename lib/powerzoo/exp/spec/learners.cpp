// Spec → learner: Safe-RL view, learner env (Sauté wrapping), learner context and factory call.
#include "powerzoo/exp/spec/learners.hpp"

#include <cmath>
#include <sstream>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/rl/learner_registry.hpp"

namespace pz::exp {
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
  const rl::LearnerEntry& e = rl::learner_entry(spec.learner.algo);
  if (!e.wrap_env) return env;
  return e.wrap_env(env, learner_context(spec, env->spec(), spec.vec.n_envs), training);
}

bool learner_uses_constraints(const Spec& spec) {
  return rl::learner_entry(spec.learner.algo).uses_constraints;
}

void check_training(const Spec& spec) {
  const rl::LearnerEntry& e = rl::learner_entry(spec.learner.algo);
  if (e.check_training) e.check_training(spec_learner_context(spec));
}

const std::string& learner_name(const Spec& spec) { return spec.learner.algo; }

rl::LearnerContext learner_context(const Spec& spec, const envs::EnvSpec& env_spec, int n_envs) {
  rl::LearnerContext ctx = spec_learner_context(spec);
  ctx.obs_dim = env_spec.obs_dim;
  ctx.act_dim = env_spec.act_dim;
  ctx.n_envs = n_envs;
  ctx.horizon = env_spec.horizon;
  ctx.act_low = env_spec.act_low;
  ctx.act_high = env_spec.act_high;
  ctx.env_id = env_spec.id;
  for (const auto& a : env_spec.agents)
    ctx.agents.push_back(
        rl::AgentSlice{a.name, a.obs.offset, a.obs.size, a.act.offset, a.act.size});
  // Resolved for every learner (a bad [safety] name is bad input even for plain PPO); only
  // the learners that use constraints act on them.
  const SafetyView sv = safety_view(spec, env_spec);
  ctx.constraint_channels = sv.channels;
  ctx.constraint_names = sv.names;
  ctx.thresholds = sv.thresholds;
  ctx.cost_scale = sv.cost_scale;
  return ctx;
}

std::unique_ptr<rl::Learner> make_spec_learner(const Spec& spec, const envs::EnvSpec& env_spec,
                                               int n_envs, core::Rng& init_rng,
                                               core::ThreadPool* pool, bool acting_only) {
  rl::LearnerContext ctx = learner_context(spec, env_spec, n_envs);
  ctx.pool = pool;
  ctx.acting_only = acting_only;
  const rl::LearnerEntry& e = rl::learner_entry(spec.learner.algo);
  if (e.check_env) e.check_env(ctx);
  try {
    return rl::make_learner(e.name, ctx, init_rng);
  } catch (const core::ConfigError& err) {
    throw core::ConfigError(spec.at("learner.algo") + "[learner] algo: " + err.what());
  }
}

}  // namespace pz::exp
