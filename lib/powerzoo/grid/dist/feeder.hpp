// The reading of a distribution feeder: the rules by which `powerzoo grid distflow`, the DistFlow
// solver and the dist_grid / dist_grid_marl envs turn a case file into the network they solve, so
// that one file means one feeder everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// A case as a feeder is energized from its substation.
struct Feeder {
  /// The case read through grid::energize (MATPOWER's element status and bus types per island),
  /// rows kept in place: buses cut off from the substation are type 4, gens on them status 0,
  /// branches touching them status 0. Loads stay in the rows (a type-4 bus serves none).
  Case c;
  int root = 0;            ///< substation: 0-based position of the root bus
  std::vector<char> live;  ///< [n_bus] 1 if the bus is energized (fed from the substation)
  std::vector<int> dead;   ///< positions of the de-energized buses (type 4 in `c`), ascending
  double dead_pd_mw = 0;   ///< Σ PD of the de-energized buses: load not served
};

/// Reads `raw` as a radial feeder:
/// - the substation (the tree's root and the slack) is the first bus of type 3 with a gen in
///   service; a case without one is refused. The reference does not move to a PV bus as
///   MATPOWER's bustypes would: DistFlow has no voltage-controlled bus, other gens are fixed
///   PQ injections (their PG, QG), so a feeder without its substation is not a feeder;
/// - element status and type-4 buses as grid::energize: a bus of type 4 in the file and every
///   bus cut off from the substation by out-of-service branches or type-4 buses is de-energized
///   (its load is not served, its gens are out);
/// - a cut-off island that grid::energize keeps energized (a gen in service at a type-2 or 3 bus
///   there) is refused: it has no path to the substation and DistFlow solves one tree.
/// Loops among the energized branches are refused by RadialNetwork (naming the branch row).
/// Errors are core::ConfigError naming the file (Case::source_path, else the case's name) and
/// the bus or gen row.
Feeder read_feeder(const Case& raw);

class RadialNetwork;

/// A feeder with lines out, as the dist envs (dist_grid, dist_grid_marl) and `powerzoo grid
/// distflow --out-of-service` read it: `c` with every branch row k whose branch_on[k] == 0
/// [n_branch] out of service (BR_STATUS 0) and every bus those lines cut off from the substation
/// (the subtree below each line in `net`, the intact feeder of `c`) of type 4 with its gens out
/// of service. In a radial feeder every line is a bridge and its downstream part an island
/// without the substation, which MATPOWER's ext2int de-energizes (its load not served); a gen
/// there goes out with it (read_feeder would refuse an energized cut-off island). Rows stay in
/// place; the loads stay in the rows (read_feeder counts them in dead_pd_mw).
Case feeder_lines_out(const Case& c, const RadialNetwork& net,
                      const std::vector<uint8_t>& branch_on);

/// "FILE" (Case::source_path) or "case 'NAME'" for a case built in code: the prefix of every
/// feeder error.
std::string feeder_label(const Case& c);

}  // namespace pz::grid
