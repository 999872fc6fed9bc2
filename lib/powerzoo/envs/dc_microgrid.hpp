// Data-centre microgrid env (PowerZooJax powerzoojax/envs/microgrid/dc_microgrid.py): an AI data
// centre behind the meter with PV, a battery, a diesel unit and a capped grid import on one bus,
// 288 five-minute steps; the benchmark's reward shaping and diesel autobalance (PowerZooJax
// benchmarks/dc_microgrid/_reward_shaping.py) as options. docs/design.md §4.8 has the details.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "powerzoo/devices/battery.hpp"
#include "powerzoo/devices/datacenter.hpp"
#include "powerzoo/devices/diesel.hpp"
#include "powerzoo/devices/renewable.hpp"
#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/forecast.hpp"
#include "powerzoo/envs/outages.hpp"

namespace pz::envs {

/// Weights of the benchmark's shaped reward (_reward_shaping.py): shaped = raw − Σ weight·term with
/// the terms cost_sla, cost_overtemp, cost_power_deficit, spill/p_load, |residual|/p_load and the
/// dispatch tracking error.
struct DcmgShaping {
  double sla = 50, overtemp = 30, power_deficit = 200, power_spill = 100, power_balance = 0,
         dispatch_tracking = 40;
};

/// Everything a DC microgrid is built from; the defaults are the reference factory's (an island
/// with a 0.4 MW PV plant), the task preset sets the benchmark's values (tasks/dc_microgrid.cpp).
struct DcMicrogridParams {
  /// The data centre (datacenter.py's defaults but 0.4 MW base IT power); dc.dt_hours must equal
  /// dt_hours.
  devices::DataCenterParams dc{.p_base_mw = 0.4, .dt_hours = 5.0 / 60.0};
  /// One battery, P only: 2 MWh, 0.5 MW, one-way 0.95, SOC [0.1, 0.9] from 0.5.
  devices::BatteryDevice battery{.p_rated_mw = 0.5, .capacity_mwh = 2.0};
  devices::RenewableDevice pv{.cap_mw = 0.4};  ///< one PV plant, no curtailment, no Q
  devices::DieselDevice dg;                    ///< one diesel unit: 0.6 MW, 300 $/MWh, 0.8 kg/kWh
  double battery_deg_cost_per_mwh = 5;
  double w_cost = 0.5, w_carbon = 0.3;  ///< reward weights of the $ and kg CO2 terms
  double grid_import_max_mw = 0;        ///< 0: a true island
  double grid_price_ref = 150;          ///< price normalizer of the observation ($/MWh)
  double grid_carbon_kg_per_kwh = 0.18;
  double terminal_soc_target = 0.5, terminal_soc_penalty = 0;  ///< penalty·(soc − target)² $
  int horizon = 288;
  double dt_hours = 5.0 / 60.0;
  /// Exogenous series indexed from the episode's start step s0 by s0 + t (modulo their own
  /// length): inference fraction (required), PV capacity factor in [0, 1] (required), grid
  /// price $/MWh (null: no price signal, price 0).
  std::shared_ptr<const std::vector<double>> cpu, solar, price;
  /// Read the inference fraction at cpu[t] instead of cpu[s0 + t] (the reference's workload
  /// OOD splits take the new trace from its first row in every episode).
  bool cpu_from_first_row = false;
  double solar_scale = 1;    ///< multiplies the PV capacity factor (renewable_drought: 0.2)
  double temp_offset_c = 0;  ///< added to the synthetic outdoor temperature (cooling_stress: 5)
  /// Episode start steps (s0, indexes the series); training draws one, evaluation spaces them.
  std::vector<int64_t> episode_starts = {0};
  bool shaping = false;  ///< Step::shaped_reward = the benchmark's shaped reward
  DcmgShaping weights;
  bool dg_autobalance = false;  ///< the diesel command becomes the same-step residual slack
  /// Forecast fields (envs/forecast.hpp): horizon 0 adds none.
  ForecastParams forecast;
  /// Outages of the components (envs/outages.hpp, docs/outages.md), of the kinds
  /// DcMicrogrid::kComponents; the schedule read with those names; n1 kNone or kComponent.
  OutageParams outages;
  /// The components the random model fails (outages.rate > 0), parallel to kComponents.
  std::array<bool, 4> outage_random = {true, true, true, true};
};

/// Action [train_sched, ft_sched, cooling, battery (+ discharge), diesel], box [0,0,0,−1,0] ..
/// 1 (clipped; non-finite → 0). Step (t = pre-step counter): the data centre (inference fraction
/// cpu[s0 + t], T_out = 20 + 8·sin(2π(h − 8)/24) + offset at hour h of step t) gives the load
/// P_dc; battery, PV (cf = solar[s0 + t]·scale) and diesel give the supply; residual = supply −
/// load, import = min((−residual)⁺, cap), deficit = (−(residual + import))⁺ and spill =
/// (residual + import)⁺ (a |residual + import| below 1e-6 MW counts as 0: rounding of the
/// autobalanced diesel command). Reward = −P_dc·dt + w_cost·(−(fuel + import·dt·price[s0 + t] +
/// |P_batt|·dt·deg + terminal SOC $)) + w_carbon·(−(diesel kg + import·dt·1000·carbon)). Costs
/// (sla, overtemp, power_deficit) = (n_expired/n_gpus, (T_z − T_crit)⁺/(45 − T_crit),
/// deficit/max(P_dc, 1e-6)). With dg_autobalance the diesel command is
/// clip(−(residual + import)/DG_max, 0, 1) of the same step with the diesel at 0 (the reference
/// previews that step with the same state and key; nothing before the diesel depends on its
/// command, so the preview is that partial balance). Observation [24]: the fields of spec(),
/// from the post-step state (as PowerZooJax's dc_microgrid.py); with forecast.horizon = H > 0 it
/// gains solar_forecast [H] (capacity factor · scale of steps s0 + t + 1..H, clipped to [0, 1])
/// and, with a price series, price_forecast [H] (price / grid_price_ref, clipped to [0, 1]), both
/// with the errors of envs/forecast.hpp (their stream is saved state); past the series' end they
/// wrap as the series do.
/// Outages (params.outages active): the components pv, battery, diesel, grid (one unit each) go
/// out of service as envs/outages.hpp draws or schedules them; an out component produces and
/// absorbs nothing whatever the action: PV 0, battery 0 MW with its SOC held, diesel 0 (also
/// under autobalance; dg_command 0), import cap 0; the rest balances as above, a shortfall is
/// power_deficit. The observation gains component_status [4] (1 in service, 0 out; the status the
/// next step runs with) after every other field, the traces info/component_status [4] (row t: the
/// status step t ran with); the outage stream draws from the env's stream after the forecast's at
/// reset and after the data centre's in each step. Without outages nothing draws or changes.
/// Info::sums:
/// spec().episode_sum_names (rates are pre-divided by the horizon); Info::trace:
/// spec().trace_names; Info::is_safe = every cost 0.
class DcMicrogrid final : public Env {
 public:
  static constexpr int kObsDim = 24;
  static constexpr int kActDim = 5;
  /// The components outages can take out, in the order of component_status and of the rows of
  /// the outage state (scenario files name them in the element column, index 1).
  static constexpr std::array<const char*, 4> kComponents = {"pv", "battery", "diesel", "grid"};

