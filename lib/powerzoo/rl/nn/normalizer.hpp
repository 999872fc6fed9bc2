// Running normalizers of observations (Welford/Chan) and rewards (discounted-return std).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "powerzoo/core/state_dict.hpp"

namespace pz::rl {

/// Running mean/variance of observations (batched Welford/Chan merge, as Stable-Baselines3's
/// RunningMeanStd): output = clip((x − μ)/σ, ±10) with σ = sqrt(max(M2/count, 1e-6)); before the
/// first merge μ = 0, σ = 1.
class ObsNormalizer {
 public:
  explicit ObsNormalizer(int dim = 0);
  void normalize(const float* x, int n, float* out) const;  ///< x, out: [n, dim]
  void merge(const float* x, int n);                        ///< folds a batch [n, dim]
  void save(core::StateDict& sd, const std::string& prefix) const;
  void load(const core::StateDict& sd, const std::string& prefix);
  int dim() const { return dim_; }

 private:
  int dim_ = 0;
  double count_ = 0;
  std::vector<double> mean_, m2_;
  std::vector<float> scale_, shift_;  // cached 1/σ and μ for normalize()
  void refresh();
};

/// Reward scaling by the running standard deviation of the discounted return, as SB3's
/// VecNormalize(norm_reward=True) and Gymnasium's NormalizeReward do: per env R ← γ·R + r, the
/// batch of R folds into running moments (mean 0, var 1, count 1e-4 initially; parallel-moments
/// merge), the output is clip(r / sqrt(var + 1e-8), ±10), and R ← 0 where the step ended an
/// episode (terminated or truncated). The mean is not subtracted, so the sign and relative size
/// of rewards are kept. Keeps value targets O(1) whatever the env's reward units.
class RewardNormalizer {
 public:
  explicit RewardNormalizer(double gamma = 0.99) : gamma_(gamma) {}
  /// rewards, dones, out: [n] for the n envs of one vector step (n fixed after the first call;
  /// throws core::ConfigError if it changes). Updates the statistics, then normalizes.
  void normalize(const float* rewards, const uint8_t* dones, int n, float* out);
  double var() const { return var_; }
  void save(core::StateDict& sd, const std::string& prefix) const;
  /// Throws core::ConfigError if the entries are missing or malformed.
  void load(const core::StateDict& sd, const std::string& prefix);

 private:
  double gamma_;
  std::vector<double> ret_;  ///< [n] running discounted return per env
  double count_ = 1e-4, mean_ = 0.0, var_ = 1.0;
};
}  // namespace pz::rl
