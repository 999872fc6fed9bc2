// A spec's learner: the Safe-RL view of its constraints, the env the learner acts on, and the
// rl::Learner built by name from a LearnerContext (used by train, eval and bench).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/envs/env.hpp"
#include "powerzoo/exp/spec.hpp"
#include "powerzoo/rl/learner.hpp"

namespace pz::exp {

/// The Safe-RL view of a spec on an env (rl.md §2.1 SafeRLWrapper): [safety] constraints resolved
/// to cost-channel indices, thresholds (empty → 0) and cost_scale broadcast to one per channel.
struct SafetyView {
  std::vector<int> channels;  ///< indices into EnvSpec::cost_names
  std::vector<std::string> names;
  std::vector<double> thresholds;  ///< per-episode budgets, raw units
  std::vector<double> cost_scale;
};
/// Throws core::ConfigError (with a did-you-mean) for a name that is not a cost channel of env.
SafetyView safety_view(const Spec& spec, const envs::EnvSpec& env_spec);

/// The env a learner of `spec` acts on: make_env(spec, split), wrapped in a Sauté env (budget
/// observation; reward shaping only if `training`) when ppo.algo = "saute_ppo".
std::shared_ptr<const envs::Env> make_learner_env(const Spec& spec, const std::string& split,
                                                  bool training);
/// Cost critics of the spec's learner: the number of [safety] constraints for ppo_lagrangian,
/// else 0.
int learner_cost_channels(const Spec& spec);

/// Throws core::ConfigError unless ppo.n_minibatches divides vec.n_envs (PPO minibatches are
/// sets of env columns); nothing for sac.
void check_batching(const Spec& spec);

/// Throws core::ConfigError naming [ppo] policy (or algo) unless every action of env_spec has a
/// finite box when the spec's learner needs one (policy = "beta", algo = "sac"); refuses Beta
/// under ippo.
void check_action_box(const Spec& spec, const envs::EnvSpec& env_spec);

/// Registered learner name of the spec (rl::algo_name of ppo.algo).
std::string learner_name(const Spec& spec);

/// The context of the spec's learner on an env with spec `env_spec` and n_envs parallel envs.
/// Throws core::ConfigError like safety_view().
rl::LearnerContext learner_context(const Spec& spec, const envs::EnvSpec& env_spec, int n_envs);

/// rl::make_learner(learner_name(spec), learner_context(...) with ctx.pool = pool, init_rng).
/// The learner runs its batched work on `pool` (nullptr: the calling thread), which must outlive
/// its use.
std::unique_ptr<rl::Learner> make_spec_learner(const Spec& spec, const envs::EnvSpec& env_spec,
                                               int n_envs, core::Rng& init_rng,
                                               core::ThreadPool* pool = nullptr);

}  // namespace pz::exp
