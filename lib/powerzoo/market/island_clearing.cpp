// Clearing of an edited network island by island: each live island becomes a case of its own
// (its buses, in-service branches and live gens, rows in the whole case's order) with its own
// OfferMarket and Clearing; results are written back to the whole network's rows.
#include "powerzoo/market/island_clearing.hpp"

#include <algorithm>

#include "powerzoo/grid/case/energized.hpp"

namespace pz::market {

struct IslandClearing::Island {
  std::vector<int> units;                     // market unit of each of the island's units
  std::vector<int> buses;                     // whole-case bus row of each island bus
  std::vector<int> branches;                  // whole-case branch row of each island branch
  std::shared_ptr<const OfferMarket> market;  // shared with a twin (the planner's clearing)
  std::unique_ptr<Clearing> clearing;
  std::vector<double> pd, prices, lo, hi;
  ClearingResult r;
};

IslandClearing::IslandClearing(const grid::Case& c, const std::vector<OfferUnit>& units, int k,
                               std::span<const uint8_t> branch_on, std::span<const uint8_t> gen_on)
    : n_units_(static_cast<int>(units.size())), k_(k), n_bus_(c.n_bus()), n_branch_(c.n_branch()) {
  grid::Case e = c;
  for (int l = 0; l < c.n_branch(); ++l)
    if (!branch_on[l]) e.branch[l].status = 0;
  for (int g = 0; g < c.n_gen(); ++g)
    if (!gen_on[g]) e.gen[g].status = 0;
  // MATPOWER's reading of the edited network: islands without a live gen de-energized (type 4),
  // their gens and branches out, one reference per live island.
  e = grid::energize(e, &dead_buses_);
  const grid::Islands isl = grid::find_islands(e);
  bus_live_.assign(n_bus_, 0);
  for (int b = 0; b < n_bus_; ++b) bus_live_[b] = e.bus[b].type != 4;
  unit_live_.assign(n_units_, 0);
  for (int u = 0; u < n_units_; ++u)
    unit_live_[u] = units[u].in_service && e.gen[units[u].gen_row].status > 0;
  for (int i = 0; i < isl.n; ++i) {
    auto is = std::make_unique<Island>();
    grid::Case s;
    s.name = c.name;
    s.source_path = c.source_path;
    s.base_mva = c.base_mva;
    for (int b = 0; b < n_bus_; ++b)
      if (isl.island[b] == i) {
        s.bus.push_back(e.bus[b]);
        is->buses.push_back(b);
      }
    if (is->buses.empty()) continue;
    for (int l = 0; l < n_branch_; ++l)
      if (e.branch[l].status > 0 && isl.island[e.branch_from_idx[l]] == i &&
          isl.island[e.branch_to_idx[l]] == i) {
        s.branch.push_back(e.branch[l]);
        is->branches.push_back(l);
      }
    std::vector<int> sub_row(e.n_gen(), -1);
    for (int g = 0; g < e.n_gen(); ++g) {
      if (e.gen[g].status <= 0 || isl.island[e.gen_bus_idx[g]] != i) continue;
      sub_row[g] = static_cast<int>(s.gen.size());
      s.gen.push_back(e.gen[g]);
      if (static_cast<size_t>(g) < e.gencost.size()) s.gencost.push_back(e.gencost[g]);
    }
    std::vector<OfferUnit> su;
    for (int u = 0; u < n_units_; ++u)
      if (unit_live_[u] && sub_row[units[u].gen_row] >= 0) {
        su.push_back(units[u]);
        su.back().gen_row = sub_row[units[u].gen_row];
        is->units.push_back(u);
      }
    s.finalize();
    is->market = std::make_shared<const OfferMarket>(s, std::move(su), k);
    // The island is part of a case DcOpf has checked (the env's intact market): its DC-OPF is
    // built only if OfferLp leaves a clearing to CLP.
    is->clearing = std::make_unique<Clearing>(*is->market, /*lazy_opf=*/true);
    is->pd.resize(is->buses.size());
    is->prices.resize(is->units.size() * static_cast<size_t>(k));
    is->lo.resize(is->units.size());
    is->hi.resize(is->units.size());
    islands_.push_back(std::move(is));
  }
}

IslandClearing::~IslandClearing() = default;

std::unique_ptr<IslandClearing> IslandClearing::twin() const {
  std::unique_ptr<IslandClearing> t(new IslandClearing());
  t->n_units_ = n_units_;
  t->k_ = k_;
  t->n_bus_ = n_bus_;
  t->n_branch_ = n_branch_;
  t->unit_live_ = unit_live_;
  t->bus_live_ = bus_live_;
  t->dead_buses_ = dead_buses_;
  for (const auto& src : islands_) {
    auto is = std::make_unique<Island>();
    is->units = src->units;
    is->buses = src->buses;
    is->branches = src->branches;
    is->market = src->market;
    is->clearing = std::make_unique<Clearing>(*is->market, /*lazy_opf=*/true);
    is->pd.resize(src->pd.size());
    is->prices.resize(src->prices.size());
    is->lo.resize(src->lo.size());
    is->hi.resize(src->hi.size());
    t->islands_.push_back(std::move(is));
  }
  return t;
}

void IslandClearing::clear(std::span<const double> bus_pd_mw, std::span<const double> prices,
                           std::span<const double> lo, std::span<const double> hi,
                           ClearingResult& out, IslandLosses& losses) {
  out.p_mw.assign(n_units_, 0.0);
  out.window_lo_mw.assign(n_units_, 0.0);
  out.window_hi_mw.assign(n_units_, 0.0);
  out.lmp.assign(n_bus_, 0.0);
  out.flow_mw.assign(n_branch_, 0.0);
  out.feasible = true;
  out.lines_relaxed = false;
  out.status = grid::DcOpfStatus::kOptimal;
  out.offer_cost = out.true_cost = out.unserved_mw = 0;
  losses = IslandLosses{};
  for (int b : dead_buses_) losses.dead_load_mw += bus_pd_mw[b];
  const bool windows = !lo.empty();
  for (auto& is : islands_) {
    for (size_t j = 0; j < is->buses.size(); ++j) is->pd[j] = bus_pd_mw[is->buses[j]];
    for (size_t j = 0; j < is->units.size(); ++j) {
      const int u = is->units[j];
      std::copy_n(prices.begin() + static_cast<size_t>(u) * k_, k_, is->prices.begin() + j * k_);
      if (windows) {
        is->lo[j] = lo[u];
        is->hi[j] = hi[u];
      }
    }
    const std::span<const double> none;
    is->clearing->clear(is->pd, is->prices, windows ? std::span<const double>(is->lo) : none,
                        windows ? std::span<const double>(is->hi) : none, is->r);
    const ClearingResult& r = is->r;
    for (size_t j = 0; j < is->units.size(); ++j) {
      out.p_mw[is->units[j]] = r.p_mw[j];
      out.window_lo_mw[is->units[j]] = r.window_lo_mw[j];
      out.window_hi_mw[is->units[j]] = r.window_hi_mw[j];
    }
    for (size_t j = 0; j < is->buses.size(); ++j) out.lmp[is->buses[j]] = r.lmp[j];
    for (size_t j = 0; j < is->branches.size(); ++j) out.flow_mw[is->branches[j]] = r.flow_mw[j];
    out.feasible = out.feasible && r.feasible;
    out.lines_relaxed = out.lines_relaxed || r.lines_relaxed;
    if (r.status != grid::DcOpfStatus::kOptimal && out.status != grid::DcOpfStatus::kFailed)
      out.status = r.status;
    out.offer_cost += r.offer_cost;
    out.true_cost += r.true_cost;
    out.unserved_mw += r.unserved_mw;
    losses.shed_mw += std::max(r.unserved_mw, 0.0);
    losses.spilled_mw += std::max(-r.unserved_mw, 0.0);
  }
}

}  // namespace pz::market