  /// Throws core::ConfigError for bad device parameters (naming the device and field), missing
  /// cpu or solar series, no episode starts, horizon < 1, dc.dt_hours ≠ dt_hours, or an outage
  /// scenario row past the horizon or of a unit other than 1 (naming the file and line).
  explicit DcMicrogrid(DcMicrogridParams p);

  const EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<State> make_state() const override;
  void reset(State& s, core::Rng& rng, std::span<float> obs,
             const ResetOptions& opt) const override;
  Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
            std::span<float> costs, Info* info) const override;
  void save_state(const State& s, std::vector<double>& out) const override;
  size_t load_state(State& s, std::span<const double> in) const override;
  void write_trace(const State& s, std::span<float> out) const override;

  const DcMicrogridParams& params() const { return p_; }
  const devices::DataCenter& datacenter() const { return dc_; }
  const devices::Battery& battery() const { return batt_; }
  const devices::Diesel& diesel() const { return dg_; }
  /// Episode start s0 and step t of a state (tests and baselines).
  static int64_t episode_start(const State& s);
  static int step_index(const State& s);
  /// The battery's SOC of a state.
  static double soc(const State& s);

 private:
  struct McState;
  struct Flows;
  void write_obs(McState& s, std::span<float> obs) const;  // draws forecast errors
  void write_info(const McState& s, const Flows& f, Info* info) const;
  double outdoor_temp_c(int t) const;
  double series(const std::vector<double>& v, int64_t k) const;
  double price_at(int64_t k) const;
  double window_pv_peak_mw(int64_t start) const;
  double tracking_cost(double soc_pre, double price, double p_load, double p_pv, double p_batt,
                       double p_dg) const;

  DcMicrogridParams p_;
  devices::DataCenter dc_;
  devices::Battery batt_;
  devices::Renewable pv_;
  devices::Diesel dg_;
  std::vector<double> price_max6h_;  ///< [len(price)] max over the next 72 steps
  Forecast forecast_;
  OutageProcess outages_;
  int status_offset_ = 0;  ///< component_status in the observation (outages active)
  EnvSpec spec_;
};

}  // namespace pz::envs
