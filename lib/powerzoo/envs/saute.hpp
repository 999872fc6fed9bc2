// Sauté wrapper (Sootla, Cowen-Rivers, Jafferjee, Wang, Mguni, Wang and Bou-Ammar 2022, "Sauté
// RL: Almost Surely Safe Reinforcement Learning Using State Augmentation", arXiv:2202.06558, in
// the horizon-normalised variant of PowerZooJax's SauteWrapper, powerzoojax/rl/wrappers.py):
// any single-agent Env plus the remaining per-episode safety budget in the observation.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"

namespace pz::envs {

/// Wraps `base`. Observation = base obs ⊕ z (k extra entries), z_c = (d_c − C_c)/H with C_c the
/// episode's running sum of cost channel `channels[c]` and d_c = budgets[c]. reset: z = d/H.
/// step: C ← C + c_t, z = (d − C)/H; with reward shaping on and any z_c ≤ 0 the step's reward
/// is replaced by unsafe_reward (replacement, not addition). Costs, terminated/truncated and Info
/// pass through unchanged (all channels), so evaluation metrics are those of the base env.
/// Unlike the reference (which auto-resets inside step), the obs of a final step is the true
/// terminal obs with the finished episode's z; the next reset starts from z = d/H.
class SauteEnv : public Env {
 public:
  /// channels: indices into base->spec().cost_names; budgets > 0 (raw cost units, per episode);
  /// horizon H > 0 (0 = base horizon). Throws core::ConfigError on bad arguments.
  SauteEnv(std::shared_ptr<const Env> base, std::vector<int> channels, std::vector<double> budgets,
           int horizon, double unsafe_reward, bool reward_shaping);

  const EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<State> make_state() const override;
  void reset(State& s, core::Rng& rng, std::span<float> obs,
             const ResetOptions& opt = {}) const override;
  Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
            std::span<float> costs, Info* info) const override;
  /// Base state values, then the k running episode costs.
  void write_trace(const State& s, std::span<float> out) const override;
  void save_state(const State& s, std::vector<double>& out) const override;
  size_t load_state(State& s, std::span<const double> in) const override;

  /// Running episode costs C [k] of a state of this env (tests, diagnostics).
  const std::vector<double>& episode_costs(const State& s) const;
  const Env& base() const { return *base_; }

 private:
  std::shared_ptr<const Env> base_;
  std::vector<int> channels_;
  std::vector<double> budgets_;
  int horizon_;
  double unsafe_reward_;
  bool shaping_;
  EnvSpec spec_;
  void write_z(const std::vector<double>& c_ep, std::span<float> obs) const;
};

}  // namespace pz::envs
