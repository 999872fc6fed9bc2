// Diesel generator bundle: memoryless dispatch with a minimum stable output, fuel cost and CO2
// (as PowerZooJax's diesel bundle, powerzoojax/envs/resource/diesel.py).
#pragma once

#include <span>
#include <vector>

namespace pz::devices {

/// One diesel unit. P in MW, fuel in $/MWh, emissions in kg CO2 per kWh.
struct DieselDevice {
  int bus = 0;  ///< 0-based bus position (ignored busless)
  double p_max_mw = 0.6;
  double fuel_cost_per_mwh = 300;
  double emission_kg_per_kwh = 0.8;
  double p_min_norm = 0;  ///< minimum stable output as a fraction of p_max, [0, 1]
};

struct DieselState {
  std::vector<double> p_mw;  ///< [n_devices] last step's output
};

struct DieselStep {
  double p_mw = 0;       ///< Σ P
  double fuel_cost = 0;  ///< Σ P·dt·fuel  [$]
  double carbon_kg = 0;  ///< Σ P·dt·1000·EF  [kg]
};

/// A bundle of diesel units. Action per device a ∈ [0, 1] (clipped, non-finite → 0):
/// on = a > p_min_norm/2, P = on ? max(a, p_min_norm)·p_max : 0. Observation per device
/// [P/p_max, 1 − P/p_max].
class Diesel {
 public:
  static constexpr int kActPerDevice = 1;
  static constexpr int kObsPerDevice = 2;

  /// Throws core::ConfigError naming the device for p_max ≤ 0, negative costs or emissions,
  /// p_min_norm outside [0, 1].
  Diesel(std::vector<DieselDevice> devices, double dt_hours);

  int n_devices() const { return static_cast<int>(dev_.size()); }
  int action_dim() const { return kActPerDevice * n_devices(); }
  int obs_dim() const { return kObsPerDevice * n_devices(); }
  double dt_hours() const { return dt_; }
  const std::vector<DieselDevice>& devices() const { return dev_; }

  DieselState make_state() const;
  void reset(DieselState& s) const;
  /// Output (MW) device d gives for action a, without changing any state.
  double output_mw(int d, double a) const;
  DieselStep step(DieselState& s, std::span<const float> action, std::span<double> p_mw) const;
  void observe(const DieselState& s, std::span<float> obs) const;

 private:
  std::vector<DieselDevice> dev_;
  double dt_ = 0.5;
};

}  // namespace pz::devices
