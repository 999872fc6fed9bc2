// Lagrange multipliers of PPO-Lagrangian: one λ_c = exp(log λ_c) per constraint, moved once per
// update by log-space ascent or the PID rule (Ray, Achiam & Amodei 2019; Stooke, Achiam & Abbeel
// 2020).
#pragma once

#include <string>
#include <vector>

#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/rl/config.hpp"

namespace pz::rl {

class LagrangeDuals {
 public:
  /// k multipliers with log λ = clip(log cfg.lambda_init, ±cfg.log_lambda_max) (0 if k = 0); PID
  /// integral I₀ = λ₀, no previous cost.
  LagrangeDuals(int k = 0, const PpoConfig& cfg = {});

  int size() const { return static_cast<int>(log_lambda_.size()); }
  const std::vector<double>& log_lambdas() const { return log_lambda_; }
  /// λ_c = exp(log λ_c).
  std::vector<double> lambdas() const;
  /// Throws core::ConfigError unless log_lambda has size() entries.
  void set_log_lambdas(const std::vector<double>& log_lambda);

  /// One dual step with cfg.dual: kLogAscent log λ_c ← clip(log λ_c + lambda_lr·(Ĵ_C,c − d_c),
  /// ±log_lambda_max); kPid see DualRule. episode_cost and budget have size() entries (scaled
  /// cost units). Returns the new λ. Throws core::ConfigError on wrong sizes, core::RunError on a
  /// non-finite cost.
  std::vector<double> update(const std::vector<double>& episode_cost,
                             const std::vector<double>& budget);

  /// "<prefix>log_lambda" (k > 0) and, with DualRule::kPid, "<prefix>pid/integral" and
  /// "<prefix>pid/prev_cost".
  void save(core::StateDict& sd, const std::string& prefix) const;
  /// Inverse of save(); validates everything before changing this object. Throws
  /// core::ConfigError on missing or malformed entries.
  void load(const core::StateDict& sd, const std::string& prefix);

 private:
  PpoConfig cfg_;
  std::vector<double> log_lambda_;
  std::vector<double> pid_integral_, pid_prev_cost_;  // DualRule::kPid state (prev NaN = none)
};

}  // namespace pz::rl
