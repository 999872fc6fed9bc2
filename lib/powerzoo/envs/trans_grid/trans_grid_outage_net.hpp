// The solvers of one outage set of the transmission env (private to trans_grid/*.cpp): the
// edited, energized case and, built on first use, its PTDF, its DC-OPF per island and its AC
// power flow / AC-OPF.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "powerzoo/grid/ac/acopf.hpp"
#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/island_dcopf.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"

namespace pz::envs {

struct OutageNet {
  std::vector<uint8_t> branch_on, gen_on;  ///< the set it was built for (OutageState's rows)
  /// The case (with the env's unit limits) without the out rows, read by grid::energize: an
  /// island without an in-service gen is de-energized (type 4), each other island has one REF.
  grid::Case net;
  std::vector<char> dead;  ///< [n_bus] de-energized by the outages (not type 4 in the case)
  int n_refs = 0;          ///< energized islands (REF buses)
  // DC flows of a one-island network (built on first use): the PTDF at the REF bus, whose first
  // in-service unit takes the imbalance (share 1), and the phase shifters' constant flows.
  bool ptdf_built = false;
  grid::PtdfFlow ptdf;
  std::vector<double> share, shift_flow;
  // DC-OPF: one model per energized island (built on first use).
  std::unique_ptr<grid::IslandDcOpf> opf;
  std::unique_ptr<grid::AcPowerFlow> acpf;
  std::unique_ptr<grid::AcOpf> acopf;
};

/// [n_branch] MW of the phase shifters of `c` on the PTDF `ptdf` (MATPOWER makeBdc: F = PTDF·(P −
/// Pbusinj) + Pfinj, the shifters' part), empty if `c` has none in service.
std::vector<double> shifter_flows(const grid::Case& c, const grid::PtdfFlow& ptdf);

}  // namespace pz::envs
