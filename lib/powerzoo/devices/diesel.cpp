// Diesel bundle (PowerZooJax powerzoojax/envs/resource/diesel.py).
#include "powerzoo/devices/diesel.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"

namespace pz::devices {
namespace {}  // namespace

Diesel::Diesel(std::vector<DieselDevice> devices, double dt_hours)
    : dev_(std::move(devices)), dt_(dt_hours) {
  if (!(dt_ > 0) || !std::isfinite(dt_))
    throw core::ConfigError("Diesel: expected dt_hours > 0, found " + core::format_number(dt_));
  for (size_t i = 0; i < dev_.size(); ++i) {
    const DieselDevice& d = dev_[i];
    const std::string at = "diesel device " + std::to_string(i) + ": expected ";
    if (!(d.p_max_mw > 0) || !std::isfinite(d.p_max_mw))
      throw core::ConfigError(at + "p_max_mw > 0, found " + core::format_number(d.p_max_mw));
    if (!(d.fuel_cost_per_mwh >= 0) || !std::isfinite(d.fuel_cost_per_mwh))
      throw core::ConfigError(at + "fuel_cost_per_mwh >= 0, found " +
                              core::format_number(d.fuel_cost_per_mwh));
    if (!(d.emission_kg_per_kwh >= 0) || !std::isfinite(d.emission_kg_per_kwh))
      throw core::ConfigError(at + "emission_kg_per_kwh >= 0, found " +
                              core::format_number(d.emission_kg_per_kwh));
    if (!(d.p_min_norm >= 0 && d.p_min_norm <= 1))
      throw core::ConfigError(at + "p_min_norm in [0, 1], found " +
                              core::format_number(d.p_min_norm));
  }
}

DieselState Diesel::make_state() const {
  DieselState s;
  reset(s);
  return s;
}

void Diesel::reset(DieselState& s) const { s.p_mw.assign(dev_.size(), 0.0); }

double Diesel::output_mw(int d, double a) const {
  const DieselDevice& g = dev_[d];
  a = std::isfinite(a) ? std::clamp(a, 0.0, 1.0) : 0.0;
  const bool on = a > g.p_min_norm / 2;
  return on ? std::max(a, g.p_min_norm) * g.p_max_mw : 0.0;
}

DieselStep Diesel::step(DieselState& s, std::span<const float> action,
                        std::span<double> p_mw) const {
  DieselStep out;
  for (int d = 0; d < n_devices(); ++d) {
    const double p = output_mw(d, action[d]);
    p_mw[d] = p;
    s.p_mw[d] = p;
    out.p_mw += p;
    out.fuel_cost += p * dt_ * dev_[d].fuel_cost_per_mwh;
    out.carbon_kg += p * dt_ * 1000.0 * dev_[d].emission_kg_per_kwh;
  }
  return out;
}

void Diesel::observe(const DieselState& s, std::span<float> obs) const {
  for (int d = 0; d < n_devices(); ++d) {
    const double x = s.p_mw[d] / dev_[d].p_max_mw;
    obs[2 * d] = static_cast<float>(x);
    obs[2 * d + 1] = static_cast<float>(1.0 - x);
  }
}

}  // namespace pz::devices
