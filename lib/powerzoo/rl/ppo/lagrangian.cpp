// Dual variables of PPO-Lagrangian: log-space ascent and PID rules, checkpoint entries.
#include "powerzoo/rl/ppo/lagrangian.hpp"

#include <algorithm>
#include <cmath>

#include "powerzoo/core/error.hpp"

namespace pz::rl {

LagrangeDuals::LagrangeDuals(int k, const PpoConfig& cfg) : cfg_(cfg) {
  const double ll0 = k > 0 ? std::log(cfg.lambda_init) : 0.0;
  log_lambda_.assign(k, std::clamp(ll0, -cfg.log_lambda_max, cfg.log_lambda_max));
  pid_integral_.assign(k, cfg.lambda_init);
  pid_prev_cost_.assign(k, std::nan(""));
}

std::vector<double> LagrangeDuals::lambdas() const {
  std::vector<double> out;
  for (double l : log_lambda_) out.push_back(std::exp(l));
  return out;
}

void LagrangeDuals::set_log_lambdas(const std::vector<double>& log_lambda) {
  if (log_lambda.size() != log_lambda_.size()) {
    throw core::ConfigError("PPO set_log_lambdas: got " + std::to_string(log_lambda.size()) +
                            " values, expected " + std::to_string(log_lambda_.size()));
  }
  log_lambda_ = log_lambda;
}

// PPO-Lagrangian, Ray, Achiam & Amodei 2019, as PowerZooJax's cmdp.py (the reference's code form:
// ascent on log λ, clamped, so λ never reaches 0).
std::vector<double> LagrangeDuals::update(const std::vector<double>& episode_cost,
                                          const std::vector<double>& budget) {
  const size_t k = log_lambda_.size();
  if (episode_cost.size() != k || budget.size() != k) {
    throw core::ConfigError("PPO dual_update: expected " + std::to_string(k) +
                            " episode costs and budgets");
  }
  const double L = cfg_.log_lambda_max;
  for (size_t c = 0; c < k; ++c) {
    const double err = episode_cost[c] - budget[c];
    if (!std::isfinite(err)) {
      throw core::RunError("PPO dual_update: non-finite episode cost for channel " +
                           std::to_string(c));
    }
    if (cfg_.dual == DualRule::kPid) {
      // The derivative term only reacts to rising cost, damping the overshoot of pure I control.
      const double prev = pid_prev_cost_[c];
      const double rise = std::isnan(prev) ? 0.0 : std::max(0.0, episode_cost[c] - prev);
      // Anti-windup: I stays within λ's range, so a cost that stopped can bring λ down.
      pid_integral_[c] = std::clamp(pid_integral_[c] + cfg_.pid_ki * err, 0.0, std::exp(L));
      const double out = cfg_.pid_kp * err + pid_integral_[c] + cfg_.pid_kd * rise;
      pid_prev_cost_[c] = episode_cost[c];
      log_lambda_[c] = std::log(std::clamp(out, std::exp(-L), std::exp(L)));
    } else {
      log_lambda_[c] = std::clamp(log_lambda_[c] + cfg_.lambda_lr * err, -L, L);
    }
  }
  return lambdas();
}

void LagrangeDuals::save(core::StateDict& sd, const std::string& prefix) const {
  if (log_lambda_.empty()) return;
  sd.f64[prefix + "log_lambda"] = log_lambda_;
  if (cfg_.dual == DualRule::kPid) {
    sd.f64[prefix + "pid/integral"] = pid_integral_;
    sd.f64[prefix + "pid/prev_cost"] = pid_prev_cost_;
  }
}

void LagrangeDuals::load(const core::StateDict& sd, const std::string& prefix) {
  const size_t k = log_lambda_.size();
  if (k == 0) return;
  auto it = sd.f64.find(prefix + "log_lambda");
  if (it == sd.f64.end())
    throw core::ConfigError(core::absent_entry(sd, prefix + "log_lambda", "float64"));
  if (it == sd.f64.end() || it->second.size() != k) {
    throw core::ConfigError("checkpoint: missing or malformed '" + prefix + "log_lambda'");
  }
  std::vector<double> pid_integral = pid_integral_, pid_prev = pid_prev_cost_;
  if (cfg_.dual == DualRule::kPid) {
    auto ii = sd.f64.find(prefix + "pid/integral");
    auto ip = sd.f64.find(prefix + "pid/prev_cost");
    if (ii == sd.f64.end() || ip == sd.f64.end() || ii->second.size() != k ||
        ip->second.size() != k) {
      throw core::ConfigError("checkpoint: missing or malformed '" + prefix +
                              "pid/integral' / 'pid/prev_cost' (PID dual state)");
    }
    pid_integral = ii->second;
    pid_prev = ip->second;
  }
  log_lambda_ = it->second;
  pid_integral_ = std::move(pid_integral);
  pid_prev_cost_ = std::move(pid_prev);
}

}  // namespace pz::rl
