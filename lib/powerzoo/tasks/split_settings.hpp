// Evaluation-split settings the grid tasks share: the N-1 outage splits (n1_branch, n1_gen) and
// the forecast_error split (docs/outages.md, docs/design.md §4.12, docs/tasks/*.md).
#pragma once

#include <string>

#include "powerzoo/envs/forecast.hpp"
#include "powerzoo/envs/outages.hpp"
#include "powerzoo/envs/registry.hpp"

namespace pz::tasks {

/// True for "n1_branch" and "n1_gen".
bool is_n1_split(const std::string& split);

/// On an N-1 split (ctx.split n1_branch / n1_gen) sets `o` to that split's outage: o.n1 = the
/// split's kind and, unless the spec itself set outage_n1 to that kind (then its outage_n1_steps
/// wins), o.n1_steps = default_steps. Does nothing on any other split. Throws core::ConfigError
/// naming outage_n1 (ctx.at) when the spec's outage_n1 is of the other kind.
void apply_n1_split(const envs::BuildContext& ctx, envs::OutageParams& o, int default_steps);

/// The forecast noise the env is built with: on split "forecast_error" the spec's forecast_noise
/// if > 0, else split_noise (each task states its σ₁ and its source on its page); on any other
/// split fc.noise. Throws core::ConfigError naming forecast_horizon (ctx.at) on forecast_error
/// when the spec observes no forecast (fc.horizon = 0): the split would change nothing.
double split_forecast_noise(const envs::BuildContext& ctx, const envs::ForecastParams& fc,
                            double split_noise);

/// The spec's outage keys (envs::outage_params_from on ctx.params; its errors are named at
/// `outages`) with the split's N-1 outage applied (apply_n1_split with default_n1_steps).
envs::OutageParams split_outages(const envs::BuildContext& ctx, int default_n1_steps);

/// The spec's forecast keys (envs::forecast_from on ctx.params) with the split's noise
/// (split_forecast_noise with split_noise).
envs::ForecastParams split_forecast(const envs::BuildContext& ctx, double split_noise);

}  // namespace pz::tasks
