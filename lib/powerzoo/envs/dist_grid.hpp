// DistGrid: radial distribution feeder with optional nodal DER injections and a FlexLoad bundle
// (reference envs-grid.md §8.3). The power flow is the exact radial AC solution
// (grid::RadialNetwork::solve), not the reference's approximate sweep (docs/deviations.md).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "powerzoo/devices/flexload.hpp"
#include "powerzoo/envs/env.hpp"
#include "powerzoo/grid/case.hpp"
#include "powerzoo/grid/distflow.hpp"

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
  int horizon = 48;
  double dt_hours = 0.5;
  double v_slack = 1.0;
  double v_min = 0.90, v_max = 1.10;  ///< voltage band (p.u.), scalars as the reference
  double loss_penalty_weight = 0.1;   ///< reward = −w · network loss (MW)
  /// Nodal DER action on every non-slack bus, in MW (the reference's ±0.005 p.u. on its
  /// 100 MVA base; expressed in MW here so results do not depend on the file's baseMVA).
  bool include_der = true;
  double der_low_mw = -0.5, der_high_mw = 0.5;
  std::vector<devices::FlexLoadDevice> flexloads;  ///< bundle devices (bus = 0-based position)
  double solver_tol = 1e-10;                       ///< on squared voltage (p.u.²)
  int solver_max_iter = 100;
};

/// obs = [(v−1)/0.1 (n_bus), P/p_ref (n_line), Q/q_ref (n_line), p_load/p_ref (n_bus),
/// q_load/q_ref (n_bus), sin, cos, FlexLoad obs (5 per device)] with n_line the in-service
/// branches in row order, P/Q their sending-end flows, p_ref/q_ref the case's total PD/QD (not
/// the task's profile). action ∈ [−1,1]^((n_bus−1)·include_der + 2·n_flex).
/// costs = [voltage_violation (buses outside [v_min, v_max], slack included), thermal_overload
/// (lines with |S| > rate_a, 0 = unlimited), resource ($ of the FlexLoad bundle)].
/// Info::sums = [loss MWh, curtailed MWh, shifted-out MWh] of the step.
/// Time limit → truncated; solver non-convergence → terminated with StepStatus::kSolverFailed.
class DistGrid final : public Env {
 public:
  /// Throws core::ConfigError for a non-radial/disconnected case or inconsistent params.
  explicit DistGrid(DistGridParams p);

  struct GridState : State {
    int t = 0;
    int64_t start = 0;
    std::vector<double> v;            ///< [n_bus] p.u.
    std::vector<double> p_line_mw;    ///< [n_line] sending-end P
    std::vector<double> q_line_mvar;  ///< [n_line] sending-end Q
    double loss_mw = 0;
    devices::FlexLoadState flex;
  };

  const EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<State> make_state() const override;
  void reset(State& s, core::Rng& rng, std::span<float> obs,
             const ResetOptions& opt = {}) const override;
  Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
            std::span<float> costs, Info* info) const override;
  /// Checkpoint support: t, start, loss, v, line flows and the FlexLoad ring buffers.
  void save_state(const State& s, std::vector<double>& out) const override;
  size_t load_state(State& s, std::span<const double> in) const override;

  const DistGridParams& params() const { return p_; }
  const grid::RadialNetwork& network() const { return net_; }
  const devices::FlexLoad& flexload() const { return flex_; }
  int n_bus() const { return p_.grid_case.n_bus(); }
  int n_lines() const { return static_cast<int>(lines_.size()); }
  /// Offset of the FlexLoad block in the observation.
  int flex_obs_offset() const { return spec_.obs_dim - flex_.obs_dim(); }
  /// Nodal demand (MW, MVAr) at absolute step k.
  void bus_load(int64_t k, std::vector<double>& p_mw, std::vector<double>& q_mvar) const;

 private:
  bool solve(GridState& s, const std::vector<double>& p, const std::vector<double>& q) const;
  void observe(const GridState& s, std::span<float> obs) const;

  DistGridParams p_;
  grid::RadialNetwork net_;
  devices::FlexLoad flex_;
  EnvSpec spec_;
  std::vector<int> lines_;        // in-service branch rows
  std::vector<double> cap_;       // [n_line] MVA (1e6 = unlimited)
  double p_ref_ = 1, q_ref_ = 1;  // MW, MVAr
};

}  // namespace pz::envs
