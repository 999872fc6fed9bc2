// The steady end-to-end training rate of a spec and where its time goes (env stepping, acting,
// the learner's updates), timed per iteration of the real training loop.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "powerzoo/exp/spec/spec.hpp"

namespace pz::exp {

/// How long time_training measures: after the warm-up, at least min_iterations iterations and
/// min_seconds seconds of them; never more than max_iterations iterations in all.
struct TrainingBudget {
  int min_iterations = 3;
  double min_seconds = 10;
  int max_iterations = 1000;
};

/// Shares of the measured training time; they sum to 1.
struct PhaseShares {
  double env = 0;     ///< VectorEnv::step_all (the envs, on the pool)
  double act = 0;     ///< the learner's collect_act (policy forward and sampling)
  double update = 0;  ///< the learner's update() calls
  double other = 0;   ///< the rest: the per-step checks, observe(), the train row and its I/O
};

/// Training-loop timings of one spec on one thread count: the measured iterations (after the
/// warm-up: the first iteration and every one up to the first in which the learner trained, as
/// an off-policy learner's replay fills past learning_starts; buffers are allocated and first
/// touched there).
struct TrainingTiming {
  int threads = 0;
  int warmup_iterations = 0;            ///< dropped (summed over merged runs)
  std::vector<double> iteration_rates;  ///< steps/s of each measured iteration
  long long steps = 0;                  ///< env steps of the measured iterations
  double seconds = 0;                   ///< their wall seconds
  double env_seconds = 0, act_seconds = 0, update_seconds = 0;  ///< parts of `seconds`

  int iterations() const { return static_cast<int>(iteration_rates.size()); }
  /// Median of the measured iterations' rates (robust to a neighbour's burst on a shared machine).
  double steps_per_sec() const;
  /// steps / seconds: the rate a long run of such iterations averages.
  double mean_steps_per_sec() const;
  /// (max − min) / median of the iterations' rates.
  double rate_spread() const;
  PhaseShares shares() const;
  /// Adds the measured iterations of another run of the same spec and thread count (alternated
  /// rounds).
  void merge(const TrainingTiming& other);
};

/// Runs exp::train on the spec on `threads` workers (evaluations, checkpoints and trajectories
/// off; a temporary run directory, removed afterwards) for the warm-up and `budget`, timing each
/// iteration. The spec's learner.total_steps is raised if it would end the run earlier. Throws
/// core::RunError if no iteration after the warm-up fits in max_iterations.
TrainingTiming time_training(const Spec& spec, int threads, const TrainingBudget& budget);

/// {"threads", "steps_per_sec", "mean_steps_per_sec", "rate_spread", "iterations",
/// "warmup_iterations", "seconds", "shares": {"env", "act", "update", "other"}}.
nlohmann::json training_json(const TrainingTiming& t);

}  // namespace pz::exp
