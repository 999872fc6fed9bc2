// Battery bundle: P (and optionally Q inside the S rating, P first) with an SOC window and one-way
// efficiencies (as PowerZooJax's battery bundle, powerzoojax/envs/resource/battery.py).
#pragma once

#include <span>
#include <vector>

namespace pz::devices {

/// One battery. Powers in MW / MVA, energy in MWh, efficiencies one-way in (0, 1].
struct BatteryDevice {
  int bus = 0;                  ///< 0-based bus position in the host's case (ignored busless)
  double p_rated_mw = 20;       ///< charge and discharge limit
  double capacity_mwh = 50;     ///< C
  double s_rated_mva = 0;       ///< apparent-power rating; 0 means "= p_rated_mw"
  double eta_charge = 0.95;     ///< η_c: grid MWh → stored MWh
  double eta_discharge = 0.95;  ///< η_d: stored MWh → grid MWh
  double soc_min = 0.1;
  double soc_max = 0.9;
  double soc_init = 0.5;
  double cycle_cost_per_mwh = 0;  ///< $ per MWh of |P|·dt
};

/// Resolves one-way efficiencies as the reference does: a side given stays; with a round-trip
/// efficiency, each side not given becomes √η_rt; otherwise 0.95. Pass NaN for "not given".
/// Throws core::ConfigError when a result is outside (0, 1].
void resolve_battery_efficiencies(BatteryDevice& d, double eta_charge, double eta_discharge,
                                  double eta_roundtrip);

/// Plain-array state (copyable; save/restore is a struct copy). All vectors are [n_devices].
struct BatteryState {
  std::vector<double> soc;     ///< state of charge in [soc_min, soc_max]
  std::vector<double> p_mw;    ///< last step's P (+ discharge = injection into the grid)
  std::vector<double> q_mvar;  ///< last step's Q (+ = injection)
};

/// Totals of one bundle step.
struct BatteryStep {
  double p_mw = 0;            ///< Σ P
  double q_mvar = 0;          ///< Σ Q
  double throughput_mwh = 0;  ///< Σ |P|·dt
  double cost_clip = 0;       ///< Σ |P_des − P|/P_rated (+ Σ |Q_des − Q|/S), dimensionless
  double cost_cycle = 0;      ///< Σ |P|·dt·cycle_cost  [$]
  double cost_sum() const { return cost_clip + cost_cycle; }
};

/// A bundle of batteries. Action per device (device-major) [a_P] or, with Q control,
/// [a_P, a_Q], each clipped to [−1, 1] (non-finite → 0): P_des = a_P·P_rated clipped to
/// [−Pchg_max(soc), Pdis_max(soc)], then Q_des = a_Q·S clipped to ±√(S² − P²).
/// SOC: Δsoc = −P·dt/(η_d·C) when discharging, −P·dt·η_c/C when charging, clipped to the window.
/// Observation per device: [soc, P/P_rated, (Q/S)] — the real last-step values (the reference's
/// observe() reports zeros for the power channels; see docs/deviations.md).
class Battery {
 public:
  /// Throws core::ConfigError naming the device for P ≤ 0, C ≤ 0, S < P, an efficiency outside
  /// (0, 1], a SOC window outside [0, 1] or soc_init outside the window, a negative cycle cost.
  Battery(std::vector<BatteryDevice> devices, double dt_hours, bool q_control);

  int n_devices() const { return static_cast<int>(dev_.size()); }
  int act_per_device() const { return q_control_ ? 2 : 1; }
  int obs_per_device() const { return q_control_ ? 3 : 2; }
  int action_dim() const { return act_per_device() * n_devices(); }
  int obs_dim() const { return obs_per_device() * n_devices(); }
  bool q_control() const { return q_control_; }
  double dt_hours() const { return dt_; }
  const std::vector<BatteryDevice>& devices() const { return dev_; }
  /// S rating of device d after resolving 0 → P_rated (MVA).
  double s_rated_mva(int d) const;

  /// Largest discharge (MW, ≥ 0) the device can deliver for one step from this SOC:
  /// clip((soc − soc_min)·C·η_d/dt, 0, P_rated).
  double discharge_headroom_mw(int d, double soc) const;
  /// Largest charge (MW, ≥ 0): clip((soc_max − soc)·C/(η_c·dt), 0, P_rated).
  double charge_headroom_mw(int d, double soc) const;

  BatteryState make_state() const;
  /// SOC back to soc_init, powers to 0.
  void reset(BatteryState& s) const;
  /// Applies action [action_dim]; writes the injections p_mw / q_mvar [n_devices] (q may be empty
  /// without Q control).
  BatteryStep step(BatteryState& s, std::span<const float> action, std::span<double> p_mw,
                   std::span<double> q_mvar) const;
  /// Writes the observation [obs_dim].
  void observe(const BatteryState& s, std::span<float> obs) const;

 private:
  std::vector<BatteryDevice> dev_;
  double dt_ = 0.5;
  bool q_control_ = false;
};

}  // namespace pz::devices
