// Radial (distribution) AC power flow: backward/forward sweep on squared voltage magnitudes
// (DistFlow branch equations), exact at convergence — it solves the same equations as MATPOWER's
// AC power flow for a radial network (PQ loads, bus shunts, line charging, taps and shifts).
#pragma once

#include <span>
#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// Result of a radial power flow in MATPOWER's naming and units (MW, MVAr, p.u., deg).
struct DistFlowResult {
  std::vector<double> bus_vm_pu;       ///< [n_bus] voltage magnitudes
  std::vector<double> bus_va_deg;      ///< [n_bus] angles, reference bus at `va_slack_deg`
  std::vector<double> branch_pf_mw;    ///< [n_branch] injection into the branch at the from end
  std::vector<double> branch_qf_mvar;  ///< (file from→to orientation); 0 for out-of-service
  std::vector<double> branch_pt_mw;    ///< [n_branch] injection into the branch at the to end
  std::vector<double> branch_qt_mvar;
  double total_losses_mw = 0;  ///< Σ (PF + PT) over in-service branches (series I²R)
  int iterations = 0;          ///< backward/forward sweeps performed
  bool converged = false;
};

/// Scratch buffers of RadialNetwork::solve_into, sized on first use: a caller that keeps one per
/// thread (or per env state) solves without allocating.
struct DistFlowWorkspace {
  std::vector<double> p, q, w, wn, sp, sq, pin, qin, pout, qout;
};

/// The energized part of a feeder as a tree rooted at its substation.
///
/// Construction reads the case through grid::read_feeder (grid/dist/feeder.hpp): the substation
/// (first type-3 bus with a gen in service) is the root, buses cut off from it (by out-of-service
/// branches, type-4 buses) are de-energized, and a case without a substation or with a cut-off
/// island that keeps a gen in service is refused. Then it runs a breadth-first search from the
/// root over the undirected in-service graph (a node's branches visited in branch-row order).
/// Throws core::ConfigError (prefixed with the file, grid::feeder_label) for those refusals and
/// if an in-service branch closes a loop (the first such row in row order, i.e. the one whose
/// ends earlier in-service rows already connect; named "branch K (from A to B)", 1-based row,
/// external bus ids).
class RadialNetwork {
 public:
  explicit RadialNetwork(const Case& c);

  int n_bus() const { return static_cast<int>(parent_.size()); }
  int n_branch() const { return static_cast<int>(r_.size()); }
  int ref_bus() const { return ref_; }  ///< 0-based position of the root (substation) bus
  /// [n_bus] 1 if the bus is energized (in the tree), 0 if de-energized (grid::read_feeder).
  const std::vector<char>& live() const { return live_; }
  double base_mva() const { return base_mva_; }
  /// [n_bus] parent bus position; −1 for the root.
  const std::vector<int>& parent() const { return parent_; }
  /// [n_bus] branch row connecting a bus to its parent; −1 for the root.
  const std::vector<int>& parent_branch() const { return parent_branch_; }
  /// Energized bus positions in BFS (topological) order, root first: every parent precedes its
  /// children.
  const std::vector<int>& order() const { return order_; }
  /// [n_branch] sending (upstream) / receiving (downstream) bus position; −1 if out of service.
  const std::vector<int>& sending() const { return send_; }
  const std::vector<int>& receiving() const { return recv_; }
  /// True if in-service branch k is oriented from→to in the tree (its from bus is upstream).
  bool from_is_sending(int k) const { return send_[k] >= 0 && send_[k] == from_[k]; }

  /// Solves the radial AC power flow for net bus loads p_mw/q_mvar [n_bus] (load − generation;
  /// the root's entry is ignored, the root is the slack; a de-energized bus's entry is ignored,
  /// its load is not served and its voltage and angle are 0) with root voltage v_slack_pu.
  /// Bus shunts (GS, BS) and branch charging/taps/shifts of the case are included.
  /// Iterates backward sweep (branch flows from the leaves, losses from receiving-end currents)
  /// and forward sweep (v_j = v_i − 2(r P + x Q) + (r²+x²)(P²+Q²)/v_i on v = V²) until
  /// max |Δv| < tol. Works internally in p.u. on the case's baseMVA; inputs and outputs are in
  /// MW/MVAr. Never throws: wrong input sizes, non-finite inputs, voltage collapse, a solution
  /// past the transfer limit (a branch angle difference of 90° or more, Re(V_s V_r*) ≤ 0) or
  /// hitting max_iter return converged = false (with whatever was computed so far).
  DistFlowResult solve(const std::vector<double>& p_mw, const std::vector<double>& q_mvar,
                       double v_slack_pu = 1.0, double tol = 1e-10, int max_iter = 100,
                       double va_slack_deg = 0.0) const;

  /// solve() into caller-owned buffers: `res` and `ws` are resized on first use and reused
  /// after, so an env's hot path does not allocate. want_angles = false skips the bus angles
  /// (bus_va_deg is then left at va_slack_deg), which the envs never read. Same arithmetic as
  /// solve(), so the same bits.
  void solve_into(std::span<const double> p_mw, std::span<const double> q_mvar, double v_slack_pu,
                  double tol, int max_iter, double va_slack_deg, bool want_angles,
                  DistFlowWorkspace& work, DistFlowResult& res) const;

 private:
  void write_result(const DistFlowWorkspace& work, bool want_angles, DistFlowResult& res) const;

  /// A tree edge: bus `recv` fed from its parent `send` through branch row `branch`.
  struct Edge {
    int recv, send, branch;
    double r, x, z2, half_b, tap, tap2;  // z2 = r² + x², half_b = b/2, tap2 = tap·tap
    bool recv_is_from, send_is_from;     // which end of the branch row each bus is
  };
  std::vector<Edge> edges_;  // [energized buses − 1] in BFS order (edges_[i] is order()[i + 1])

  double base_mva_ = 100;
  int ref_ = 0;
  std::vector<int> from_, to_;  // [n_branch] bus positions
  std::vector<double> r_, x_, b_, tap_, shift_deg_;
  std::vector<char> active_;     // [n_branch]
  std::vector<char> live_;       // [n_bus]
  std::vector<double> gs_, bs_;  // [n_bus] p.u. at V = 1
  std::vector<int> parent_, parent_branch_, order_, send_, recv_;
};

/// Radial power flow of a case's own operating point, as MATPOWER's runpf would set it up, on
/// the feeder grid::read_feeder reads: loads PD/QD of the energized buses, in-service generators
/// at energized non-substation buses as fixed PQ injections (PG, QG; no PV voltage control), root
/// voltage = VG of the first in-service generator at the substation, root angle = its VA.
/// Throws ConfigError only as RadialNetwork's constructor does.
DistFlowResult solve_case(const Case& c, double tol = 1e-10, int max_iter = 100);

}  // namespace pz::grid
