// Per-env mechanics shared by every env: the episode and data keys.
#include "powerzoo/envs/episode.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numbers>

#include "powerzoo/core/error.hpp"

namespace pz::envs {

std::vector<core::ParamDef> episode_params() {
  return {
      core::int_param("horizon", 48, 1, INT_MAX, "steps per episode"),
      core::float_param(
          "dt_hours", 0.5, [](double x) { return x > 0 && x <= 24; }, "a number in (0, 24]",
          "step length (h); must equal the data's step"),
      core::float_param(
          "load_scale", 1.0, [](double x) { return x > 0 && x <= 1000; }, "a number in (0, 1000]",
          "multiplies every load"),
      core::float_param(
          "reward_scale", 0.01, [](double x) { return x > 0; }, "a number > 0",
          "reward = −reward_scale · cost ($/h)"),
  };
}

std::vector<core::ParamDef> data_params(const std::string& default_case,
                                        const std::string& default_profile) {
  std::vector<core::ParamDef> out = {
      core::str_param("case", default_case,
                      "bundled MATPOWER case name or path to a .m file (relative to the spec)"),
      core::str_param("profile", default_profile,
                      "bundled demand profile name or path to a CSV in MW (relative to the spec)"),
  };
  for (auto& d : out) d.is_path = true;
  return out;
}

std::vector<int64_t> train_bank(const std::vector<int64_t>& starts, int n) {
  const size_t m = starts.size();
  const size_t k =
      std::clamp<size_t>(static_cast<size_t>(std::max(n, 1)), 1, std::max<size_t>(m, 1));
  std::vector<int64_t> out;
  for (size_t i = 0; i < k && m > 0; ++i) out.push_back(starts[i * m / k]);
  return out;
}

int64_t choose_episode_start(const std::vector<int64_t>& starts, core::Rng& rng,
                             const ResetOptions& opt) {
  if (starts.empty()) return 0;
  const auto n = static_cast<uint64_t>(starts.size());
  const uint64_t i = opt.episode >= 0 ? static_cast<uint64_t>(opt.episode) * n /
                                            static_cast<uint64_t>(std::max(opt.n_episodes, 1)) % n
                                      : rng.below(n);
  return starts[i];
}

void time_of_day_features(int t, double dt_hours, float* out) {
  const int spd = std::max(1, static_cast<int>(std::lround(24.0 / dt_hours)));
  const double phase = 2 * std::numbers::pi * t / spd;
  out[0] = static_cast<float>(std::sin(phase));
  out[1] = static_cast<float>(std::cos(phase));
}

void save_clock(int t, int64_t start, std::vector<double>& out) {
  out.push_back(t);
  out.push_back(static_cast<double>(start));
}

int state_int(double x, int lo, int hi, const char* what) {
  if (!(std::isfinite(x) && x == std::floor(x) && x >= lo && x <= hi))
    throw core::ConfigError(std::string("checkpoint: ") + what + ": expected an integer in [" +
                            std::to_string(lo) + ", " + std::to_string(hi) + "], found " +
                            core::format_number(x));
  return static_cast<int>(x);
}

void load_clock(std::span<const double> in, int& t, int64_t& start) {
  // A damaged checkpoint may hold any double here; converting NaN or 1e300 to an integer is
  // undefined behaviour, and a window start past the data reads out of bounds.
  const auto integral = [](double x, double hi) {
    return std::isfinite(x) && x == std::floor(x) && x >= 0 && x <= hi;
  };
  if (!integral(in[0], 1e9) || !integral(in[1], 9e15))
    throw core::ConfigError(
        "checkpoint: env clock: expected a step and a window start that are "
        "non-negative integers, found " +
        core::format_number(in[0]) + " and " + core::format_number(in[1]));
  t = static_cast<int>(in[0]);
  start = static_cast<int64_t>(in[1]);
}

std::vector<core::ParamDef> concat(std::vector<core::ParamDef> a,
                                   const std::vector<core::ParamDef>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace pz::envs
