// The N-1 screen of every branch: post-outage DC flows by LODF, islanding outages re-solved.
#pragma once

#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dc.hpp"

namespace pz::grid {

/// One branch outage of the screen.
struct N1Outage {
  int branch = 0;          ///< 0-based row of the branch taken out
  double pre_flow_mw = 0;  ///< its flow before the outage (MW, from end)
  /// The outage splits its island: solved by a full DC power flow of the case without the
  /// branch (run_dcpf, MATPOWER's rules: a side without an in-service gen is de-energized, a
  /// side with one gets its own reference), not by LODF.
  bool islands = false;
  bool success = true;  ///< the re-solve of an islanding outage succeeded
  /// islands: the buses cut off, ascending: the side without the reference bus if it is
  /// de-energized (no gen) or not the larger side; else (both sides keep a gen) the smaller side
  std::vector<int> cut_buses;
  std::vector<int> dead_buses;  ///< islands: buses de-energized by the outage
  std::vector<double> flow_mw;  ///< [n_branch] post-outage flows (0 for out-of-service rows)
  std::vector<int> overloads;   ///< rated rows with |flow| > RATE_A, ascending
  double max_loading_pct = 0;   ///< max over rated rows of 100·|flow| / RATE_A
};

/// Result of screen_n1: the base case and one entry per in-service branch, in row order.
struct N1Screen {
  DcPfResult base;  ///< run_dcpf of the case (the screen is empty when it failed)
  std::vector<N1Outage> outages;
  int n_lodf = 0;      ///< outages computed by LODF
  int n_resolved = 0;  ///< islanding outages re-solved with a full DC power flow
};

/// Screens every in-service branch of the energized case at the case's own injections (PG, PD,
/// GS as run_dcpf). A branch with RATE_A = 0 is unlimited (never an overload). Throws
/// core::ConfigError for a zero reactance.
N1Screen screen_n1(const Case& c);

}  // namespace pz::grid
