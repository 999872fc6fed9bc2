// Throughput measurements for `powerzoo bench`: vector-env steps/s, learner samples/s, DC-OPF,
// AC power-flow and AC-OPF solve times.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/rl/learner_registry.hpp"

namespace pz::core {
class ThreadPool;
}
namespace pz::vec {
class VectorEnv;
}

namespace pz::exp {

/// Median of the measurements v (mean of the middle two for an even count); v non-empty.
double median(std::vector<double> v);

/// Wall seconds since t0 (steady clock), for the throughput measurements.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct EnvBenchResult {
  int n_envs = 0;
  int threads = 0;
  double steps_per_sec = 0;  ///< env transitions per second (VectorEnv::step_all, random actions)
  double us_per_step = 0;    ///< wall microseconds per single-env transition (1 / rate)
};

/// The vector env the env benches step: the spec's env with its penalties, n_envs copies on
/// `pool` (seed 0), reset.
std::unique_ptr<vec::VectorEnv> make_bench_venv(const Spec& spec, int n_envs,
                                                core::ThreadPool& pool);

/// 8 batches [n_envs × act_dim] of uniform random actions in [−1, 1] (Rng(1, 1)), generated
/// outside the timed loops and stepped in turn.
std::vector<std::vector<float>> random_action_bank(int n_envs, int act_dim);

/// Steps the spec's training env with n_envs envs on `threads` workers for about `seconds`
/// (after a warm-up) with uniform random actions in [−1, 1].
EnvBenchResult bench_env(const Spec& spec, int n_envs, int threads, double seconds);

struct LearnerBenchResult {
  /// Samples consumed per second by update(): rollout samples (T·N) for PPO, minibatch rows
  /// (gradient steps × batch_size) for SAC.
  double samples_per_sec = 0;
  double grad_steps_per_sec = 0;  ///< SAC: gradient steps (actor + critics + α) per second
  double gflops = 0;              ///< estimated matrix-product rate of the update (GEMM flops only)
  double act_us = 0;              ///< microseconds per batched collect_act over N envs
  int threads = 1;                ///< workers of the learner's pool
};

/// Times rl::Learner::update of the spec's learner on synthetic collections (N envs x
/// collect_steps(), standard-normal observations and rewards, an update every update_every()
/// steps; SAC's replay filled past learning_starts first) with its batched work on a pool of
/// `threads` workers; collect_act is timed apart.
LearnerBenchResult bench_learner(const Spec& spec, double seconds, int threads = 1);

/// What the bench counts of the spec's learner on an env (its registry entry's bench shape).
rl::LearnerBenchShape learner_bench_shape(const Spec& spec, const envs::EnvSpec& sp, int n_envs);

struct DcOpfBenchResult {
  std::string case_name;
  double cold_us = 0;  ///< median µs of a solve by a fresh solver
  double warm_us = 0;  ///< median µs of a kept solver's re-solve of loads drifting by ±2 %
  int reps = 0;
};

/// DC-OPF solve times of a bundled case (the env's use is the warm one); `reps` solves each.
/// Throws core::ConfigError if the case cannot be loaded.
DcOpfBenchResult bench_dcopf(const std::string& case_name, int reps);

struct AcBenchResult {
  std::string case_name;
  double build_us = 0;    ///< median µs to construct the solver (Ybus, patterns, KLU analysis)
  double cold_us = 0;     ///< median µs of the first solve of a fresh solver (MATPOWER's start)
  double warm_us = 0;     ///< median µs of a kept solver's re-solve of loads drifting by ±2 %,
                          ///< started from the previous solution
  double cold_iters = 0;  ///< mean Newton / interior-point iterations
  double warm_iters = 0;
  int reps = 0;
};

/// Newton–Raphson AC power flow times of a bundled case; `reps` solves each. Throws
/// core::RunError if a solve does not converge.
AcBenchResult bench_acpf(const std::string& case_name, int reps);

/// AC-OPF (Ipopt) times of a bundled case; `reps` solves each. Throws core::RunError if a solve
/// is not optimal.
AcBenchResult bench_acopf(const std::string& case_name, int reps);

}  // namespace pz::exp
