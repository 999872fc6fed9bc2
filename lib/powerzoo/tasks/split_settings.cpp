// Evaluation-split settings the grid tasks share (see split_settings.hpp).
#include "powerzoo/tasks/split_settings.hpp"

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::tasks {

bool is_n1_split(const std::string& split) { return split == "n1_branch" || split == "n1_gen"; }

void apply_n1_split(const envs::BuildContext& ctx, envs::OutageParams& o, int default_steps) {
  if (!is_n1_split(ctx.split)) return;
  using N1 = envs::OutageParams::N1;
  const N1 kind = ctx.split == "n1_branch" ? N1::kBranch : N1::kGen;
  const std::string name = ctx.split.substr(3);
  if (o.n1 != N1::kNone && o.n1 != kind)
    throw core::ConfigError(ctx.at("outage_n1") + "[env] outage_n1: split \"" + ctx.split +
                            "\" sets outage_n1 = \"" + name + "\" (expected \"none\" or \"" + name +
                            "\"), found \"" + core::echo(ctx.params.str("outage_n1")) + "\"");
  if (o.n1 == N1::kNone) o.n1_steps = default_steps;
  o.n1 = kind;
}

double split_forecast_noise(const envs::BuildContext& ctx, const envs::ForecastParams& fc,
                            double split_noise) {
  if (ctx.split != "forecast_error") return fc.noise;
  if (fc.horizon == 0)
    throw core::ConfigError(
        ctx.at("forecast_horizon") +
        "[env] forecast_horizon: expected a forecast (> 0) for split = \"forecast_error\", found "
        "0: this spec observes no forecast, so the split's forecast error would change nothing "
        "(train with forecast_horizon > 0)");
  return fc.noise > 0 ? fc.noise : split_noise;
}

envs::OutageParams split_outages(const envs::BuildContext& ctx, int default_n1_steps) {
  envs::OutageParams o;
  try {
    o = envs::outage_params_from(ctx.params);
  } catch (const core::ConfigError& e) {
    throw core::ConfigError(ctx.at("outages") + "[env] outages: " + e.what());
  }
  apply_n1_split(ctx, o, default_n1_steps);
  return o;
}

envs::ForecastParams split_forecast(const envs::BuildContext& ctx, double split_noise) {
  const envs::ForecastParams fc = envs::forecast_from(ctx.params);
  return {fc.horizon, split_forecast_noise(ctx, fc, split_noise)};
}

}  // namespace pz::tasks
