// FlexLoad bundle: curtailable / shiftable loads with a 64-slot ring buffer of deferred energy
// (PowerZooJax powerzoojax/envs/resource/flexload.py, the DSO task's "flexible loads").
#pragma once

#include <span>
#include <vector>

namespace pz::devices {

/// One flexible load. Capacities in MW, costs in $/MWh, horizon in steps (1..64).
struct FlexLoadDevice {
  int bus = 0;  ///< 0-based bus position in the case
  double curtail_cap_mw = 0;
  double shift_cap_mw = 0;
  int shift_horizon = 4;
  double curtail_cost_per_mwh = 50;
  double shift_cost_per_mwh = 10;
};

/// Plain-array state of a bundle (copyable; save/restore is a struct copy).
/// buf holds n_devices × 64 slots, device-major.
struct FlexLoadState {
  static constexpr int kSlots = 64;
  std::vector<double> buf;        ///< [n_dev × 64] MW to return at future steps
  std::vector<int> head, size;    ///< [n_dev] ring-buffer head and occupied length
  std::vector<double> curtailed;  ///< [n_dev] last step's curtailment (MW)
  std::vector<double> shift_out;  ///< [n_dev] last step's shifted-out load (MW)
  std::vector<double> shift_in;   ///< [n_dev] last step's returned load (MW)
};

/// Totals of one bundle step.
struct FlexLoadStep {
  double cost = 0;          ///< $ (Σ curtail·dt·c_curt + buffered energy·dt·c_shift)
  double curtailed_mw = 0;  ///< Σ over devices
  double shift_out_mw = 0;
  double shift_in_mw = 0;
};

/// A bundle of FlexLoad devices. Action per device [curtail_frac, shift_frac] (device-major),
/// each clipped to [0, 1] (negative policy outputs mean "do nothing"). Per device and step:
/// release (shift_in = buf[head], head advances), curtail = a0·curtail_cap, shift_out =
/// a1·shift_cap spread evenly over the next H slots (size = min(max(size, H), 64)),
/// injection = curtail + shift_out − shift_in (MW, > 0 reduces the bus load).
/// Observation per device (5, each clipped to [0, 1]): curtail/ccap, shift_out/scap,
/// shift_in/scap, size/H, buffered energy/(scap·H).
class FlexLoad {
 public:
  static constexpr int kObsPerDevice = 5;
  static constexpr int kActPerDevice = 2;

  /// Throws core::ConfigError for a negative capacity/cost or a horizon outside 1..64.
  FlexLoad(std::vector<FlexLoadDevice> devices, double dt_hours = 0.5);

  int n_devices() const { return static_cast<int>(dev_.size()); }
  int action_dim() const { return kActPerDevice * n_devices(); }
  int obs_dim() const { return kObsPerDevice * n_devices(); }
  const std::vector<FlexLoadDevice>& devices() const { return dev_; }
  double dt_hours() const { return dt_; }

  FlexLoadState make_state() const;
  /// Empties every buffer and the last-step quantities.
  void reset(FlexLoadState& s) const;
  /// Applies action [action_dim]; writes p_inject_mw [n_devices] (MW injected at each device's
  /// bus). Non-finite action entries count as 0.
  FlexLoadStep step(FlexLoadState& s, std::span<const float> action,
                    std::span<double> p_inject_mw) const;
  /// Energy (MW·steps) waiting in device d's buffer.
  double buffered_mw(const FlexLoadState& s, int d) const;
  /// Writes the observation [obs_dim].
  void observe(const FlexLoadState& s, std::span<float> obs) const;

 private:
  std::vector<FlexLoadDevice> dev_;
  double dt_ = 0.5;
};

}  // namespace pz::devices
