// PenaltyEnv: shaped learner reward by hand, pass-through of everything else, zero weights.
#include <doctest/doctest.h>

#include <cmath>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/penalty.hpp"

using namespace pz;

namespace {

/// One-step env: reward 2, costs {3, 0.5}; obs = [action].
class FixedEnv final : public envs::Env {
 public:
  FixedEnv() {
    spec_.id = "fixed";
    spec_.obs_dim = 1;
    spec_.act_dim = 1;
    spec_.cost_names = {"a", "b"};
    spec_.horizon = 1;
  }
  const envs::EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<envs::State> make_state() const override {
    return std::make_unique<envs::State>();
  }
  void reset(envs::State&, core::Rng&, std::span<float> obs,
             const envs::ResetOptions&) const override {
    obs[0] = 0;
  }
  envs::Step step(envs::State&, std::span<const float> a, core::Rng&, std::span<float> obs,
                  std::span<float> costs, envs::Info*) const override {
    envs::Step s;
    s.reward = 2.0f;
    s.truncated = true;
    costs[0] = 3.0f;
    costs[1] = 0.5f;
    obs[0] = a[0];
    return s;
  }

 private:
  envs::EnvSpec spec_;
};

}  // namespace

TEST_SUITE("envs_penalty") {
  TEST_CASE("shaped reward = reward − Σ w·cost; reward, costs and obs pass through") {
    auto base = std::make_shared<const FixedEnv>();
    auto env = envs::with_penalty(base, {0.25, 4.0});
    REQUIRE(env != base);
    CHECK(env->spec().id == "fixed");
    auto st = env->make_state();
    core::Rng rng(1, 0);
    std::vector<float> obs(1), costs(2), act = {0.75f};
    env->reset(*st, rng, obs);
    const envs::Step s = env->step(*st, act, rng, obs, costs, nullptr);
    CHECK(s.reward == 2.0f);
    CHECK(s.shaped_reward == 2.0 - 0.25 * 3.0 - 4.0 * 0.5);  // −0.75, exact in binary
    CHECK(s.learner_reward() == -0.75);
    CHECK(costs == std::vector<float>{3.0f, 0.5f});
    CHECK(obs[0] == 0.75f);
    CHECK(s.truncated);
  }

  TEST_CASE("zero weights leave the env unwrapped; a wrong weight count is bad input") {
    auto base = std::make_shared<const FixedEnv>();
    CHECK(envs::with_penalty(base, {0.0, 0.0}) == base);
    CHECK(envs::with_penalty(base, {}) == base);
    CHECK_THROWS_AS(envs::PenaltyEnv(base, {1.0}), core::ConfigError);
    core::Rng rng(1, 0);
    auto st = base->make_state();
    std::vector<float> obs(1), costs(2), act = {0.0f};
    CHECK(std::isnan(base->step(*st, act, rng, obs, costs, nullptr).shaped_reward));
  }
}
