// The TSO task's synthetic daily shapes (see synthetic_shapes.hpp).
#include "powerzoo/data/synthetic_shapes.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pz::data {
namespace {
constexpr double kPi = std::numbers::pi;
}  // namespace

double synthetic_gross(double t_h) { return 0.75 + 0.25 * std::sin(2 * kPi * (t_h - 3) / 24); }

double synthetic_wind(double t_h) { return 0.3 + 0.2 * std::sin(2 * kPi * (t_h - 2) / 24 + kPi); }

double synthetic_solar(double t_h) {
  const double h = std::fmod(t_h, 24.0);
  const double on = std::abs(h - 12.0) < 6.0 ? 1.0 : 0.0;
  return 0.4 * std::max(std::cos(2 * kPi * (t_h - 12) / 24) * on, 0.0);
}

double synthetic_net_load(double gross_norm, double t_h) {
  return std::clamp(gross_norm - 0.7 * synthetic_wind(t_h) - 0.5 * synthetic_solar(t_h), 0.05, 1.0);
}

}  // namespace pz::data
