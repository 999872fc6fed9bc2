// Battery bundle (PowerZooJax powerzoojax/envs/resource/battery.py).
#include "powerzoo/devices/battery.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"

namespace pz::devices {
namespace {
double clip_action(float a) {
  return std::isfinite(a) ? std::clamp(static_cast<double>(a), -1.0, 1.0) : 0.0;
}
bool in_unit_open_closed(double x) { return x > 0 && x <= 1; }
}  // namespace

void resolve_battery_efficiencies(BatteryDevice& d, double eta_charge, double eta_discharge,
                                  double eta_roundtrip) {
  const bool rt = !std::isnan(eta_roundtrip);
  if (rt && !in_unit_open_closed(eta_roundtrip))
    throw core::ConfigError("battery: expected eta_roundtrip in (0, 1], found " +
                            core::format_number(eta_roundtrip));
  const double side = rt ? std::sqrt(eta_roundtrip) : 0.95;
  d.eta_charge = std::isnan(eta_charge) ? side : eta_charge;
  d.eta_discharge = std::isnan(eta_discharge) ? side : eta_discharge;
  if (!in_unit_open_closed(d.eta_charge) || !in_unit_open_closed(d.eta_discharge))
    throw core::ConfigError("battery: expected eta_charge and eta_discharge in (0, 1], found " +
                            core::format_number(d.eta_charge) + " and " +
                            core::format_number(d.eta_discharge));
}

Battery::Battery(std::vector<BatteryDevice> devices, double dt_hours, bool q_control)
    : dev_(std::move(devices)), dt_(dt_hours), q_control_(q_control) {
  if (!(dt_ > 0) || !std::isfinite(dt_))
    throw core::ConfigError("Battery: expected dt_hours > 0, found " + core::format_number(dt_));
  for (size_t i = 0; i < dev_.size(); ++i) {
    const BatteryDevice& d = dev_[i];
    const std::string at = "battery device " + std::to_string(i) + ": expected ";
    if (!(d.p_rated_mw > 0) || !std::isfinite(d.p_rated_mw))
      throw core::ConfigError(at + "p_rated_mw > 0, found " + core::format_number(d.p_rated_mw));
    if (!(d.capacity_mwh > 0) || !std::isfinite(d.capacity_mwh))
      throw core::ConfigError(at + "capacity_mwh > 0, found " +
                              core::format_number(d.capacity_mwh));
    if (!std::isfinite(d.s_rated_mva) || (d.s_rated_mva != 0 && d.s_rated_mva < d.p_rated_mw))
      throw core::ConfigError(at + "s_rated_mva >= p_rated_mw (" +
                              core::format_number(d.p_rated_mw) + "), found " +
                              core::format_number(d.s_rated_mva));
    if (!in_unit_open_closed(d.eta_charge) || !in_unit_open_closed(d.eta_discharge))
      throw core::ConfigError(at + "eta_charge and eta_discharge in (0, 1], found " +
                              core::format_number(d.eta_charge) + " and " +
                              core::format_number(d.eta_discharge));
    if (!(d.soc_min >= 0 && d.soc_min < d.soc_max && d.soc_max <= 1))
      throw core::ConfigError(at + "0 <= soc_min < soc_max <= 1, found soc_min " +
                              core::format_number(d.soc_min) + ", soc_max " +
                              core::format_number(d.soc_max));
    if (!(d.soc_init >= d.soc_min && d.soc_init <= d.soc_max))
      throw core::ConfigError(at + "soc_init inside [soc_min, soc_max], found " +
                              core::format_number(d.soc_init));
    if (!(d.cycle_cost_per_mwh >= 0) || !std::isfinite(d.cycle_cost_per_mwh))
      throw core::ConfigError(at + "cycle_cost_per_mwh >= 0, found " +
                              core::format_number(d.cycle_cost_per_mwh));
  }
}

double Battery::s_rated_mva(int d) const {
  return dev_[d].s_rated_mva > 0 ? dev_[d].s_rated_mva : dev_[d].p_rated_mw;
}

double Battery::discharge_headroom_mw(int d, double soc) const {
  const BatteryDevice& b = dev_[d];
  return std::clamp((soc - b.soc_min) * b.capacity_mwh * b.eta_discharge / dt_, 0.0, b.p_rated_mw);
}

double Battery::charge_headroom_mw(int d, double soc) const {
  const BatteryDevice& b = dev_[d];
  return std::clamp((b.soc_max - soc) * b.capacity_mwh / (b.eta_charge * dt_), 0.0, b.p_rated_mw);
}

BatteryState Battery::make_state() const {
  BatteryState s;
  reset(s);
  return s;
}

void Battery::reset(BatteryState& s) const {
  s.soc.resize(dev_.size());
  for (size_t i = 0; i < dev_.size(); ++i) s.soc[i] = dev_[i].soc_init;
  s.p_mw.assign(dev_.size(), 0.0);
  s.q_mvar.assign(dev_.size(), 0.0);
}

BatteryStep Battery::step(BatteryState& s, std::span<const float> action, std::span<double> p_mw,
                          std::span<double> q_mvar) const {
  BatteryStep out;
  const int k = act_per_device();
  for (int d = 0; d < n_devices(); ++d) {
    const BatteryDevice& b = dev_[d];
    const double soc = s.soc[d];
    const double p_des = clip_action(action[k * d]) * b.p_rated_mw;
    const double p = std::clamp(p_des, -charge_headroom_mw(d, soc), discharge_headroom_mw(d, soc));
    const double dsoc = p >= 0 ? -p * dt_ / (b.eta_discharge * b.capacity_mwh)
                               : -p * dt_ * b.eta_charge / b.capacity_mwh;
    s.soc[d] = std::clamp(soc + dsoc, b.soc_min, b.soc_max);
    out.cost_clip += std::abs(p_des - p) / b.p_rated_mw;
    double q = 0;
    if (q_control_) {
      const double sr = s_rated_mva(d);
      const double q_des = clip_action(action[k * d + 1]) * sr;
      const double q_max = std::sqrt(std::max(sr * sr - p * p, 0.0));
      q = std::clamp(q_des, -q_max, q_max);
      out.cost_clip += std::abs(q_des - q) / sr;
      q_mvar[d] = q;
    }
    p_mw[d] = p;
    s.p_mw[d] = p;
    s.q_mvar[d] = q;
    out.p_mw += p;
    out.q_mvar += q;
    out.throughput_mwh += std::abs(p) * dt_;
    out.cost_cycle += std::abs(p) * dt_ * b.cycle_cost_per_mwh;
  }
  return out;
}

void Battery::observe(const BatteryState& s, std::span<float> obs) const {
  const int k = obs_per_device();
  for (int d = 0; d < n_devices(); ++d) {
    float* o = &obs[static_cast<size_t>(k) * d];
    o[0] = static_cast<float>(s.soc[d]);
    o[1] = static_cast<float>(std::clamp(s.p_mw[d] / dev_[d].p_rated_mw, -1.0, 1.0));
    if (q_control_) o[2] = static_cast<float>(std::clamp(s.q_mvar[d] / s_rated_mva(d), -1.0, 1.0));
  }
}

}  // namespace pz::devices
