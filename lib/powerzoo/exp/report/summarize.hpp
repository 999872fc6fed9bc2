// Summaries over seeds: group runs by configuration (everything but the seed), per metric mean,
// std, IQM and a percentile-bootstrap 95 % CI of the mean (the protocol of Agarwal et al. 2021,
// arXiv:2108.13264).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "powerzoo/exp/report/result_files.hpp"

namespace pz::exp {

/// Statistics of one metric over the seeds of one configuration.
struct SeedStats {
  int n = 0;
  double mean = 0, std = 0;  ///< std is the population std (ddof = 0), as the reference protocol
  double iqm = 0;            ///< interquartile mean (scipy trim_mean(x, 0.25))
  double ci_low = 0, ci_high = 0;  ///< percentile bootstrap of the mean, 95 %
};

inline constexpr int kBootstrapResamples = 10000;
inline constexpr uint64_t kBootstrapSeed = 42;

/// Mean, std, IQM and bootstrap CI of `xs`: `resamples` resamples of size n drawn with
/// core::Rng(seed, 0), percentiles 2.5 / 97.5 of the resampled means with linear interpolation
/// (numpy's default). NaN values make every statistic NaN; n = 0 gives NaN too.
SeedStats seed_stats(const std::vector<double>& xs, int resamples = kBootstrapResamples,
                     uint64_t seed = kBootstrapSeed);

struct ConfigSummary {
  std::string label;  ///< the keys that differ between configurations ("ppo.learning_rate=0.0001")
  std::string kind;
  std::vector<int64_t> seeds;
  std::vector<std::string> files;
  double min_final_step = 0, max_final_step = 0;
  std::map<std::string, SeedStats> stats;  ///< per metric
};

struct Summary {
  std::string split;  ///< the eval split summarized ("" = the first of eval.splits)
  /// The split of bare metric names: the first run's spec's first split if some run has it,
  /// else the first run's own first split.
  std::string main_split;
  std::vector<std::string> splits;  ///< every eval split of the runs (metric prefixes "<split>/")
  std::vector<std::string> metrics;
  std::vector<ConfigSummary> configs;  ///< in order of first appearance (sorted file paths)
  /// Runs left out: a second run of the same configuration and seed (a copied trial was counted
  /// as another seed), one line each naming both files.
  std::vector<std::string> left_out;
};

/// Groups `runs` and computes statistics. Files of one configuration and seed on disjoint splits
/// (eval files written one split each) are merged into one seed's record; a second file of the
/// same configuration, seed and split is left out as a copy. `metrics` empty = return_mean,
/// shaped_return_mean and every cost/<channel> column that is non-zero in some run. `split` names
/// an eval split: its columns are "<split>/<name>" in RunRecord::last_eval (flat names,
/// exp/run/eval_layout: bare for the first of eval.splits); "" = the first split. Throws
/// core::ConfigError if a requested metric or the split is absent from every run.
Summary summarize_runs(const std::vector<RunRecord>& runs, const std::vector<std::string>& metrics,
                       const std::string& split = "");

/// The summary as a table for the terminal (one block per metric, one row per configuration).
std::string summary_table(const Summary& s);
/// The summary as CSV (one row per configuration and metric).
std::string summary_csv(const Summary& s);

}  // namespace pz::exp
