// The dispatch network of UnitCommitment under an outage set: one merit-order screen and one
// DispatchLp per energized island of the edited case (MATPOWER's reading, grid/case/energized).
#pragma once

#include <cstdint>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/lodf.hpp"
#include "powerzoo/grid/uc/dispatch_lp.hpp"
#include "powerzoo/grid/uc/merit_order.hpp"

namespace pz::envs {

/// $/MWh of unserved load / spilled generation in the dispatch LP, and of line overload (soft
/// limits); the reasons are at their use in unit_commitment.cpp.
inline constexpr double kUcVoll = 1000.0;
inline constexpr double kUcOverloadPrice = 1e5;

/// One energized island of the edited network: its own PTDF (slack at the island's MATPOWER
/// reference bus), merit order and soft-limit LP over the loads of its buses only. Units of
/// other islands are held at 0 when it is solved; branches outside it carry nothing in its flows.
struct UcIsland {
  int ref_bus = -1;                     ///< 0-based reference bus (where its balance slack acts)
  std::vector<char> has_unit;           ///< [n_units] the unit's bus is in this island
  std::vector<grid::MeritOrder> merit;  ///< one element (MeritOrder is not default-constructible)
  std::vector<grid::DispatchLp> lp;     ///< one element
};

/// The network of one outage set (branch and gen status), built once when the set changes.
/// intact: the set leaves the network and its reference unchanged (only units out): the env's own
/// screen and CLP fallback dispatch. Otherwise islands[] and the de-energized buses' load.
struct UcOutageNet {
  std::vector<uint8_t> branch_on, gen_on;  ///< the key: the status this net was built for
  bool intact = true;
  std::vector<UcIsland> islands;
  std::vector<int> dead_buses;  ///< buses de-energized by the outages (their load is unserved)
  double dead_base_mw = 0;      ///< Σ base_pd over dead_buses (MW at load factor 1)
};

/// The intact network's screen (MeritOrder, DispatchLp at the case's reference bus) and LODF:
/// with them a set of one branch out that neither islands nor moves the reference takes their
/// LODF update (MeritOrder(intact, k, LODF column k)) instead of a factorization of the edited
/// network.
struct UcIntactNet {
  const grid::MeritOrder* merit = nullptr;
  const grid::DispatchLp* lp = nullptr;
  const grid::Lodf* lodf = nullptr;
};

/// Builds the net of the status (branch_on [n_branch], gen_on [n_gen] = units) on `c` (the env's
/// case, energized, no phase shifters): edits the out rows to status 0, reads the result with
/// grid::energize (an island without an in-service unit is de-energized; an island whose case
/// reference lost its units takes its first PV bus with one), then per island PtdfFlow, MeritOrder
/// and DispatchLp on the base loads of its buses (one branch out with `intact` given: the LODF
/// update of the intact screen, equal to the factorization's to rounding). Throws core::ConfigError
/// only if a reactance is zero (refused when the env was built).
void build_uc_outage_net(const grid::Case& c, const std::vector<double>& base_pd,
                         const std::vector<double>& rating, double voll, double overload_price,
                         const std::vector<uint8_t>& branch_on, const std::vector<uint8_t>& gen_on,
                         UcOutageNet& out, const UcIntactNet& intact = {});

}  // namespace pz::envs
