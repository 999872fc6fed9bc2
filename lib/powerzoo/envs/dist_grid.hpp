// DistGrid: radial distribution feeder with optional nodal DER injections and Battery, Renewable
// and FlexLoad bundles at buses (PowerZooJax's DistGridEnv, powerzoojax/envs/grid/dist.py, with
// the bundles of powerzoojax/envs/resource/). The power flow is the exact radial AC solution
// (grid::RadialNetwork::solve_into), not the reference's approximate sweep (docs/deviations.md).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "powerzoo/devices/battery.hpp"
#include "powerzoo/devices/flexload.hpp"
#include "powerzoo/devices/renewable.hpp"
#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/forecast.hpp"
#include "powerzoo/envs/outages.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dist/distflow.hpp"

namespace pz::envs {

/// Parameters of a DistGrid model. Demand at absolute step k on bus b:
///   P = bus_p_mw[b] · f_b(k), Q = bus_q_mvar[b] · f_b(k),
/// f_b(k) = shapes[bus_shape[b]][k] if bus_shape[b] >= 0, else 1. With no shapes the case's
/// PD/QD are used at every step (the reference's default profile).
struct DistGridParams {
  grid::Case grid_case;
  std::vector<double> bus_p_mw, bus_q_mvar;  ///< [n_bus]; empty ⇒ the case's PD/QD
  std::vector<std::vector<double>> shapes;   ///< load shapes, indexed by absolute step
  std::vector<int> bus_shape;                ///< [n_bus] shape index or −1; empty ⇒ all −1
  std::vector<int64_t> episode_starts;       ///< candidate start steps (needed with shapes)
  /// Starts of the training draw (ResetOptions::episode < 0); empty ⇒ episode_starts. The DERs
  /// task trains on a bank of a few windows and evaluates on evenly spaced ones.
  std::vector<int64_t> train_starts;
  int horizon = 48;
  double dt_hours = 0.5;
  double v_slack = 1.0;
  double v_min = 0.90, v_max = 1.10;  ///< voltage band (p.u.), scalars as the reference
  double loss_penalty_weight = 0.1;   ///< reward = −w · network loss (MW)
  /// Nodal DER action on every non-slack bus, in MW (the reference's ±0.005 p.u. on its
  /// 100 MVA base; expressed in MW here so results do not depend on the file's baseMVA).
  bool include_der = true;
  double der_low_mw = -0.5, der_high_mw = 0.5;
  // Bundles (bus = 0-based position in the case). Their blocks of the action and observation
  // come in this order: batteries, renewables, flexible loads.
  std::vector<devices::BatteryDevice> batteries;
  bool battery_q_control = true;
  std::vector<devices::RenewableDevice> renewables;
  bool renewable_curtailment = true, renewable_q_control = true;
  /// Capacity factors in [0, 1] indexed by absolute step, like `shapes`; renewable d follows
  /// cf_shapes[renewable_shape[d]] (empty renewable_shape ⇒ every device follows shape 0).
  std::vector<std::vector<double>> cf_shapes;
  std::vector<int> renewable_shape;
  std::vector<devices::FlexLoadDevice> flexloads;
  double solver_tol = 1e-10;  ///< on squared voltage (p.u.²)
  int solver_max_iter = 100;
  /// [env] outage keys (docs/outages.md). Branch outages only: the feeders' only case gen is the
  /// substation, and the DERs are bundle devices, not case gens (gen outages are refused).
  OutageParams outages;
  /// [env] forecast_horizon / forecast_noise: the feeder's load (and PV) forecast over H steps
  /// (default 0: no forecast fields).
  ForecastParams forecast;
};

/// What one transition did (DistGrid::advance), before any observation is written.
struct DistGridOutcome {
  bool ok = true;      ///< the power flow converged
  double loss_mw = 0;  ///< network loss (on failure: the total demand, see DistGrid)
  int n_voltage = 0;   ///< buses outside [v_min, v_max] (slack included)
  int n_thermal = 0;   ///< lines with |S| > rating
  /// Σ(v − v_max)⁺ + Σ(v_min − v)⁺ in p.u. plus Σ(|S| − cap)⁺ in MVA (the reference's mix of
  /// units, as PowerZooJax's dist.py); on failure n_bus·(v_max − v_min).
  double cost_continuous = 0;
  double resource_cost = 0;  ///< Σ bundle cost_sum
  double unserved_mw = 0;    ///< demand (MW) at buses the step's branch outages de-energize
  devices::BatteryStep battery;
  devices::RenewableStep renewable;
  devices::FlexLoadStep flexload;
};

/// obs = [(v−1)/0.1 (n_bus), P/p_ref (n_line), Q/q_ref (n_line), p_load/p_ref (n_bus),
/// q_load/q_ref (n_bus), sin, cos, Battery obs, Renewable obs, FlexLoad obs] with n_line the
/// in-service branches in row order, P/Q their sending-end flows, p_ref/q_ref the case's total
/// PD/QD (not the task's profile). action ∈ [−1,1]^((n_bus−1)·include_der + bundle actions) in
/// the block order [DER | battery | renewable | flexload].
/// costs = [voltage_violation (buses outside [v_min, v_max], slack included), thermal_overload
/// (lines with |S| > rate_a, 0 = unlimited), resource (Σ of the bundles' cost_sum)].
/// Info::sums = [loss MWh, curtailed MWh, shifted-out MWh] of the step (FlexLoad).
/// Injections (generator-positive) are subtracted from the bus loads before the power flow.
/// Time limit → truncated; solver non-convergence → terminated with StepStatus::kSolverFailed.
///
/// Outages (DistGridParams::outages, branches only; docs/outages.md): a branch out cuts off every
/// bus downstream of it (MATPOWER: an island without a generator is de-energized); the step
/// solves the radial power flow of the energized rest exactly (the network of the edited case),
/// de-energized buses read 0 V (observed −10) and count in no voltage cost, their demand is the
/// cost channel unserved_load (MW, appended after resource only when outages are configured),
/// and the devices there are idle (a battery holds its SOC, a renewable is fully curtailed, a
/// flexible load neither curtails nor shifts). The observation then ends with branch_status
/// [n_line] (1 in service, 0 out: the status the next step solves), as do the traces (row t:
/// the status step t solved). Tie lines the case has out of service stay out (no
/// reconfiguration).
///
/// Forecasts (DistGridParams::forecast, H = horizon > 0; docs/design.md §4.12): the observation
/// then ends with load_forecast [H] = the feeder's total demand Σ_b P_b of steps t+1..t+H / p_ref
/// (t the step the observation's bus loads are of; past the episode's last step that step's
/// demand is held) and, with renewables, pv_forecast [H] = their available power Σ_d cap_d·cf_d of
/// the same steps / p_ref: what a DSO's control room forecasts for its feeder, aggregate rather
/// than per bus. With noise each observation draws one error path per forecast (load first) from
/// the forecast's own stream, seeded at reset and saved after the outage state.
///
/// The case is read as `powerzoo grid distflow` reads it (grid::read_feeder): the substation
/// (first type-3 bus with a gen in service) is the slack at v_slack; the case's other gens in
/// service are fixed injections (PG, QG) at their buses; a bus of type 4, or cut off from the
/// substation by out-of-service branches, is de-energized: its load is not served, its voltage
/// is 0 (observed as −10), it counts in no cost, and its branches are not lines. Devices on a
/// de-energized bus are refused; nodal DER actions at one have no effect.
class DistGrid final : public Env {
 public:
  /// Throws core::ConfigError for a case grid::read_feeder / RadialNetwork refuses (no
  /// substation, a loop, a cut-off island with a gen in service) or inconsistent params (a
  /// device outside the case or on a de-energized bus, bad device ratings, a missing
  /// capacity-factor shape).
  explicit DistGrid(DistGridParams p);

