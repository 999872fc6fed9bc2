// DistGridMarl: the multi-agent view of a DistGrid (PowerZooJax's DistGridMARLEnv in
// powerzoojax/rl/multi_agent.py, "local" observation mode): one agent per bundle device, a local
// observation per agent, one shared team reward. The DERs task (tasks/ders) builds it on case141.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "powerzoo/envs/dist_grid.hpp"
#include "powerzoo/envs/env.hpp"

namespace pz::envs {

/// Device types of the DistGrid bundles; an agent's name is "<type>_<index>".
enum class DeviceType { kBattery, kRenewable, kFlexLoad };

/// "battery", "renewable", "flexload".
const char* device_type_name(DeviceType t);

/// Parameters of the view.
struct DistGridMarlParams {
  /// Bundle declaration order: the agents are every device of order[0] (in device order), then
  /// of order[1], ... Types without devices in the grid are skipped.
  std::vector<DeviceType> order = {DeviceType::kBattery, DeviceType::kRenewable,
                                   DeviceType::kFlexLoad};
  int n_neighbours = 4;  ///< K nearest buses (BFS) whose voltages an agent sees
  /// Training reward shaping: learner reward = team reward − voltage_penalty·cost_continuous.
  double voltage_penalty = 0.0;
};

/// Agents in DistGridMarlParams::order. Per agent a, observation block [a·D, (a+1)·D) with
/// D = 1 + K + 3 + 2 + P (+ n_line with branch outages):
///   own_voltage (1), neighbour_voltage (K), voltage_min, voltage_max, voltage_mean (1 each, over
///   every energized bus: the grid's case is read as `grid distflow` reads it), time_of_day (sin,
///   cos), device (the agent's own device observation, zero-padded to P = the largest per-device
///   observation of the present types);
/// then, when the grid tracks branch outages, branch_status (n_line: 1 in service, 0 out, the
/// status the next step solves; every agent sees the whole feeder's, as the substation's SCADA
/// would report it); voltages as (v − 1)/0.1. Named fields "<agent>/<field>". Neighbours: the first
/// K buses a breadth-first search from the agent's bus discovers over the undirected in-service
/// line graph (each bus's lines in branch-row order), the own bus excluded, padded with the own
/// bus. Actions: the agent's device action block (battery [a_P, a_Q], renewable [a_curtail, a_Q],
/// flexload [curtail, shift]), blocks in agent order.
/// Reward (every agent and the team): −loss_penalty_weight·P_loss[MW]; the learner's reward
/// (Step::shaped_reward, agent_shaped) subtracts voltage_penalty·cost_continuous when > 0.
/// Costs: the grid's [voltage_violation, thermal_overload, resource(, unserved_load)].
/// Episode sums (Info::sums): mean_p_loss_mw, total_loss_mwh, voltage_violation_steps,
/// voltage_violation_rate, total_cost (Σ voltage_violation + thermal_overload, the reference
/// DistGridEnv's episode count of violations), total_cost_continuous, and per
/// present type the mean over steps and devices of its applied commands: battery p_mean,
/// p_abs_mean (P/P_rated), q_mean, q_abs_mean (Q/S); renewable curtail_mean (curtailed
/// fraction), q_mean, q_abs_mean (Q/S); flexload curtail_mean, shift_mean (of their caps), named
/// "action/<type>/<stat>". Per-step means use the horizon, so an episode ended early by a solver
/// failure under-reports them.
class DistGridMarl final : public Env {
 public:
  /// Throws core::ConfigError if the grid has nodal DER actions (include_der), no devices,
  /// more than Step::kMaxAgents devices, or K < 0.
  DistGridMarl(std::shared_ptr<const DistGrid> grid, DistGridMarlParams p);

  /// One agent: its device and where its block sits in the grid's flat action vector.
  struct Agent {
    DeviceType type;
    int device = 0;       ///< index within its bundle
    int bus = 0;          ///< 0-based bus position
    int grid_act = 0;     ///< offset of its action block in the DistGrid action
    int act_dim = 0;      ///< 2 for every bundle of the DERs task
    int dev_obs = 0;      ///< offset of its device block in the DistGrid observation's bundles
    int dev_obs_dim = 0;  ///< per-device observation size of its bundle
    std::vector<int> neighbours;  ///< [K] bus positions
  };

  const EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<State> make_state() const override { return grid_->make_state(); }
  void reset(State& s, core::Rng& rng, std::span<float> obs,
             const ResetOptions& opt = {}) const override;
  Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
            std::span<float> costs, Info* info) const override;
  void write_trace(const State& s, std::span<float> out) const override {
    grid_->write_trace(s, out);
  }
  void save_state(const State& s, std::vector<double>& out) const override {
    grid_->save_state(s, out);
  }
  size_t load_state(State& s, std::span<const double> in) const override {
    return grid_->load_state(s, in);
  }

  const DistGrid& grid() const { return *grid_; }
  const DistGridMarlParams& params() const { return p_; }
  const std::vector<Agent>& agents() const { return agents_; }
  int agent_obs_dim() const { return agent_obs_; }

 private:
  void observe(DistGrid::GridState& s, std::span<float> obs) const;  // draws forecast errors
  void action_stats(const DistGrid::GridState& s, double* sums) const;

  std::shared_ptr<const DistGrid> grid_;
  DistGridMarlParams p_;
  std::vector<Agent> agents_;
  int agent_obs_ = 0, pad_ = 0;
  int n_status_ = 0;    ///< branch_status entries per agent (the grid's lines, when tracked)
  int n_forecast_ = 0;  ///< the grid's forecast values per agent (DistGrid::forecast_obs_dim)
  int sum_stats_ = 0;   ///< index of the first action statistic in Info::sums
  EnvSpec spec_;
};

/// The first k buses discovered by a breadth-first search from `bus` over the undirected
/// in-service line graph of `c` (each bus's lines in branch-row order), `bus` excluded, padded
/// with `bus` when fewer than k exist. Bus positions are 0-based.
std::vector<int> bfs_neighbours(const grid::Case& c, int bus, int k);

}  // namespace pz::envs
