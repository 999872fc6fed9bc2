// Penalty wrapper: shaped learner reward = reward − Σ_k w_k·cost_k.
#include "powerzoo/envs/penalty.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"

namespace pz::envs {

PenaltyEnv::PenaltyEnv(std::shared_ptr<const Env> base, std::vector<double> weights)
    : base_(std::move(base)), weights_(std::move(weights)) {
  if (weights_.size() != base_->spec().cost_names.size())
    throw core::ConfigError("PenaltyEnv: expected " +
                            std::to_string(base_->spec().cost_names.size()) +
                            " penalty weights (one per cost channel of " + base_->spec().id +
                            "), found " + std::to_string(weights_.size()));
}

Step PenaltyEnv::step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
                      std::span<float> costs, Info* info) const {
  Step r = base_->step(s, action, rng, obs, costs, info);
  const bool shaped_below = !std::isnan(r.shaped_reward);  // a wrapper below shaped already
  double shaped = shaped_below ? r.shaped_reward : r.reward, penalty = 0;
  for (size_t k = 0; k < weights_.size(); ++k) {
    shaped -= weights_[k] * costs[k];
    penalty += weights_[k] * costs[k];
  }
  r.shaped_reward = shaped;
  const int na = static_cast<int>(base_->spec().agents.size());
  for (int a = 0; a < na; ++a)
    r.agent_shaped[a] =
        static_cast<float>((shaped_below ? r.agent_shaped[a] : r.agent_reward[a]) - penalty);
  return r;
}

std::shared_ptr<const Env> with_penalty(std::shared_ptr<const Env> env,
                                        const std::vector<double>& weights) {
  if (std::none_of(weights.begin(), weights.end(), [](double w) { return w != 0; })) return env;
  return std::make_shared<const PenaltyEnv>(std::move(env), weights);
}

}  // namespace pz::envs
