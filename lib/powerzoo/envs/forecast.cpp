// Forecast error model (see forecast.hpp for the model and its source).
#include "powerzoo/envs/forecast.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"

namespace pz::envs {
namespace {
// Longest forecast a key accepts: a week of 30-min steps. Longer adds observation width, not
// information the envs' episodes (at most a few days) can use.
constexpr int kMaxHorizon = 336;
// Salt of the forecast stream's seed, so it differs from any stream the env itself derives.
constexpr uint64_t kForecastSalt = 0x666f726563617374ull;  // "forecast"
}  // namespace

Forecast::Forecast(ForecastParams p) : p_(p) {
  if (p_.horizon < 0 || p_.horizon > kMaxHorizon)
    throw core::ConfigError("forecast_horizon: expected an integer in [0, " +
                            std::to_string(kMaxHorizon) + "], found " + std::to_string(p_.horizon));
  if (!(std::isfinite(p_.noise) && p_.noise >= 0 && p_.noise <= 1))
    throw core::ConfigError("forecast_noise: expected a number in [0, 1], found " +
                            core::format_number(p_.noise));
}

double Forecast::sigma(int k) const { return p_.noise * std::sqrt(static_cast<double>(k)); }

void Forecast::begin_episode(ForecastState& st, const core::Rng& env_rng, int64_t start) const {
  if (p_.noise <= 0) return;
  const auto w = env_rng.state();  // Rng's constructor mixes seed and stream by splitmix64
  st.rng = core::Rng(w[0] ^ w[2] ^ kForecastSalt, w[1] ^ w[3] ^ static_cast<uint64_t>(start));
}

void Forecast::apply(std::span<const double> truth, ForecastState& st,
                     std::span<double> out) const {
  const size_t n = std::min({truth.size(), out.size(), static_cast<size_t>(p_.horizon)});
  if (p_.noise <= 0) {
    std::copy(truth.begin(), truth.begin() + static_cast<std::ptrdiff_t>(n), out.begin());
    return;
  }
  double e = 0;
  for (size_t k = 0; k < n; ++k) {
    e += p_.noise * st.rng.normal();
    out[k] = std::max(0.0, truth[k] * (1.0 + e));
  }
}

void Forecast::save(const ForecastState& st, std::vector<double>& out) const {
  if (p_.noise <= 0) return;
  for (uint64_t w : st.rng.state()) {  // a double holds 32-bit halves exactly
    out.push_back(static_cast<double>(w >> 32));
    out.push_back(static_cast<double>(w & 0xffffffffull));
  }
}

size_t Forecast::load(ForecastState& st, std::span<const double> in) const {
  const size_t n = state_size();
  if (n == 0) return 0;
  if (in.size() < n)
    throw core::ConfigError("checkpoint: forecast error stream: expected " + std::to_string(n) +
                            " values, found " + std::to_string(in.size()));
  std::array<uint64_t, 4> w{};
  for (size_t i = 0; i < 8; ++i) {
    const double x = in[i];
    if (!(x >= 0 && x <= 4294967295.0 && x == std::floor(x)))
      throw core::ConfigError("checkpoint: forecast error stream: expected a 32-bit word, found " +
                              core::format_number(x));
    w[i / 2] = (w[i / 2] << 32) | static_cast<uint64_t>(x);
  }
  st.rng.set_state(w);
  return n;
}

std::vector<core::ParamDef> forecast_params(int default_horizon, const std::string& what) {
  std::vector<core::ParamDef> out = {
      core::int_param("forecast_horizon", default_horizon, 0, kMaxHorizon,
                      "steps ahead in the observation's " + what + " (0: none)"),
      core::float_param(
          "forecast_noise", 0.0, [](double x) { return x >= 0 && x <= 1; }, "a number in [0, 1]",
          "relative forecast error one step ahead; the spread at lead k is forecast_noise · "
          "sqrt(k) (a Gaussian random walk, truncated at 0; 0: perfect forecast)"),
  };
  out[1].inapplicable = [](const core::ParamTable& s) -> std::string {
    if (s.has("forecast_horizon") && s.integer("forecast_horizon") == 0)
      return "there is no forecast to perturb, found forecast_horizon = 0";
    return "";
  };
  out[1].applies = "forecast_horizon > 0";
  return out;
}

ForecastParams forecast_from(const core::ParamTable& section) {
  ForecastParams p;
  p.horizon = static_cast<int>(section.integer("forecast_horizon"));
  p.noise = section.number("forecast_noise");
  return p;
}

}  // namespace pz::envs
