// The energized reading of a case: which buses, branches and generators are live, and the bus
// types per island, by MATPOWER's rules (ext2int drops type-4 buses and what touches them;
// bustypes hands a reference without an in-service generator to the first PV bus that has one).
// The `grid` commands and every env read a case through these rules, so one file means one network.
#pragma once

#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// MATPOWER bus types of the energized network (bustypes, per island).
enum class AcBusType : signed char { kPq = 1, kPv = 2, kRef = 3, kOff = 0 };

/// Connected components of the buses not of type 4 over the in-service branches between them
/// (BR_STATUS > 0, neither end of type 4). island[b] in 0..n−1, −1 for a type-4 bus.
struct Islands {
  std::vector<int> island;  ///< [n_bus]
  int n = 0;
};
Islands find_islands(const Case& c);

/// MATPOWER bustypes applied per island. `has_gen[b]` says whether bus b has a generator counted
/// as in service; `type[b]` is the bus type to start from. A bus is REF if its type is 3 and it has
/// a gen, PV if type 2 with a gen, PQ otherwise; an island without a REF bus promotes its first PV
/// bus; an island with neither is de-energized (kOff), as are type-4 buses. Writes `out` [n_bus].
/// The one implementation of these rules: the AC solvers and energize() call it.
void bus_types(const std::vector<int>& island, int n_islands, const std::vector<char>& has_gen,
               const std::vector<int>& type, std::vector<AcBusType>& out);

/// The case as it is energized, rows kept in place (every index into bus, gen, branch stays
/// valid): bus types rewritten by bus_types (REF 3, PV 2, PQ 1, de-energized 4), a generator
/// whose bus is de-energized gets GEN_STATUS 0, a branch with a de-energized end BR_STATUS 0,
/// and ref_bus_idx is the first REF bus (that of the first island with one). Loads and shunts of
/// de-energized buses stay in the rows; whoever serves loads skips buses of type 4.
/// `dead_buses` (optional) receives the indices of buses that were not of type 4 in `c` but are
/// de-energized (an island without an in-service generator).
Case energize(const Case& c, std::vector<int>* dead_buses = nullptr);

}  // namespace pz::grid
