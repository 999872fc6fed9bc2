// The PPO family's spec sections ([ppo], [lagrangian], [saute]) and the pieces its learner
// entries (ppo, ppo_lagrangian, saute_ppo here; ippo and ippo_lagrangian in rl/ippo/ippo_entry.cpp)
// share: the config they build, their checks, memory and bench shape.
#pragma once

#include "powerzoo/core/params.hpp"
#include "powerzoo/rl/config.hpp"
#include "powerzoo/rl/learner.hpp"
#include "powerzoo/rl/learner_registry.hpp"

namespace pz::rl {

/// The PpoConfig of a context: [learner] total_steps and rollout_length, then the [ppo],
/// [lagrangian] and [saute] keys it holds (defaults for the others). Acting only: one minibatch.
PpoConfig ppo_config(const LearnerContext& ctx);

/// Sets ctx's [learner] keys and its [ppo], [lagrangian] and [saute] sections from `cfg` (for
/// learners built in code, e.g. tests).
void set_ppo_sections(LearnerContext& ctx, const PpoConfig& cfg);

/// [ppo] checks of every PPO-family learner: squash with the Beta policy, n_minibatches against
/// [vec] n_envs (not when acting only).
void check_ppo_spec(const LearnerContext& ctx);
/// [lagrangian] checks: the λ bound and λ₀ within it.
void check_lagrangian_spec(const LearnerContext& ctx);
/// A training run of whole iterations: total_steps at least one n_envs × rollout_length.
void check_ppo_training(const LearnerContext& ctx);
/// The Beta policy needs a bounded action box.
void check_ppo_action_box(const LearnerContext& ctx);

/// Rollout bytes of a PPO-family learner (every agent's rewards, values, advantages; per cost).
LearnerMemory ppo_memory(const LearnerContext& ctx, int n_costs);
/// Executed GEMM multiply-adds per sample of one PPO update (every agent's networks) and its
/// shape.
LearnerBenchShape ppo_bench(const LearnerContext& ctx);

}  // namespace pz::rl