  struct GridState : State {
    int t = 0;
    int64_t start = 0;
    std::vector<double> v;            ///< [n_bus] p.u.
    std::vector<double> p_line_mw;    ///< [n_line] sending-end P
    std::vector<double> q_line_mvar;  ///< [n_line] sending-end Q
    double loss_mw = 0;
    OutageState out;         ///< element status of the step to solve (OutageProcess)
    ForecastState forecast;  ///< the forecasts' error stream (noise > 0)
    std::vector<char> live;  ///< [n_bus] energized in the last solved network
    devices::BatteryState battery;
    devices::RenewableState renewable;
    devices::FlexLoadState flex;
    // Scratch of the step (not part of the state's value): loads, injections, solver buffers.
    std::vector<double> pl, ql, inj_p, inj_q, cf;
    grid::DistFlowWorkspace work;
    grid::DistFlowResult flow;
    std::vector<float> act;  // the action with the devices on de-energized buses idle
    // The network of a multi-branch outage, kept while the status is the same (multi_key).
    std::shared_ptr<const grid::RadialNetwork> multi_net;
    std::vector<uint8_t> multi_key;
  };

  const EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<State> make_state() const override;
  void reset(State& s, core::Rng& rng, std::span<float> obs,
             const ResetOptions& opt = {}) const override;
  Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
            std::span<float> costs, Info* info) const override;
  /// Checkpoint support: t, start, loss, v, line flows, the FlexLoad ring buffers, battery SOC
  /// and powers, renewable cf / powers / curtailment, then the outage state (when configured).
  void save_state(const State& s, std::vector<double>& out) const override;
  size_t load_state(State& s, std::span<const double> in) const override;
  /// bus_vm_pu, bus_net_load_mw (demand less DER injections: the power flow's input), branch_p_mw
  /// and branch_q_mvar (sending end, in-service lines), then per present bundle its devices'
  /// SOC, P, Q, curtailment and shift (EnvSpec::trace_vectors).
  void write_trace(const State& s, std::span<float> out) const override;

