// [log] levels and percentiles: column classification, hand-computed percentiles and weight
// statistics, and the columns a run records.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "powerzoo/exp/run/log_levels.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "test_run_util.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST_SUITE("exp_log_levels") {
  TEST_CASE("each train column has the level of the seed trainer's flags") {
    CHECK(exp::metric_level("losses/actor") == "losses");
    CHECK(exp::metric_level("losses/critic") == "losses");
    CHECK(exp::metric_level("losses/entropy") == "losses");
    CHECK(exp::metric_level("losses/q_loss") == "losses");
    CHECK(exp::metric_level("losses/approx_kl") == "actor_extra");
    CHECK(exp::metric_level("losses/clipping_fraction") == "actor_extra");
    CHECK(exp::metric_level("policy/log_std_mean") == "actor_extra");
    CHECK(exp::metric_level("losses/critic_R^2") == "critic_extra");
    CHECK(exp::metric_level("grad_norm") == "grad_norm");
    CHECK(exp::metric_level("throughput/train_sps") == "throughput");
    CHECK(exp::metric_level("weights/std") == "weights");
    CHECK(exp::metric_level("group/battery/losses/approx_kl") == "actor_extra");
    CHECK(exp::metric_level("group/battery/grad_norm") == "grad_norm");
    for (const char* always : {"global_step", "wall_time", "episode_return", "rollout/reward_mean",
                               "lambda/voltage_violation", "episode_return_p50"})
      CHECK(exp::metric_level(always) == "");
    const std::map<std::string, double> row = {
        {"global_step", 1}, {"losses/actor", 2}, {"losses/approx_kl", 3}, {"grad_norm", 4}};
    const auto kept = exp::filter_levels(row, {"losses"});
    CHECK(kept.size() == 2);
    CHECK(kept.count("global_step") == 1);
    CHECK(kept.count("losses/actor") == 1);
    CHECK(exp::filter_levels(row, {}).size() == 1);
  }

  TEST_CASE("percentiles interpolate linearly between order statistics (numpy's default)") {
    const std::vector<double> x = {4, 1, 3, 2};  // sorted 1 2 3 4: position q/100 · 3
    CHECK(exp::percentile(x, 0) == 1);
    CHECK(exp::percentile(x, 100) == 4);
    CHECK(exp::percentile(x, 50) == doctest::Approx(2.5));
    CHECK(exp::percentile(x, 25) == doctest::Approx(1.75));
    CHECK(exp::percentile({7}, 90) == 7);
    CHECK(std::isnan(exp::percentile({}, 50)));
    CHECK(exp::percentile_name(25) == "p25");
    CHECK(exp::percentile_name(2.5) == "p2.5");
    std::map<std::string, double> row;
    exp::add_percentiles(row, "cost_", "/thermal", x, {0, 50});
    CHECK(row.at("cost_p0/thermal") == 1);
    CHECK(row.at("cost_p50/thermal") == doctest::Approx(2.5));
  }

  TEST_CASE("weight statistics run over every trainable parameter as one vector") {
    const std::vector<float> a = {1, -3}, b = {2};
    std::map<std::string, double> row;
    exp::add_weight_stats(row, {std::span<const float>(a), std::span<const float>(b)}, {50});
    CHECK(row.at("weights/mean") == doctest::Approx(0.0));
    CHECK(row.at("weights/std") == doctest::Approx(std::sqrt(14.0 / 3.0)));  // (1 + 9 + 4) / 3
    CHECK(row.at("weights/abs_max") == 3);
    CHECK(row.at("weights/p50") == 1);
  }

  TEST_CASE("a run records the chosen levels' columns and the percentile columns") {
    const auto d = test::tmp_dir("pz_log", "levels");
    auto spec = exp::load_spec(
        std::string(PZ_SOURCE_DIR) + "/tests/bad_inputs/specs/tiny.toml",
        {"log.level=[\"losses\", \"weights\"]", "log.percentiles=[0, 100]", "eval.every_steps=48"});
    exp::TrainOptions opt;
    opt.out_dir = (d / "run").string();
    opt.quiet = true;
    const auto r = exp::train(spec, opt);
    const auto train = test::datasets(r.run_file, "metrics/train");
    CHECK(has(train, "metrics/train/losses/actor"));
    CHECK(has(train, "metrics/train/weights/std"));
    CHECK(has(train, "metrics/train/weights/p100"));
    CHECK(has(train, "metrics/train/episode_return_p0"));
    CHECK(has(train, "metrics/train/episode_cost_p100/thermal_overload"));
    CHECK(has(train, "metrics/train/rollout/reward_mean"));  // every level
    CHECK_FALSE(has(train, "metrics/train/grad_norm"));
    CHECK_FALSE(has(train, "metrics/train/losses/approx_kl"));
    CHECK_FALSE(has(train, "metrics/train/throughput/train_sps"));
    const auto eval = test::datasets(r.run_file, "metrics/eval");
    CHECK(has(eval, "metrics/eval/iid/return_p0"));
    CHECK(has(eval, "metrics/eval/iid/cost_p100/thermal_overload"));
    // p0 <= mean <= p100 of the same episodes.
    const auto lo = io::read_column(r.run_file, "metrics/eval/iid/return_p0");
    const auto mean = io::read_column(r.run_file, "metrics/eval/iid/return_mean");
    const auto hi = io::read_column(r.run_file, "metrics/eval/iid/return_p100");
    REQUIRE(lo.size() == mean.size());
    for (size_t i = 0; i < lo.size(); ++i) {
      CHECK(lo[i] <= mean[i] + 1e-9);
      CHECK(mean[i] <= hi[i] + 1e-9);
    }
  }
}
