// exp/bench/bench_training: the steady training rate's arithmetic (median, spread, shares, merged
// rounds) and time_training's warm-up rule on real tiny runs. No timed asserts: only invariants.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/bench/bench_training.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

// Shares of a timing sum to 1; each is in [0, 1].
void check_shares(const exp::PhaseShares& s) {
  for (double x : {s.env, s.act, s.update, s.other}) {
    CHECK(x >= 0);
    CHECK(x <= 1);
  }
  CHECK(s.env + s.act + s.update + s.other == doctest::Approx(1.0).epsilon(1e-12));
}

// The end-to-end tests' tiny case5 PPO run (4 envs × 12 steps per iteration).
exp::Spec tiny_ppo() {
  const auto dir = test::tmp_dir("bench_training", "ppo");
  test::TinySpec t;
  t.total_steps = 96;  // two iterations: time_training raises it to cover the budget
  return exp::load_spec(test::write(dir / "tiny.toml", test::tiny_case5_spec(t)));
}

// The same env under SAC, gradient steps after more than `learning_starts` transitions.
exp::Spec tiny_sac(long learning_starts, long total_steps = 96) {
  const auto dir = test::tmp_dir("bench_training", "sac");
  return exp::load_spec(test::write(
      dir / "tiny.toml",
      "[experiment]\nname = \"tiny_sac\"\nseed = 5\n[env]\ncase = \"case5\"\nhorizon = 12\n"
      "reward_scale = 1e-4\n[vec]\nn_envs = 4\n[learner]\nalgo = \"sac\"\ntotal_steps = " +
          std::to_string(total_steps) +
          "\nrollout_length = 12\n[sac]\nhidden = [16, 16]\nbatch_size = 16\nlearning_starts = " +
          std::to_string(learning_starts) + "\n"));
}

}  // namespace

TEST_SUITE("exp_bench_training") {
  TEST_CASE("rates, spread and shares of hand-made timings") {
    exp::TrainingTiming t;
    t.iteration_rates = {1000, 3000, 2000};
    t.steps = 6000, t.seconds = 4;
    t.env_seconds = 2, t.act_seconds = 0.4, t.update_seconds = 1.2;
    CHECK(t.iterations() == 3);
    CHECK(t.steps_per_sec() == 2000);  // the median
    CHECK(t.mean_steps_per_sec() == 1500);
    CHECK(t.rate_spread() == 1.0);  // (3000 − 1000) / 2000
    const auto s = t.shares();
    CHECK(s.env == doctest::Approx(0.5));
    CHECK(s.act == doctest::Approx(0.1));
    CHECK(s.update == doctest::Approx(0.3));
    CHECK(s.other == doctest::Approx(0.1));
    check_shares(s);

    exp::TrainingTiming u;  // a second round: every measured iteration of both counts
    u.iteration_rates = {4000};
    u.steps = 4000, u.seconds = 1, u.env_seconds = 1;
    u.warmup_iterations = 1;
    t.merge(u);
    CHECK(t.iterations() == 4);
    CHECK(t.steps_per_sec() == 2500);  // median of 1000, 2000, 3000, 4000
    CHECK(t.mean_steps_per_sec() == 2000);
    CHECK(t.warmup_iterations == 1);
    CHECK(t.shares().env == doctest::Approx(0.6));
    check_shares(t.shares());
    CHECK(exp::TrainingTiming{}.steps_per_sec() == 0);
    check_shares(exp::PhaseShares{0.25, 0.25, 0.25, 0.25});
  }

  TEST_CASE("time_training measures the budget after the first iteration") {
    const auto t = exp::time_training(tiny_ppo(), 1, {4, 0.0, 1000});
    CHECK(t.threads == 1);
    CHECK(t.warmup_iterations == 1);  // PPO trains in its first iteration
    CHECK(t.iterations() == 4);       // min_seconds 0: the iterations decide
    CHECK(t.steps == 4 * 48);
    CHECK(t.seconds > 0);
    CHECK(t.steps_per_sec() > 0);
    CHECK(t.rate_spread() >= 0);
    check_shares(t.shares());
    CHECK(t.update_seconds > 0);  // PPO's update is in its iterations
    const auto j = exp::training_json(t);
    CHECK(j.at("iterations") == 4);
    CHECK(j.at("warmup_iterations") == 1);
    CHECK(j.at("steps_per_sec").get<double>() == t.steps_per_sec());
    CHECK(j.at("shares").at("env").get<double>() == t.shares().env);
  }

  // Regression guard for the warm-up rule: iterations before an off-policy learner first trains
  // (its replay filling past learning_starts) run without updates and would inflate the rate.
  TEST_CASE("time_training drops the iterations before SAC first trains") {
    // 48 transitions per iteration; gradient steps start once more than 100 were stored, in
    // the third iteration (144 > 100 > 96), which is still warm-up.
    const auto t = exp::time_training(tiny_sac(100), 1, {2, 0.0, 1000});
    CHECK(t.warmup_iterations == 3);
    CHECK(t.iterations() == 2);
    check_shares(t.shares());
  }

  TEST_CASE("time_training stops at max_iterations and says when nothing was measured") {
    // learning_starts beyond max_iterations (3 × 48 transitions): every iteration is warm-up.
    CHECK_THROWS_WITH_AS(exp::time_training(tiny_sac(1000, 2000), 1, {1, 0.0, 3}),
                         doctest::Contains("no training iteration after the warm-up"),
                         core::RunError);
  }
}
