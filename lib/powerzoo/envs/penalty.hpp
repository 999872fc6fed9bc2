// Penalty wrapper: the learner's reward becomes reward − Σ_k w_k·cost_k (PowerZooJax's
// PenaltyRewardWrapper in powerzoojax/rl/wrappers.py, the penalty view of a constrained env), next
// to the Sauté wrapper; the vectorizer stays generic.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "powerzoo/envs/env.hpp"

namespace pz::envs {

/// Wraps `base` with penalty weights w [n_costs] (>= 0, the [reward] penalty of a spec, in the
/// base's channel order). step() returns the base step with Step::shaped_reward = (the base's
/// learner reward) − Σ_k w_k·cost_k, summed in double in channel order; reward, costs,
/// observations, Info, the spec (id included) and the state are the base's. Multi-agent envs:
/// every agent's learner reward is its reward minus the same team penalty.
class PenaltyEnv final : public Env {
 public:
  /// Throws core::ConfigError if weights.size() differs from the base's number of cost channels.
  PenaltyEnv(std::shared_ptr<const Env> base, std::vector<double> weights);

  const EnvSpec& spec() const override { return base_->spec(); }
  std::unique_ptr<State> make_state() const override { return base_->make_state(); }
  void reset(State& s, core::Rng& rng, std::span<float> obs,
             const ResetOptions& opt = {}) const override {
    base_->reset(s, rng, obs, opt);
  }
  Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
            std::span<float> costs, Info* info) const override;
  void write_trace(const State& s, std::span<float> out) const override {
    base_->write_trace(s, out);
  }
  void save_state(const State& s, std::vector<double>& out) const override {
    base_->save_state(s, out);
  }
  size_t load_state(State& s, std::span<const double> in) const override {
    return base_->load_state(s, in);
  }
  const Env& base() const { return *base_; }
  const std::vector<double>& weights() const { return weights_; }

 private:
  std::shared_ptr<const Env> base_;
  std::vector<double> weights_;
};

/// `env` wrapped in a PenaltyEnv if any weight is non-zero, else `env` itself.
std::shared_ptr<const Env> with_penalty(std::shared_ptr<const Env> env,
                                        const std::vector<double>& weights);

}  // namespace pz::envs
