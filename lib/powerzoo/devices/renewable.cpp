// Renewable bundle (PowerZooJax powerzoojax/envs/resource/renewable.py).
#include "powerzoo/devices/renewable.hpp"

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
double clip01(double x) { return std::isfinite(x) ? std::clamp(x, 0.0, 1.0) : 0.0; }
}  // namespace

Renewable::Renewable(std::vector<RenewableDevice> devices, double dt_hours, bool curtailment,
                     bool q_control)
    : dev_(std::move(devices)), dt_(dt_hours), curtail_(curtailment), q_control_(q_control) {
  if (!(dt_ > 0) || !std::isfinite(dt_))
    throw core::ConfigError("Renewable: expected dt_hours > 0, found " + core::format_number(dt_));
  for (size_t i = 0; i < dev_.size(); ++i) {
    const RenewableDevice& d = dev_[i];
    const std::string at = "renewable device " + std::to_string(i) + ": expected ";
    if (!(d.cap_mw >= 0) || !std::isfinite(d.cap_mw))
      throw core::ConfigError(at + "cap_mw >= 0, found " + core::format_number(d.cap_mw));
    if (!std::isfinite(d.s_rated_mva) || (d.s_rated_mva != 0 && d.s_rated_mva < d.cap_mw))
      throw core::ConfigError(at + "s_rated_mva >= cap_mw (" + core::format_number(d.cap_mw) +
                              "), found " + core::format_number(d.s_rated_mva));
    if (!(d.curtail_cost_per_mwh >= 0) || !std::isfinite(d.curtail_cost_per_mwh))
      throw core::ConfigError(at + "curtail_cost_per_mwh >= 0, found " +
                              core::format_number(d.curtail_cost_per_mwh));
  }
}

double Renewable::s_rated_mva(int d) const {
  return dev_[d].s_rated_mva > 0 ? dev_[d].s_rated_mva : 1.1 * dev_[d].cap_mw;
}

RenewableState Renewable::make_state() const {
  RenewableState s;
  reset(s);
  return s;
}

void Renewable::reset(RenewableState& s, std::span<const double> cf0) const {
  const size_t n = dev_.size();
  s.cf.assign(n, 0.0);
  for (size_t i = 0; i < n && i < cf0.size(); ++i) s.cf[i] = clip01(cf0[i]);
  s.p_mw.assign(n, 0.0);
  s.q_mvar.assign(n, 0.0);
  s.curtail_frac.assign(n, 0.0);
}

RenewableStep Renewable::step(RenewableState& s, std::span<const float> action,
                              std::span<const double> cf, std::span<double> p_mw,
                              std::span<double> q_mvar) const {
  RenewableStep out;
  const int k = act_per_device();
  for (int d = 0; d < n_devices(); ++d) {
    const RenewableDevice& r = dev_[d];
    const double c = clip01(cf[d]);
    const double curtail = curtail_ ? (1.0 - clip_action(action[k * d])) / 2.0 : 0.0;
    const double avail = r.cap_mw * c;
    const double p = avail * (1.0 - curtail);
    double q = 0;
    if (q_control_) {
      const double sr = s_rated_mva(d);
      const double q_des = clip_action(action[k * d + (curtail_ ? 1 : 0)]) * sr;
      const double q_max = std::sqrt(std::max(sr * sr - p * p, 0.0));
      q = std::clamp(q_des, -q_max, q_max);
      if (sr > 0) out.cost_q_clip += std::abs(q_des - q) / sr;
      q_mvar[d] = q;
    }
    p_mw[d] = p;
    s.cf[d] = c;
    s.p_mw[d] = p;
    s.q_mvar[d] = q;
    s.curtail_frac[d] = curtail;
    out.p_mw += p;
    out.q_mvar += q;
    out.available_mw += avail;
    out.curtailed_mw += avail - p;
    out.cost_curtailment += (avail - p) * dt_ * r.curtail_cost_per_mwh;
  }
  return out;
}

void Renewable::observe(const RenewableState& s, std::span<float> obs) const {
  const int k = obs_per_device();
  for (int d = 0; d < n_devices(); ++d) {
    float* o = &obs[static_cast<size_t>(k) * d];
    int j = 0;
    o[j++] = static_cast<float>(s.cf[d]);
    if (!curtail_ && !q_control_) continue;
    const double cap = std::max(dev_[d].cap_mw, 1e-9);
    o[j++] = static_cast<float>(clip01(s.p_mw[d] / cap));
    if (q_control_) {
      const double sr = std::max(s_rated_mva(d), 1e-9);
      o[j++] = static_cast<float>(std::clamp(s.q_mvar[d] / sr, -1.0, 1.0));
    }
    if (curtail_) o[j++] = static_cast<float>(clip01(s.curtail_frac[d]));
  }
}

}  // namespace pz::devices
