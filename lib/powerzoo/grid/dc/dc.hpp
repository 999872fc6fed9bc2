// DC network model: bus susceptance matrix, PTDF and DC power flow (MATPOWER makeBdc / rundcpf).
#pragma once

#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// Dense PTDF [n_branch x n_bus], row-major, in MW of branch flow per MW injected at a bus and
/// withdrawn at the slack bus `slack_idx` (0-based). The slack column is exactly zero; rows of
/// out-of-service branches are zero and those branches are excluded from the network.
/// Branch susceptance b = 1/(x·tap) as in MATPOWER makeBdc. Throws ConfigError if the in-service
/// network is islanded (singular reduced B).
std::vector<double> make_ptdf(const Case& c, int slack_idx);

/// Result of a DC power flow in MATPOWER's naming and units.
struct DcPfResult {
  bool success = false;
  std::vector<double> bus_va_deg;    ///< [n_bus] (reference bus keeps its case VA, as MATPOWER)
  std::vector<double> branch_pf_mw;  ///< [n_branch] from-end flow, 0 for out-of-service
  std::vector<double>
      gen_pg_mw;  ///< [n_gen] scheduled PG; first in-service gen at ref absorbs the mismatch
  /// Buses (0-based) de-energized by the case's reading (grid::energize): an island without an
  /// in-service gen. Their loads are not served, their angles keep the case's VA.
  std::vector<int> dead_buses;
  /// Why there is no solution when the case itself is the cause ("" otherwise): no in-service
  /// gen to take the reference, or a zero reactance. `grid dcpf` reports it as bad input.
  std::string message;
};

/// Solves the case's own injections as MATPOWER's rundcpf (PG − PD − GS, phase shifters) on the
/// energized case (grid::energize): each island with its own reference bus, whose first
/// in-service gen takes the mismatch; islands without a gen are de-energized. Never throws on a
/// singular system: success = false.
DcPfResult run_dcpf(const Case& c);

}  // namespace pz::grid