  /// reset() without the observation (views with their own observation, DistGridMarl).
  void reset_state(GridState& s, core::Rng& rng, const ResetOptions& opt) const;
  /// One transition without the observation: applies action [act_dim], solves the power flow
  /// of the step's network, advances the clock and the outage state (draws from rng only when
  /// random outages are configured) and writes costs [3, or 4 with outages]. Never throws.
  DistGridOutcome advance(GridState& s, std::span<const float> action, std::span<float> costs,
                          core::Rng& rng) const;
  /// The flat observation [obs_dim] of a state; draws forecast errors (noise > 0).
  void observe(GridState& s, std::span<float> obs) const;
  /// Forecast values per observation: H (load) + H with renewables; 0 without a forecast.
  int forecast_obs_dim() const { return forecast_.horizon() * (ren_.n_devices() > 0 ? 2 : 1); }
  /// Writes load_forecast [H] then pv_forecast [H] (with renewables) of state s into out
  /// [forecast_obs_dim()], drawing their errors from s.forecast.
  void write_forecasts(GridState& s, std::span<float> out) const;
  const Forecast& forecast() const { return forecast_; }

  const DistGridParams& params() const { return p_; }
  /// The network of the case as energized (no outage).
  const grid::RadialNetwork& network() const { return net_; }
  const OutageProcess& outages() const { return outages_; }
  /// 0-based branch rows of the lines (in-service branches of the case), observation order.
  const std::vector<int>& line_rows() const { return lines_; }
  const devices::Battery& battery() const { return bat_; }
  const devices::Renewable& renewable() const { return ren_; }
  const devices::FlexLoad& flexload() const { return flex_; }
  int n_bus() const { return p_.grid_case.n_bus(); }
  int n_lines() const { return static_cast<int>(lines_.size()); }
  /// Offsets of the bundle blocks in the action vector.
  int battery_act_offset() const { return n_der_; }
  int renewable_act_offset() const { return n_der_ + bat_.action_dim(); }
  int flex_act_offset() const { return n_der_ + bat_.action_dim() + ren_.action_dim(); }
  /// Offset of the FlexLoad block in the observation.
  int flex_obs_offset() const { return spec_.obs_field("flexload").offset; }
  /// Nodal demand (MW, MVAr) at absolute step k.
  void bus_load(int64_t k, std::vector<double>& p_mw, std::vector<double>& q_mvar) const;
  /// bus_load less the case's in-service gens at energized non-substation buses (fixed PG, QG).
  void net_load(int64_t k, std::vector<double>& p_mw, std::vector<double>& q_mvar) const;
  /// Capacity factors [n_renewables] at absolute step k.
  void capacity_factors(int64_t k, std::vector<double>& cf) const;

 private:
  bool solve(GridState& s, const grid::RadialNetwork& net) const;
  // dist_grid_outage.cpp
  void setup_outages();
  /// The network of s.out's branch status; sets s.live.
  const grid::RadialNetwork& energize(GridState& s) const;
  /// The action with the devices on de-energized buses idle (the input when nothing is cut off).
  std::span<const float> idle_dead_devices(GridState& s, std::span<const float> action) const;
  double unserved_mw(const GridState& s, int64_t k) const;

  DistGridParams p_;
  grid::RadialNetwork net_;
  devices::Battery bat_;
  devices::Renewable ren_;
  devices::FlexLoad flex_;
  EnvSpec spec_;
  int n_der_ = 0;
  std::vector<int> gen_bus_;  // in-service gens at energized non-substation buses
  std::vector<double> gen_p_mw_, gen_q_mvar_;
  std::vector<int> lines_;        // in-service branch rows
  std::vector<double> cap_;       // [n_line] MVA (1e6 = unlimited)
  std::vector<char> line_fwd_;    // [n_line] from bus is the sending end
  double p_ref_ = 1, q_ref_ = 1;  // MW, MVAr
  OutageProcess outages_;
  // [n_branch] the network with that one line out (null for rows out in the case).
  std::vector<std::shared_ptr<const grid::RadialNetwork>> single_out_;
  Forecast forecast_{ForecastParams{}};
};

}  // namespace pz::envs
