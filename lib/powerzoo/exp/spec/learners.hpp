// A spec's learner: the Safe-RL view of its constraints, the env the learner acts on, and the
// rl::Learner built by name from a LearnerContext (used by train, eval and bench).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/envs/env.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/rl/learner.hpp"

namespace pz::exp {

/// The Safe-RL view of a spec on an env (as OmniSafe's and Safety-Gymnasium's cost channels):
/// [safety] constraints resolved to cost-channel indices, thresholds (empty → 0) and cost_scale
/// broadcast to one per channel.
struct SafetyView {
  std::vector<int> channels;  ///< indices into EnvSpec::cost_names
  std::vector<std::string> names;
  std::vector<double> thresholds;  ///< per-episode budgets, raw units
  std::vector<double> cost_scale;
};
/// Throws core::ConfigError (with a did-you-mean) for a name that is not a cost channel of env.
SafetyView safety_view(const Spec& spec, const envs::EnvSpec& env_spec);

/// The env a learner of `spec` acts on: make_env(spec, split), wrapped as the learner's registry
/// entry says (e.g. a Sauté env; `training` = the training env).
std::shared_ptr<const envs::Env> make_learner_env(const Spec& spec, const std::string& split,
                                                  bool training);
/// Whether the spec's learner acts on [safety] constraints (its registry entry).
bool learner_uses_constraints(const Spec& spec);

/// The learner entry's checks of a training run (batch sizes against [vec] n_envs, the budget
/// against one iteration). Throws core::ConfigError.
void check_training(const Spec& spec);

/// [learner] algo.
const std::string& learner_name(const Spec& spec);

/// The context of the spec's learner on an env with spec `env_spec` and n_envs parallel envs.
/// Throws core::ConfigError like safety_view().
rl::LearnerContext learner_context(const Spec& spec, const envs::EnvSpec& env_spec, int n_envs);

/// The entry's env checks, then rl::make_learner(learner_context(...) with ctx.pool = pool,
/// init_rng). acting_only: built to act (evaluation), training-batch checks do not apply. The
/// learner runs its batched work on `pool` (nullptr: the calling thread), which must outlive its
/// use.
std::unique_ptr<rl::Learner> make_spec_learner(const Spec& spec, const envs::EnvSpec& env_spec,
                                               int n_envs, core::Rng& init_rng,
                                               core::ThreadPool* pool = nullptr,
                                               bool acting_only = false);

}  // namespace pz::exp
