// DistGrid under branch outages. In a radial feeder every line is a bridge: a line out cuts off
// the subtree below it, an island without a generator, which MATPOWER's ext2int de-energizes
// (its load unserved). The energized rest is still a tree, and its power flow is the radial
// power flow of the edited case (grid::RadialNetwork of grid::feeder_lines_out: the case with the
// line out and the cut-off buses type 4, as `powerzoo grid distflow --out-of-service` reads it),
// exact as the intact one. A network per single-line outage is built at
// construction (one tree per line, a few kB each on the bundled feeders); several lines out at
// once build the edited case's network when the status changes and keep it in the state.
#include <algorithm>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/csv.hpp"
#include "powerzoo/envs/dist_grid.hpp"
#include "powerzoo/grid/dist/feeder.hpp"

namespace pz::envs {

void DistGrid::setup_outages() {
  // The bundled feeders' only generator is the substation (its outage would de-energize the
  // whole feeder, and DistFlow has no other slack); the DERs are bundle devices, not case gens.
  // Checked before OutageProcess checks the rows' indices, so a gen row is refused for what it
  // is, not for an index past the feeder's one gen (a user trial, issue 36).
  for (const auto& ev : p_.outages.schedule.events)
    if (ev.element == data::OutageElement::kGen)
      throw core::ConfigError(data::csv_where(p_.outages.schedule.path, ev.line) +
                              "expected element branch (a distribution feeder models branch "
                              "outages only: its generator is the substation, its DERs are "
                              "devices, not case generators), found gen");
  if (p_.outages.random_gen)
    throw core::ConfigError(
        "[env] outage_elements: expected \"branch\" (a distribution feeder models branch outages "
        "only: its generator is the substation, its DERs are devices, not case generators), "
        "found gen");
  if (p_.outages.n1 == OutageParams::N1::kGen)
    throw core::ConfigError(
        "[env] outage_n1: expected \"none\" or \"branch\" (a distribution feeder models branch "
        "outages only: its generator is the substation, its DERs are devices), found \"gen\"");
  outages_ = OutageProcess(p_.outages, p_.grid_case, p_.horizon);
  if (!outages_.active()) return;
  const grid::Case& c = p_.grid_case;
  if (outages_.tracks_branches()) {
    const int nl = n_lines();
    if (outages_.observes_branches()) {  // unless outage_status_obs = false; traced always
      spec_.obs_fields.push_back({"branch_status", {spec_.obs_dim, nl}});
      spec_.obs_dim += nl;
    }
    spec_.trace_vectors.push_back({"branch_status", nl});
    single_out_.assign(c.n_branch(), nullptr);
    std::vector<uint8_t> on(c.n_branch(), 1);
    for (int k : lines_) {
      on[k] = 0;
      single_out_[k] =
          std::make_shared<const grid::RadialNetwork>(grid::feeder_lines_out(c, net_, on));
      on[k] = 1;
    }
  }
  spec_.cost_names.push_back("unserved_load");
}

const grid::RadialNetwork& DistGrid::energize(GridState& s) const {
  const grid::RadialNetwork* net = &net_;
  if (outages_.tracks_branches()) {
    int n_out = 0, k_out = -1;
    for (int k : lines_)
      if (!s.out.branch_on[k]) ++n_out, k_out = k;
    if (n_out == 1) {
      net = single_out_[k_out].get();
    } else if (n_out > 1) {
      if (!s.multi_net || s.multi_key != s.out.branch_on) {
        s.multi_net = std::make_shared<const grid::RadialNetwork>(
            grid::feeder_lines_out(p_.grid_case, net_, s.out.branch_on));
        s.multi_key = s.out.branch_on;
      }
      net = s.multi_net.get();
    }
  }
  s.live = net->live();
  return *net;
}

std::span<const float> DistGrid::idle_dead_devices(GridState& s,
                                                   std::span<const float> action) const {
  const std::vector<char>& live0 = net_.live();
  if (std::equal(s.live.begin(), s.live.end(), live0.begin())) return action;
  s.act.assign(action.begin(), action.end());
  const int nbat = bat_.n_devices(), nren = ren_.n_devices(), nflex = flex_.n_devices();
  // Battery: no P, no Q (its SOC holds).
  for (int d = 0; d < nbat; ++d)
    if (!s.live[p_.batteries[d].bus]) {
      const int a = battery_act_offset() + d * bat_.act_per_device();
      std::fill_n(s.act.begin() + a, bat_.act_per_device(), 0.0f);
    }
  // Renewable: fully curtailed (a_c = −1), no Q; its lost energy is curtailment (resource cost).
  for (int d = 0; d < nren; ++d)
    if (!s.live[p_.renewables[d].bus]) {
      const int a = renewable_act_offset() + d * ren_.act_per_device();
      std::fill_n(s.act.begin() + a, ren_.act_per_device(), 0.0f);
      if (ren_.curtailment()) s.act[a] = -1.0f;
    }
  // Flexible load: neither curtails nor shifts (earlier shifts still return, unserved).
  for (int d = 0; d < nflex; ++d)
    if (!s.live[p_.flexloads[d].bus]) {
      const int a = flex_act_offset() + d * devices::FlexLoad::kActPerDevice;
      std::fill_n(s.act.begin() + a, devices::FlexLoad::kActPerDevice, 0.0f);
    }
  return s.act;
}

double DistGrid::unserved_mw(const GridState& s, int64_t k) const {
  const std::vector<char>& live0 = net_.live();
  double sum = 0;
  for (int b = 0; b < n_bus(); ++b) {
    if (s.live[b] || !live0[b]) continue;  // served, or dead in the case itself
    const int sh = p_.bus_shape[b];
    sum += p_.bus_p_mw[b] * (sh >= 0 ? p_.shapes[sh][static_cast<size_t>(k)] : 1.0);
  }
  return sum;
}

}  // namespace pz::envs
