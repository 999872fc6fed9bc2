// PtdfFlow: DC branch flows from bus injections through a dense PTDF (shared by the DC-OPF,
// unit commitment, the transmission env's dispatch mode and the merit-order screen).
#pragma once

#include <span>
#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// Linear DC flow model F = PTDF · P of one network. PTDF [n_branch x n_bus], row-major, in MW of
/// branch flow per MW injected at a bus and withdrawn at the slack bus (make_ptdf): the slack
/// column is zero, so any imbalance Σ P ≠ 0 is implicitly taken at the slack bus. Every flow is
/// accumulated as offset + Σ_b PTDF[l, b]·P[b] in bus order b = 0..n_bus−1 (bit-reproducible).
/// The flow functions never throw and do not allocate (unit_flows: once per thread).
class PtdfFlow {
 public:
  PtdfFlow() = default;
  /// PTDF of the case's in-service network with slack bus `slack_idx` (0-based). Throws
  /// core::ConfigError if the network is islanded or a reactance is zero (see make_ptdf).
  PtdfFlow(const Case& c, int slack_idx);

  int n_bus() const { return n_bus_; }
  int n_branch() const { return n_branch_; }
  int slack_bus() const { return slack_; }
  /// The full matrix [n_branch x n_bus], row-major.
  const std::vector<double>& ptdf() const { return ptdf_; }
  /// Row l [n_bus] of the PTDF.
  const double* row(int l) const { return &ptdf_[static_cast<size_t>(l) * n_bus_]; }
  /// PTDF[l, b] (MW/MW).
  double at(int l, int b) const { return ptdf_[static_cast<size_t>(l) * n_bus_ + b]; }

  /// Flow on branch l (MW): offset_mw + Σ_b PTDF[l, b]·inj_mw[b], inj_mw [n_bus].
  double branch_flow(int l, const double* inj_mw, double offset_mw = 0.0) const;
  /// flow_mw[l] = Σ_b PTDF[l, b]·inj_mw[b] for every branch; inj_mw [n_bus], flow_mw [n_branch].
  void flows(std::span<const double> inj_mw, std::span<double> flow_mw) const;
  /// out[b] += y·PTDF[l, b] for every bus, out [n_bus] (LMPs from a flow row's dual y).
  void add_row(int l, double y, std::span<double> out) const;
  /// Sets this model to `base` with its branch k out of service (k in service in base and not a
  /// bridge): row l = base row l + lodf_col[l]·base row k (PTDF'_l = PTDF_l + LODF[l, k]·PTDF_k,
  /// Wood & Wollenberg, "Power Generation, Operation, and Control", 2nd ed., §11.3), row k = 0
  /// (as make_ptdf gives an out-of-service branch). lodf_col [n_branch]: Lodf::column(k) of
  /// base's network. O(n_branch·n_bus), no factorization; allocates only on first use.
  void assign_outage(const PtdfFlow& base, int k, const double* lodf_col);
  /// PTDF columns at the given buses, [n_branch x bus_idx.size()] row-major (units' sensitivities).
  std::vector<double> columns(std::span<const int> bus_idx) const;

  /// Dispatch with slack attribution (the reference's dc_pf): units u at bus unit_bus[u] produce
  /// p_mw[u]; the branch flows are those of the injections Σ_u p_mw[u] at unit_bus[u] − load_mw
  /// (before the slack correction: the slack column is zero), then every unit takes
  /// (Σ load − Σ p)·slack_share[u] (shares sum to 1 over the units at the slack bus).
  /// unit_bus, slack_share, p_mw [n_units]; load_mw [n_bus]; flow_mw [n_branch].
  void unit_flows(std::span<const int> unit_bus, std::span<const double> slack_share,
                  std::span<const double> load_mw, std::span<double> p_mw,
                  std::span<double> flow_mw) const;

 private:
  int n_bus_ = 0, n_branch_ = 0, slack_ = 0;
  std::vector<double> ptdf_;
};

}  // namespace pz::grid
