// FlexLoad bundle (PowerZooJax powerzoojax/envs/resource/flexload.py).
#include "powerzoo/devices/flexload.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"

namespace pz::devices {
namespace {
constexpr int kS = FlexLoadState::kSlots;
double clip01(double x) { return std::isfinite(x) ? std::clamp(x, 0.0, 1.0) : 0.0; }
}  // namespace

FlexLoad::FlexLoad(std::vector<FlexLoadDevice> devices, double dt_hours)
    : dev_(std::move(devices)), dt_(dt_hours) {
  if (!(dt_ > 0)) throw core::ConfigError("FlexLoad: expected dt_hours > 0");
  for (size_t i = 0; i < dev_.size(); ++i) {
    const auto& d = dev_[i];
    const std::string at = "FlexLoad device " + std::to_string(i) + ": ";
    if (!(d.curtail_cap_mw >= 0) || !(d.shift_cap_mw >= 0))
      throw core::ConfigError(at + "expected capacities >= 0");
    if (!(d.curtail_cost_per_mwh >= 0) || !(d.shift_cost_per_mwh >= 0))
      throw core::ConfigError(at + "expected costs >= 0");
    if (d.shift_horizon < 1 || d.shift_horizon > kS)
      throw core::ConfigError(at + "expected shift_horizon in 1..64, found " +
                              std::to_string(d.shift_horizon));
  }
}

FlexLoadState FlexLoad::make_state() const {
  FlexLoadState s;
  reset(s);
  return s;
}

void FlexLoad::reset(FlexLoadState& s) const {
  const size_t n = dev_.size();
  s.buf.assign(n * kS, 0.0);
  s.head.assign(n, 0);
  s.size.assign(n, 0);
  s.curtailed.assign(n, 0.0);
  s.shift_out.assign(n, 0.0);
  s.shift_in.assign(n, 0.0);
}

double FlexLoad::buffered_mw(const FlexLoadState& s, int d) const {
  const double* buf = &s.buf[static_cast<size_t>(d) * kS];
  double e = 0;
  for (int i = 0; i < s.size[d]; ++i) e += buf[(s.head[d] + i) % kS];
  return e;
}

FlexLoadStep FlexLoad::step(FlexLoadState& s, std::span<const float> action,
                            std::span<double> p_inject_mw) const {
  FlexLoadStep out;
  for (int d = 0; d < n_devices(); ++d) {
    const FlexLoadDevice& dv = dev_[d];
    double* buf = &s.buf[static_cast<size_t>(d) * kS];
    int& head = s.head[d];
    int& size = s.size[d];
    // 1. Release the slot due now.
    double shift_in = 0;
    if (size > 0) {
      shift_in = buf[head];
      buf[head] = 0;
      head = (head + 1) % kS;
      size -= 1;
    }
    // 2. Curtail and shift out.
    const double curtail = clip01(action[kActPerDevice * d]) * dv.curtail_cap_mw;
    const double shift_out = clip01(action[kActPerDevice * d + 1]) * dv.shift_cap_mw;
    // 3. Deferred energy returns evenly over the next H steps.
    if (shift_out > 0) {
      const int H = dv.shift_horizon;
      for (int i = 0; i < H; ++i) buf[(head + i) % kS] += shift_out / H;
      size = std::min(std::max(size, H), kS);
    }
    // 4. Injection; 5. cost on the energy still buffered after the push.
    p_inject_mw[d] = curtail + shift_out - shift_in;
    const double buffered = buffered_mw(s, d);
    out.cost += curtail * dt_ * dv.curtail_cost_per_mwh + buffered * dt_ * dv.shift_cost_per_mwh;
    s.curtailed[d] = curtail;
    s.shift_out[d] = shift_out;
    s.shift_in[d] = shift_in;
    out.curtailed_mw += curtail;
    out.shift_out_mw += shift_out;
    out.shift_in_mw += shift_in;
  }
  return out;
}

void FlexLoad::observe(const FlexLoadState& s, std::span<float> obs) const {
  for (int d = 0; d < n_devices(); ++d) {
    const FlexLoadDevice& dv = dev_[d];
    const double cc = std::max(dv.curtail_cap_mw, 1e-6);
    const double sc = std::max(dv.shift_cap_mw, 1e-6);
    float* o = &obs[static_cast<size_t>(kObsPerDevice) * d];
    o[0] = static_cast<float>(clip01(s.curtailed[d] / cc));
    o[1] = static_cast<float>(clip01(s.shift_out[d] / sc));
    o[2] = static_cast<float>(clip01(s.shift_in[d] / sc));
    o[3] =
        static_cast<float>(clip01(static_cast<double>(s.size[d]) / std::max(dv.shift_horizon, 1)));
    o[4] = static_cast<float>(
        clip01(buffered_mw(s, d) / std::max(dv.shift_cap_mw * dv.shift_horizon, 1e-6)));
  }
}

}  // namespace pz::devices
