// tasks/split_settings: the forecast_error and N-1 split settings every grid task shares — the
// split's noise applied (the task's sigma_1, or the spec's forecast_noise), the refusal of a spec
// without forecasts, and the N-1 splits' kind and length in tso, gencos, dso and ders alike.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/dc_microgrid.hpp"
#include "powerzoo/envs/dist_grid.hpp"
#include "powerzoo/envs/dist_grid_marl.hpp"
#include "powerzoo/envs/gencos_market.hpp"
#include "powerzoo/envs/unit_commitment.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/spec.hpp"

using namespace pz;

namespace {

std::shared_ptr<const envs::Env> build(const std::string& task, const std::string& extra,
                                       const std::string& split) {
  return exp::make_env(exp::parse_spec("[env]\ntask = \"" + task + "\"\n" + extra, task + ".toml"),
                       split);
}

// The forecast parameters an env of one of the grid tasks was built with.
envs::ForecastParams forecast_of(const std::shared_ptr<const envs::Env>& env) {
  if (auto g = std::dynamic_pointer_cast<const envs::GencosMarket>(env))
    return g->params().forecast;
  if (auto d = std::dynamic_pointer_cast<const envs::DistGrid>(env)) return d->params().forecast;
  if (auto m = std::dynamic_pointer_cast<const envs::DistGridMarl>(env))
    return m->grid().params().forecast;
  if (auto c = std::dynamic_pointer_cast<const envs::DcMicrogrid>(env)) return c->params().forecast;
  FAIL("not a grid task's env");
  return {};
}

const envs::OutageParams& outages_of(const std::shared_ptr<const envs::Env>& env) {
  if (auto u = std::dynamic_pointer_cast<const envs::UnitCommitment>(env))
    return u->params().outages;
  if (auto g = std::dynamic_pointer_cast<const envs::GencosMarket>(env)) return g->params().outages;
  if (auto d = std::dynamic_pointer_cast<const envs::DistGrid>(env)) return d->params().outages;
  auto m = std::dynamic_pointer_cast<const envs::DistGridMarl>(env);
  REQUIRE(m);
  return m->grid().params().outages;
}

struct TaskCase {
  const char* task;
  const char* forecast;  // the keys that turn forecasts on
  double split_noise;    // the task's sigma_1
};

const TaskCase kTasks[] = {{"gencos", "", 0.02},
                           {"dso", "forecast_horizon = 4\n", 0.05},
                           {"ders", "forecast_horizon = 4\n", 0.05},
                           {"dc_microgrid", "forecast_horizon = 6\n", 0.02}};

}  // namespace

TEST_SUITE("tasks_split_settings") {
  TEST_CASE("forecast_error sets the task's sigma_1 unless the spec sets forecast_noise") {
    for (const TaskCase& c : kTasks) {
      CAPTURE(c.task);
      const auto fe = build(c.task, c.forecast, "forecast_error");
      const auto iid = build(c.task, c.forecast, "iid");
      CHECK(forecast_of(fe).noise == c.split_noise);
      CHECK(forecast_of(iid).noise == 0.0);
      CHECK(forecast_of(fe).horizon == forecast_of(iid).horizon);
      CHECK(fe->spec().obs_dim == iid->spec().obs_dim);  // a checkpoint evaluates on both
      const std::string own = std::string(c.forecast) + "forecast_noise = 0.2\n";
      CHECK(forecast_of(build(c.task, own, "forecast_error")).noise == 0.2);
      CHECK(forecast_of(build(c.task, own, "train")).noise == 0.2);
    }
    // The split is the iid days (only what the policy sees changes).
    const auto fe = build("dso", "forecast_horizon = 2\n", "forecast_error");
    const auto iid = build("dso", "forecast_horizon = 2\n", "iid");
    CHECK(dynamic_cast<const envs::DistGrid&>(*fe).params().episode_starts ==
          dynamic_cast<const envs::DistGrid&>(*iid).params().episode_starts);
    // The gencos default observation is its one-step perfect forecast.
    CHECK(forecast_of(build("gencos", "", "iid")).horizon == 1);
  }

  TEST_CASE("forecast_error on a spec that observes no forecast is refused, naming the key") {
    for (const TaskCase& c : kTasks) {
      CAPTURE(c.task);
      CHECK_THROWS_WITH_AS(build(c.task, "forecast_horizon = 0\n", "forecast_error"),
                           doctest::Contains("[env] forecast_horizon: expected a forecast (> 0) "
                                             "for split = \"forecast_error\", found 0: this spec "
                                             "observes no forecast"),
                           core::ConfigError);
      CHECK_NOTHROW(build(c.task, "forecast_horizon = 0\n", "iid"));
    }
    CHECK_THROWS_WITH_AS(build("dso", "", "forecast_error"),
                         doctest::Contains("train with forecast_horizon > 0"), core::ConfigError);
  }

  TEST_CASE("N-1 splits: the split's kind, the task's length unless the spec set that kind") {
    struct N1Case {
      const char* task;
      const char* extra;
      int steps;
    };
    const N1Case cases[] = {
        {"tso", "case = \"case14\"\n", 16}, {"gencos", "", 24}, {"dso", "", 12}, {"ders", "", 12}};
    using N1 = envs::OutageParams::N1;
    for (const N1Case& c : cases) {
      CAPTURE(c.task);
      const auto env = build(c.task, c.extra, "n1_branch");
      CHECK(outages_of(env).n1 == N1::kBranch);
      CHECK(outages_of(env).n1_steps == c.steps);
      const std::string own =
          std::string(c.extra) + "outage_n1 = \"branch\"\noutage_n1_steps = 3\n";
      CHECK(outages_of(build(c.task, own, "n1_branch")).n1_steps == 3);
      CHECK(outages_of(build(c.task, c.extra, "iid")).n1 == N1::kNone);
      CHECK_THROWS_WITH_AS(
          build(c.task, std::string(c.extra) + "outage_n1 = \"gen\"\n", "n1_branch"),
          doctest::Contains("[env] outage_n1: split \"n1_branch\" sets outage_n1 = \"branch\" "
                            "(expected \"none\" or \"branch\"), found \"gen\""),
          core::ConfigError);
    }
    for (const char* task : {"tso", "gencos"}) {
      CAPTURE(task);
      const std::string extra = std::string(task) == "tso" ? "case = \"case14\"\n" : "";
      CHECK(outages_of(build(task, extra, "n1_gen")).n1 == N1::kGen);
    }
  }
}
