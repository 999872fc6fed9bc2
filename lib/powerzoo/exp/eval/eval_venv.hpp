// The vector env of the evaluation protocol: which episodes an evaluation walks, in which order,
// with which Rng streams. evaluate(), `powerzoo rollout` and the Python module share it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/env.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::exp {

/// Stream ids of evaluation: env k of an evaluation uses (eval_seed, kEvalStreamBase + k), apart
/// from the training streams (checkpoint.hpp kEnvStreamBase).
inline constexpr uint64_t kEvalStreamBase = 1ull << 40;

/// A VectorEnv of n_episodes envs on `env` (with the [reward] penalty weights, envs::with_penalty)
/// without auto-reset, reset so that env k starts the k-th of n_episodes evenly spaced episodes
/// of the env's split, its Rng streams from eval_seed. Every evaluation of the same env, seed and
/// n_episodes walks the same episodes in the same order.
std::unique_ptr<vec::VectorEnv> make_eval_venv(std::shared_ptr<const envs::Env> env, int n_episodes,
                                               uint64_t eval_seed,
                                               const std::vector<double>& penalty,
                                               core::ThreadPool& pool);

/// Resets an evaluation VectorEnv (as make_eval_venv built it) to the first step of its episodes:
/// every env's Rng stream back to (eval_seed, kEvalStreamBase + k) first, so what an episode draws
/// at reset and per step (outages, forecast noise) is that of the evaluation whatever the venv
/// walked before. A reset without it drew the next outages of an advanced stream: the Python eval
/// env's outages differed from `eval` / `baseline` and changed with every reset (issue 36).
void reset_eval_venv(vec::VectorEnv& venv, uint64_t eval_seed);

}  // namespace pz::exp
