// The reading of a distribution feeder (see feeder.hpp): grid::energize's element status and bus
// types, the substation as the one slack, every bus cut off from it de-energized.
#include "powerzoo/grid/dist/feeder.hpp"

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dist/distflow.hpp"

namespace pz::grid {

std::string feeder_label(const Case& c) {
  if (!c.source_path.empty()) return c.source_path;
  return "case '" + (c.name.empty() ? std::string("<unnamed>") : c.name) + "'";
}

namespace {

// The first bus of type 3 with a gen in service; throws naming the type-3 bus if its gens are
// all out of service (or the case has no type-3 bus).
int substation(const Case& c) {
  const int nb = c.n_bus();
  std::vector<char> has_gen(nb, 0);
  for (int g = 0; g < c.n_gen(); ++g)
    if (c.gen[g].status > 0) has_gen[c.gen_bus_idx[g]] = 1;
  int first_ref = -1;
  for (int b = 0; b < nb; ++b) {
    if (c.bus[b].type != 3) continue;
    if (has_gen[b]) return b;
    if (first_ref < 0) first_ref = b;
  }
  std::string found = "found none";
  if (first_ref >= 0)
    found = "found bus " + std::to_string(c.bus[first_ref].id) + " (bus row " +
            std::to_string(first_ref + 1) + ") of type 3 without a gen in service";
  throw core::ConfigError(feeder_label(c) +
                          ": expected a reference bus (type 3) with a gen in service as the "
                          "feeder's substation, " +
                          found);
}

}  // namespace

Feeder read_feeder(const Case& raw) {
  const int nb = raw.n_bus();
  if (nb == 0)
    throw core::ConfigError(feeder_label(raw) + ": expected at least one bus, found none");
  Feeder f;
  f.root = substation(raw);
  f.c = energize(raw);
  const Islands isl = find_islands(f.c);
  const int home = isl.island[f.root];
  f.live.assign(nb, 0);
  for (int b = 0; b < nb; ++b) {
    if (f.c.bus[b].type == 4) continue;
    if (isl.island[b] == home) {
      f.live[b] = 1;
      continue;
    }
    // Energized but not fed from the substation: energize kept the island for a gen in it.
    for (int g = 0; g < f.c.n_gen(); ++g) {
      if (f.c.gen[g].status <= 0 || isl.island[f.c.gen_bus_idx[g]] != isl.island[b]) continue;
      throw core::ConfigError(
          feeder_label(raw) + ": gen " + std::to_string(g + 1) + " (at bus " +
          std::to_string(raw.gen[g].bus) +
          ") is in service in an island cut off from the "
          "substation bus " +
          std::to_string(raw.bus[f.root].id) +
          "; a feeder is solved from its substation (set the gen's status to 0, or close a "
          "branch to the island)");
    }
  }
  // Every bus outside the substation's island is type 4 in f.c now (any other was refused).
  for (int b = 0; b < nb; ++b) {
    if (f.live[b]) continue;
    f.dead.push_back(b);
    f.dead_pd_mw += raw.bus[b].pd_mw;
  }
  return f;
}

Case feeder_lines_out(const Case& c, const RadialNetwork& net,
                      const std::vector<uint8_t>& branch_on) {
  Case e = c;
  std::vector<char> dead(c.n_bus(), 0);
  const std::vector<int>& order = net.order();  // parents before children
  for (size_t i = 1; i < order.size(); ++i) {
    const int b = order[i];
    dead[b] = dead[net.parent()[b]] || !branch_on[net.parent_branch()[b]];
  }
  for (int k = 0; k < c.n_branch(); ++k)
    if (!branch_on[k]) e.branch[k].status = 0;
  for (int b = 0; b < c.n_bus(); ++b)
    if (dead[b]) e.bus[b].type = 4;
  for (int g = 0; g < c.n_gen(); ++g)
    if (dead[c.gen_bus_idx[g]]) e.gen[g].status = 0;
  return e;
}

}  // namespace pz::grid
