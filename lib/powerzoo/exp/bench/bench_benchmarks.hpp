// `powerzoo bench --benchmarks`: one row per task's benchmark spec (its full-budget run), the
// steady end-to-end training rate per thread count, the split of its time, and PowerZooJax's
// published rates for the task beside it.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/bench/bench_training.hpp"

namespace pz::exp {

struct BenchmarkRow {
  std::string name;       ///< the spec's experiment name (tso_ppo, dcmg_sac, ...)
  std::string spec_path;  ///< as given
  std::string task;       ///< its task preset ([env] task)
  std::string algo;       ///< [learner] algo
  int n_envs = 0;
  long long steps_per_iteration = 0;    ///< n_envs × rollout_length
  std::vector<TrainingTiming> timings;  ///< one per thread count, in the order asked
  envs::ReferenceRates reference;       ///< the task preset's reference_rates
};

/// The registered task presets' benchmark specs (relative to the source dir), in preset order.
std::vector<std::string> benchmark_spec_paths();

/// The row of one spec, without timings (name, task, learner, batch, reference rates).
BenchmarkRow benchmark_row(const std::string& spec_path);

/// Times every row on each thread count, `rounds` times alternating the thread counts within a
/// row (each rate then covers the measured iterations of every round). `log` (may be null) gets
/// a line per measurement as it ends.
void time_benchmark_rows(std::vector<BenchmarkRow>& rows, const std::vector<int>& threads,
                         int rounds, const TrainingBudget& budget, std::ostream* log);

/// The rows as a fixed-width table, as a Markdown table (ours beside PowerZooJax's), and as the
/// JSON array of `powerzoo bench --benchmarks --json`'s "benchmarks".
std::string benchmark_table(const std::vector<BenchmarkRow>& rows);
std::string benchmark_markdown(const std::vector<BenchmarkRow>& rows);
std::string benchmark_json(const std::vector<BenchmarkRow>& rows, const std::string& blas_kernel);

}  // namespace pz::exp
