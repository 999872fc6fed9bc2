// Forecasts with errors: the true future values of a profile over a horizon H, each multiplied
// by (1 + e_k) where the error e_k of lead time k is a Gaussian random walk, so its spread grows
// as sqrt(k) (docs/design.md §4.12).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/core/params.hpp"
#include "powerzoo/core/rng.hpp"

namespace pz::envs {

/// Immutable parameters of a forecast: `horizon` steps ahead (0: no forecast), relative error
/// spread `noise` one step ahead (0: perfect forecast, no random draws).
struct ForecastParams {
  int horizon = 0;
  double noise = 0.0;
};

/// Per-episode state of a noisy forecast: its own error stream (part of the env's saved state).
struct ForecastState {
  core::Rng rng;
};

/// The error model. A forecast issued at step t for step t + k (k = 1..H) is
///   f_k = max(0, x_k · (1 + e_k)),  e_k = e_{k−1} + noise · z_k,  e_0 = 0,  z_k ~ N(0, 1),
/// so e_k ~ N(0, k · noise²): sigma_k = noise · sqrt(k), the spread of a random walk's k-step
/// error (the naive/random-walk forecast's h-step standard deviation sigma·sqrt(h) in Hyndman &
/// Athanasopoulos, "Forecasting: Principles and Practice", 3rd ed., section 5.5, Table 5.2,
/// https://otexts.com/fpp3/prediction-intervals.html). The errors of one forecast are correlated
/// across leads (one path); forecasts issued at different steps draw afresh. The truncation at 0
/// keeps forecasts of non-negative quantities (load, PV, price here) non-negative.
/// The errors come from a stream of their own, seeded at every reset from the env's stream and
/// the episode's start without advancing the env's stream: the env's own draws (episode starts,
/// job arrivals) are the same with and without noise, so a noisy evaluation sees the same days
/// and workloads as a clean one. Nothing is drawn or saved when noise = 0.
class Forecast {
 public:
  /// Throws core::ConfigError on a horizon outside [0, 336] or a noise outside [0, 1] or NaN.
  explicit Forecast(ForecastParams p);

  int horizon() const { return p_.horizon; }
  double noise() const { return p_.noise; }
  /// Standard deviation of the relative error at lead k (1-based).
  double sigma(int k) const;
  /// Seeds the episode's error stream from the env's stream (not advanced) and the start step.
  void begin_episode(ForecastState& st, const core::Rng& env_rng, int64_t start) const;
  /// out[k−1] = the forecast of truth[k−1] (k = 1..min(H, sizes)); out may alias truth.
  void apply(std::span<const double> truth, ForecastState& st, std::span<double> out) const;
  /// Values save() appends: 8 (the stream's four words in 32-bit halves) with noise, else 0.
  size_t state_size() const { return p_.noise > 0 ? 8 : 0; }
  void save(const ForecastState& st, std::vector<double>& out) const;
  /// Reads state_size() values; throws core::ConfigError on values that are not 32-bit words.
  size_t load(ForecastState& st, std::span<const double> in) const;

 private:
  ForecastParams p_;
};

/// The `[env] forecast_horizon` and `forecast_noise` keys, with the given default horizon, `what`
/// naming the forecast fields for the docs ("load_forecast"); forecast_noise is refused (no
/// effect) when forecast_horizon = 0.
std::vector<core::ParamDef> forecast_params(int default_horizon, const std::string& what);
/// ForecastParams from a section that declares forecast_params().
ForecastParams forecast_from(const core::ParamTable& section);

}  // namespace pz::envs
