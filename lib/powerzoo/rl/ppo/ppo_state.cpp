// PPO learner state: flat parameters, dual variables (LagrangeDuals), reward processing,
// checkpoint save/load.
#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"
#include "powerzoo/rl/ppo/ppo_impl.hpp"

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

std::vector<double> PpoLearner::lambdas() const { return impl_->duals.lambdas(); }

std::vector<double> PpoLearner::log_lambdas() const { return impl_->duals.log_lambdas(); }

void PpoLearner::set_log_lambdas(const std::vector<double>& log_lambda) {
  impl_->duals.set_log_lambdas(log_lambda);
}

std::vector<double> PpoLearner::dual_update(const std::vector<double>& episode_cost,
                                            const std::vector<double>& budget) {
  return impl_->duals.update(episode_cost, budget);
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

void PpoLearner::trainable_parameters(std::vector<std::span<const float>>& out) const {
  out.emplace_back(impl_->params);
}

void PpoLearner::save(core::StateDict& sd) const {
  const Impl& s = *impl_;
  std::vector<int64_t> layout = {s.obs_dim, s.act_dim};
  for (int h : s.cfg.hidden) layout.push_back(h);
  if (s.n_costs > 0) layout.push_back(-s.n_costs);  // negative: cannot be read as a hidden size
  sd.i64[kPrefix + "layout"] = layout;
  if (s.shared_cost) sd.str[kPrefix + "cost_critic_layout"] = "shared";  // absent: per constraint
  s.duals.save(sd, kPrefix);
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
  if (lit == sd.i64.end())
    throw core::ConfigError(core::absent_entry(sd, kPrefix + "layout", "int64") +
                            " (the learner layout: obs_dim, act_dim, hidden…, cost critics)");
  if (lit->second != layout) {
    auto text = [](const std::vector<int64_t>& v) {
      std::string t;
      for (int64_t x : v) t += (t.empty() ? "" : ", ") + std::to_string(x);
      return "[" + t + "]";
    };
    throw core::ConfigError(
        "checkpoint: learner layout (obs_dim, act_dim, hidden…, cost critics) does not match "
        "this learner: expected " +
        text(layout) + ", found " + text(lit->second));
  }
  if (s.n_costs > 0) {
    // Checkpoints written before the shared cost critic have no entry: one net per constraint.
    auto cit = sd.str.find(kPrefix + "cost_critic_layout");
    const std::string found = cit == sd.str.end() ? "per_constraint" : cit->second;
    const std::string mine = s.shared_cost ? "shared" : "per_constraint";
    if (found != mine) {
      auto text = [&](const std::string& m) {
        return m == "shared" ? "one shared cost critic with " + std::to_string(s.n_costs) +
                                   " outputs (cost_critic = \"shared\")"
                             : std::to_string(s.n_costs) +
                                   " cost critics, one per constraint (cost_critic = "
                                   "\"per_constraint\")";
      };
      throw core::ConfigError("checkpoint: the cost critics are " + text(found) +
                              "; this learner has " + text(mine) + ": set [ippo] cost_critic = \"" +
                              found + "\" to load it");
    }
  }
  LagrangeDuals duals = s.duals;  // validated on a copy: a failed load changes nothing
  duals.load(sd, kPrefix);
  // Validate everything before touching the learner, so a failed load leaves it unchanged.
  std::vector<float> params(s.n_params), m(s.n_params), v(s.n_params);
  auto copy_in = [&](const std::string& name, int64_t off, int64_t size, std::vector<float>& dst) {
    auto it = sd.f32.find(name);
    if (it == sd.f32.end()) throw core::ConfigError(core::absent_entry(sd, name, "float32"));
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
  if (sit == sd.i64.end())
    throw core::ConfigError(core::absent_entry(sd, kPrefix + "adam/step", "int64"));
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
  s.duals = std::move(duals);
}

}  // namespace pz::rl
