// The energized reading of a case (MATPOWER ext2int, bustypes and find_islands; see MATPOWER's
// manual, section "Internal vs. External Bus Numbering", and bustypes.m in its public repository).
#include "powerzoo/grid/case/energized.hpp"

#include <algorithm>

namespace pz::grid {

Islands find_islands(const Case& c) {
  const int nb = c.n_bus();
  std::vector<std::vector<int>> adj(nb);
  for (int l = 0; l < c.n_branch(); ++l) {
    const int f = c.branch_from_idx[l], t = c.branch_to_idx[l];
    if (c.branch[l].status <= 0 || c.bus[f].type == 4 || c.bus[t].type == 4) continue;
    adj[f].push_back(t);
    adj[t].push_back(f);
  }
  Islands out;
  out.island.assign(nb, -1);
  std::vector<int> queue;
  for (int s = 0; s < nb; ++s) {
    if (c.bus[s].type == 4 || out.island[s] >= 0) continue;
    queue.assign(1, s);
    out.island[s] = out.n;
    for (size_t q = 0; q < queue.size(); ++q)
      for (int k : adj[queue[q]])
        if (out.island[k] < 0) {
          out.island[k] = out.n;
          queue.push_back(k);
        }
    ++out.n;
  }
  return out;
}

void bus_types(const std::vector<int>& island, int n_islands, const std::vector<char>& has_gen,
               const std::vector<int>& type, std::vector<AcBusType>& out) {
  const int nb = static_cast<int>(island.size());
  out.assign(nb, AcBusType::kPq);
  thread_local std::vector<int> ref_of, pv_of;  // per island: a REF bus / the first PV bus
  ref_of.assign(n_islands, -1);
  pv_of.assign(n_islands, -1);
  for (int b = 0; b < nb; ++b) {
    const int isl = island[b];
    if (isl < 0) {
      out[b] = AcBusType::kOff;
      continue;
    }
    if (has_gen[b] && type[b] == 3) {
      out[b] = AcBusType::kRef;
      ref_of[isl] = b;
    } else if (has_gen[b] && type[b] == 2) {
      out[b] = AcBusType::kPv;
      if (pv_of[isl] < 0) pv_of[isl] = b;
    }
  }
  for (int isl = 0; isl < n_islands; ++isl)
    if (ref_of[isl] < 0 && pv_of[isl] >= 0) out[pv_of[isl]] = AcBusType::kRef;
  for (int b = 0; b < nb; ++b) {
    const int isl = island[b];
    if (isl >= 0 && ref_of[isl] < 0 && pv_of[isl] < 0) out[b] = AcBusType::kOff;
  }
}

Case energize(const Case& c, std::vector<int>* dead_buses) {
  const int nb = c.n_bus();
  const Islands isl = find_islands(c);
  std::vector<char> has_gen(nb, 0);
  std::vector<int> type(nb);
  for (int g = 0; g < c.n_gen(); ++g)
    if (c.gen[g].status > 0) has_gen[c.gen_bus_idx[g]] = 1;
  for (int b = 0; b < nb; ++b) type[b] = c.bus[b].type;
  std::vector<AcBusType> bt;
  bus_types(isl.island, isl.n, has_gen, type, bt);
  Case e = c;
  if (dead_buses) dead_buses->clear();
  for (int b = 0; b < nb; ++b) {
    switch (bt[b]) {
      case AcBusType::kRef:
        e.bus[b].type = 3;
        break;
      case AcBusType::kPv:
        e.bus[b].type = 2;
        break;
      case AcBusType::kPq:
        e.bus[b].type = 1;
        break;
      case AcBusType::kOff:
        e.bus[b].type = 4;
        if (dead_buses && c.bus[b].type != 4) dead_buses->push_back(b);
        break;
    }
  }
  for (int g = 0; g < e.n_gen(); ++g)
    if (e.bus[e.gen_bus_idx[g]].type == 4) e.gen[g].status = 0;
  for (int l = 0; l < e.n_branch(); ++l)
    if (e.bus[e.branch_from_idx[l]].type == 4 || e.bus[e.branch_to_idx[l]].type == 4)
      e.branch[l].status = 0;
  e.finalize();  // ref_bus_idx: the first bus of type 3
  return e;
}

}  // namespace pz::grid
