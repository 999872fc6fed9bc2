// Renewable (PV / wind) bundle: curtailment and reactive power inside the inverter's S rating
// (as PowerZooJax's renewable bundle, powerzoojax/envs/resource/renewable.py).
#pragma once

#include <span>
#include <vector>

namespace pz::devices {

/// One inverter-connected renewable unit. Capacity in MW, S rating in MVA.
struct RenewableDevice {
  int bus = 0;                      ///< 0-based bus position in the host's case (ignored busless)
  double cap_mw = 0.2;              ///< installed capacity; available P = cap·cf
  double s_rated_mva = 0;           ///< 0 means 1.1·cap
  double curtail_cost_per_mwh = 0;  ///< $ per curtailed MWh
};

/// Plain-array state; vectors are [n_devices].
struct RenewableState {
  std::vector<double> cf;            ///< capacity factor of the last step (or of reset)
  std::vector<double> p_mw;          ///< last step's P injection
  std::vector<double> q_mvar;        ///< last step's Q injection
  std::vector<double> curtail_frac;  ///< last step's curtailed fraction in [0, 1]
};

/// Totals of one bundle step.
struct RenewableStep {
  double p_mw = 0;              ///< Σ P
  double q_mvar = 0;            ///< Σ Q
  double available_mw = 0;      ///< Σ cap·cf
  double curtailed_mw = 0;      ///< Σ (cap·cf − P)
  double cost_curtailment = 0;  ///< Σ curtailed·dt·curtail_cost  [$]
  double cost_q_clip = 0;       ///< Σ |Q_des − Q|/S
  double cost_sum() const { return cost_curtailment + cost_q_clip; }
};

/// A bundle of renewables whose capacity factors the host supplies each step (so one profile
/// machinery serves every env). Action per device by flags (curtailment, Q): (on, on) [a_c, a_q];
/// (on, off) [a_c]; (off, on) [a_q]; (off, off) none. a ∈ [−1, 1] (clipped, non-finite → 0):
/// curtail = (1 − a_c)/2 (a_c = +1 is no curtailment), P = cap·cf·(1 − curtail),
/// Q = clip(a_q·S, ±√(S² − P²)). Observation per device, clipped: (on, on) [cf, P/cap, Q/S,
/// curtail]; (on, off) [cf, P/cap, curtail]; (off, on) [cf, P/cap, Q/S]; (off, off) [cf].
class Renewable {
 public:
  /// Throws core::ConfigError naming the device for cap < 0, S < cap, a negative cost.
  Renewable(std::vector<RenewableDevice> devices, double dt_hours, bool curtailment,
            bool q_control);

  int n_devices() const { return static_cast<int>(dev_.size()); }
  int act_per_device() const { return static_cast<int>(curtail_) + static_cast<int>(q_control_); }
  int obs_per_device() const { return 1 + (curtail_ || q_control_ ? 1 : 0) + act_per_device(); }
  int action_dim() const { return act_per_device() * n_devices(); }
  int obs_dim() const { return obs_per_device() * n_devices(); }
  bool curtailment() const { return curtail_; }
  bool q_control() const { return q_control_; }
  double dt_hours() const { return dt_; }
  const std::vector<RenewableDevice>& devices() const { return dev_; }
  double s_rated_mva(int d) const;

  RenewableState make_state() const;
  /// Powers to 0; cf to cf0 [n_devices] (empty = 0).
  void reset(RenewableState& s, std::span<const double> cf0 = {}) const;
  /// cf [n_devices] in [0, 1] (clipped; non-finite → 0); writes injections p_mw / q_mvar
  /// [n_devices] (q may be empty without Q control).
  RenewableStep step(RenewableState& s, std::span<const float> action, std::span<const double> cf,
                     std::span<double> p_mw, std::span<double> q_mvar) const;
  void observe(const RenewableState& s, std::span<float> obs) const;

 private:
  std::vector<RenewableDevice> dev_;
  double dt_ = 0.5;
  bool curtail_ = true;
  bool q_control_ = true;
};

}  // namespace pz::devices
