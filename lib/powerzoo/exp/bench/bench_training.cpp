// Steady training rates: exp::train with an iteration hook that drops the warm-up and stops once
// the budget is measured.
#include "powerzoo/exp/bench/bench_training.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/bench/bench.hpp"
#include "powerzoo/exp/train/train.hpp"

namespace pz::exp {

double TrainingTiming::steps_per_sec() const {
  return iteration_rates.empty() ? 0.0 : median(iteration_rates);
}

double TrainingTiming::mean_steps_per_sec() const {
  return seconds > 0 ? static_cast<double>(steps) / seconds : 0.0;
}

double TrainingTiming::rate_spread() const {
  if (iteration_rates.empty()) return 0.0;
  const auto [lo, hi] = std::minmax_element(iteration_rates.begin(), iteration_rates.end());
  return (*hi - *lo) / steps_per_sec();
}

PhaseShares TrainingTiming::shares() const {
  // The phases are nested in the iteration's time, so the rest is >= 0 up to clock rounding.
  const double other = std::max(0.0, seconds - env_seconds - act_seconds - update_seconds);
  const double total = env_seconds + act_seconds + update_seconds + other;
  if (!(total > 0)) return {};
  return {env_seconds / total, act_seconds / total, update_seconds / total, other / total};
}

void TrainingTiming::merge(const TrainingTiming& o) {
  warmup_iterations += o.warmup_iterations;
  iteration_rates.insert(iteration_rates.end(), o.iteration_rates.begin(), o.iteration_rates.end());
  steps += o.steps;
  seconds += o.seconds;
  env_seconds += o.env_seconds;
  act_seconds += o.act_seconds;
  update_seconds += o.update_seconds;
}

TrainingTiming time_training(const Spec& spec_in, int threads, const TrainingBudget& budget) {
  Spec spec = spec_in;
  const long long per_iter = static_cast<long long>(spec.learner.rollout_length) * spec.vec.n_envs;
  spec.learner.total_steps =
      std::max<long long>(spec.learner.total_steps, per_iter * budget.max_iterations);
  spec.eval.every_steps = 0;
  spec.output.checkpoint_every_steps = 0;
  spec.output.trajectories = "none";
  spec.eval.render_every_steps = 0;
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() /
      ("powerzoo-bench-" +
       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  TrainingTiming t;
  // 0 = all cores, as the run's pool counts them.
  t.threads =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int seen = 0;
  bool trained = false;
  TrainOptions opt;
  opt.out_dir = dir.string();
  opt.threads = threads;
  opt.quiet = true;
  opt.on_iteration = [&](const IterationTiming& it) {
    ++seen;
    if (!trained || seen == 1) {  // warm-up: through the first iteration that trained
      trained = it.learned;
      ++t.warmup_iterations;
    } else {
      t.iteration_rates.push_back(static_cast<double>(it.steps) / std::max(it.seconds, 1e-9));
      t.steps += it.steps;
      t.seconds += it.seconds;
      t.env_seconds += it.env_seconds;
      t.act_seconds += it.act_seconds;
      t.update_seconds += it.update_seconds;
    }
    const bool enough = t.iterations() >= budget.min_iterations && t.seconds >= budget.min_seconds;
    return !enough && seen < budget.max_iterations;
  };
  try {
    train(spec, opt);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (t.iterations() == 0)
    throw core::RunError("bench: " + spec.experiment.name + ": no training iteration after the " +
                         "warm-up (" + std::to_string(t.warmup_iterations) +
                         " iterations until the learner first trained) within " +
                         std::to_string(budget.max_iterations) + " iterations");
  return t;
}

nlohmann::json training_json(const TrainingTiming& t) {
  const PhaseShares s = t.shares();
  return {{"threads", t.threads},
          {"steps_per_sec", t.steps_per_sec()},
          {"mean_steps_per_sec", t.mean_steps_per_sec()},
          {"rate_spread", t.rate_spread()},
          {"iterations", t.iterations()},
          {"warmup_iterations", t.warmup_iterations},
          {"seconds", t.seconds},
          {"shares", {{"env", s.env}, {"act", s.act}, {"update", s.update}, {"other", s.other}}}};
}

}  // namespace pz::exp
