// PPO learner state: flat parameters, dual variables (log-ascent and PID rules), reward
// processing, checkpoint save/load.
#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/ppo.hpp"
#include "powerzoo/rl/ppo_impl.hpp"

namespace pz::rl {

std::vector<float> PpoLearner::parameters() const { return impl_->params; }

void PpoLearner::set_parameters(const std::vector<float>& flat) {
  if (static_cast<int64_t>(flat.size()) != impl_->n_params) {
    throw core::ConfigError("PPO set_parameters: got " + std::to_string(flat.size()) +
                            " values, expected " + std::to_string(impl_->n_params));
  }
  std::copy(flat.begin(), flat.end(), impl_->params.begin());
}

int64_t PpoLearner::n_parameters() const { return impl_->n_params; }

int PpoLearner::n_costs() const { return impl_->n_costs; }

std::vector<double> PpoLearner::lambdas() const {
  std::vector<double> out;
  for (double l : impl_->log_lambda) out.push_back(std::exp(l));
  return out;
}

std::vector<double> PpoLearner::log_lambdas() const { return impl_->log_lambda; }

void PpoLearner::set_log_lambdas(const std::vector<double>& log_lambda) {
  if (log_lambda.size() != impl_->log_lambda.size()) {
    throw core::ConfigError("PPO set_log_lambdas: got " + std::to_string(log_lambda.size()) +
                            " values, expected " + std::to_string(impl_->log_lambda.size()));
  }
  impl_->log_lambda = log_lambda;
}

// rl.md §2.7 step 7 (the reference's code form: ascent on log λ, clamped, so λ never reaches 0).
std::vector<double> PpoLearner::dual_update(const std::vector<double>& episode_cost,
                                            const std::vector<double>& budget) {
  Impl& s = *impl_;
  const size_t k = s.log_lambda.size();
  if (episode_cost.size() != k || budget.size() != k) {
    throw core::ConfigError("PPO dual_update: expected " + std::to_string(k) +
                            " episode costs and budgets");
  }
  const double L = s.cfg.log_lambda_max;
  for (size_t c = 0; c < k; ++c) {
    const double err = episode_cost[c] - budget[c];
    if (!std::isfinite(err)) {
      throw core::RunError("PPO dual_update: non-finite episode cost for channel " +
                           std::to_string(c));
    }
    if (s.cfg.dual == DualRule::kPid) {
      // The derivative term only reacts to rising cost, damping the overshoot of pure I control.
      const double prev = s.pid_prev_cost[c];
      const double rise = std::isnan(prev) ? 0.0 : std::max(0.0, episode_cost[c] - prev);
      // Anti-windup: I stays within λ's range, so a cost that stopped can bring λ down.
      s.pid_integral[c] = std::clamp(s.pid_integral[c] + s.cfg.pid_ki * err, 0.0, std::exp(L));
      const double out = s.cfg.pid_kp * err + s.pid_integral[c] + s.cfg.pid_kd * rise;
      s.pid_prev_cost[c] = episode_cost[c];
      s.log_lambda[c] = std::log(std::clamp(out, std::exp(-L), std::exp(L)));
    } else {
      s.log_lambda[c] = std::clamp(s.log_lambda[c] + s.cfg.lambda_lr * err, -L, L);
    }
  }
  return lambdas();
}

ObsNormalizer& PpoLearner::normalizer() { return impl_->norm; }

void PpoLearner::process_rewards(const float* rewards, const uint8_t* dones, int n, float* out) {
  if (impl_->cfg.normalize_rewards) {
    impl_->reward_norm.normalize(rewards, dones, n, out);
  } else {
    std::copy(rewards, rewards + n, out);
  }
}

const PpoConfig& PpoLearner::config() const { return impl_->cfg; }

namespace {
const std::string kPrefix = "learner/";
}

void PpoLearner::save(core::StateDict& sd) const {
  const Impl& s = *impl_;
  std::vector<int64_t> layout = {s.obs_dim, s.act_dim};
  for (int h : s.cfg.hidden) layout.push_back(h);
  if (s.n_costs > 0) layout.push_back(-s.n_costs);  // negative: cannot be read as a hidden size
  sd.i64[kPrefix + "layout"] = layout;
  if (s.n_costs > 0) sd.f64[kPrefix + "log_lambda"] = s.log_lambda;
  if (s.n_costs > 0 && s.cfg.dual == DualRule::kPid) {
    sd.f64[kPrefix + "pid/integral"] = s.pid_integral;
    sd.f64[kPrefix + "pid/prev_cost"] = s.pid_prev_cost;
  }
  for (const auto& [name, off, size] : s.slices) {
    sd.f32[kPrefix + name].assign(s.params.begin() + off, s.params.begin() + off + size);
    sd.f32[kPrefix + "adam/m/" + name].assign(s.adam_m.begin() + off,
                                              s.adam_m.begin() + off + size);
    sd.f32[kPrefix + "adam/v/" + name].assign(s.adam_v.begin() + off,
                                              s.adam_v.begin() + off + size);
  }
  sd.i64[kPrefix + "adam/step"] = {s.step};
  s.norm.save(sd, kPrefix + "normalizer/");
  if (s.cfg.normalize_rewards) s.reward_norm.save(sd, kPrefix + "reward_normalizer/");
}

void PpoLearner::load(const core::StateDict& sd) {
  Impl& s = *impl_;
  std::vector<int64_t> layout = {s.obs_dim, s.act_dim};
  for (int h : s.cfg.hidden) layout.push_back(h);
  if (s.n_costs > 0) layout.push_back(-s.n_costs);
  auto lit = sd.i64.find(kPrefix + "layout");
  if (lit == sd.i64.end() || lit->second != layout) {
    throw core::ConfigError(
        "checkpoint: learner layout (obs_dim, act_dim, hidden…, cost critics) does not match "
        "this learner");
  }
  std::vector<double> log_lambda;
  if (s.n_costs > 0) {
    auto it = sd.f64.find(kPrefix + "log_lambda");
    if (it == sd.f64.end() || it->second.size() != static_cast<size_t>(s.n_costs)) {
      throw core::ConfigError("checkpoint: missing or malformed '" + kPrefix + "log_lambda'");
    }
    log_lambda = it->second;
  }
  std::vector<double> pid_integral = s.pid_integral, pid_prev = s.pid_prev_cost;
  if (s.n_costs > 0 && s.cfg.dual == DualRule::kPid) {
    auto ii = sd.f64.find(kPrefix + "pid/integral");
    auto ip = sd.f64.find(kPrefix + "pid/prev_cost");
    if (ii == sd.f64.end() || ip == sd.f64.end() ||
        ii->second.size() != static_cast<size_t>(s.n_costs) ||
        ip->second.size() != static_cast<size_t>(s.n_costs)) {
      throw core::ConfigError("checkpoint: missing or malformed '" + kPrefix +
                              "pid/integral' / 'pid/prev_cost' (PID dual state)");
    }
    pid_integral = ii->second;
    pid_prev = ip->second;
  }
  // Validate everything before touching the learner, so a failed load leaves it unchanged.
  std::vector<float> params(s.n_params), m(s.n_params), v(s.n_params);
  auto copy_in = [&](const std::string& name, int64_t off, int64_t size, std::vector<float>& dst) {
    auto it = sd.f32.find(name);
    if (it == sd.f32.end()) throw core::ConfigError("checkpoint: missing '" + name + "'");
    if (static_cast<int64_t>(it->second.size()) != size) {
      throw core::ConfigError("checkpoint: '" + name + "' has " +
                              std::to_string(it->second.size()) + " values, expected " +
                              std::to_string(size));
    }
    std::copy(it->second.begin(), it->second.end(), dst.begin() + off);
  };
  for (const auto& [name, off, size] : s.slices) {
    copy_in(kPrefix + name, off, size, params);
    copy_in(kPrefix + "adam/m/" + name, off, size, m);
    copy_in(kPrefix + "adam/v/" + name, off, size, v);
  }
  auto sit = sd.i64.find(kPrefix + "adam/step");
  if (sit == sd.i64.end() || sit->second.size() != 1) {
    throw core::ConfigError("checkpoint: missing or malformed '" + kPrefix + "adam/step'");
  }
  ObsNormalizer norm(s.obs_dim);
  norm.load(sd, kPrefix + "normalizer/");
  RewardNormalizer reward_norm(s.cfg.gamma);
  if (s.cfg.normalize_rewards) reward_norm.load(sd, kPrefix + "reward_normalizer/");
  s.params = std::move(params);
  s.adam_m = std::move(m);
  s.adam_v = std::move(v);
  s.step = sit->second[0];
  s.norm = std::move(norm);
  s.reward_norm = std::move(reward_norm);
  s.log_lambda = std::move(log_lambda);
  s.pid_integral = std::move(pid_integral);
  s.pid_prev_cost = std::move(pid_prev);
}

}  // namespace pz::rl
