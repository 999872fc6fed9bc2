// Offer-based clearing of a network with elements out of service: the case with the out rows at
// status 0, read as MATPOWER reads it (grid::energize: an island without an in-service generator
// is de-energized), and every live island cleared on its own by a market::Clearing of that island
// alone (the DC-OPF is separable over islands: no flow couples them, each has its own reference
// and balance, so its LMPs are the duals of its own balance and flow rows).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/market/clearing.hpp"
#include "powerzoo/market/offer_curve.hpp"

namespace pz::market {

/// What a clearing of an edited network leaves unserved, MW.
struct IslandLosses {
  double dead_load_mw = 0;  ///< load at de-energized buses (islands without a live unit)
  double shed_mw = 0;       ///< load a live island could not serve within its windows/ratings
  double spilled_mw = 0;    ///< generation a live island could not use (unit windows above load)
};

/// One status of the network's branches and generators, cleared island by island. Built once per
/// status (the env keeps it while the status holds); not thread-safe, one per env state.
class IslandClearing {
 public:
  /// `c`: the market's case (energized, as OfferMarket's), `units` and `k` as OfferMarket's;
  /// branch_on [n_branch], gen_on [n_gen]: 1 in service. A unit is live if its gen row is on and
  /// its bus energized. Throws core::ConfigError as OfferMarket does. Each island's DC-OPF is
  /// built at its first clearing that OfferLp does not settle (Clearing's lazy_opf): `c` must be
  /// a case grid::DcOpf accepts (the env's checked market case), so its islands are too.
  IslandClearing(const grid::Case& c, const std::vector<OfferUnit>& units, int k,
                 std::span<const uint8_t> branch_on, std::span<const uint8_t> gen_on);
  ~IslandClearing();

  /// A second clearing of the same status (the GenCos planner's beside the market's): shares
  /// this one's island cases and OfferMarkets (read-only; they must outlive neither: shared
  /// ownership), with Clearings, warm starts and buffers of its own, so its results are those of
  /// a second IslandClearing built from the same arguments.
  std::unique_ptr<IslandClearing> twin() const;

  /// As Clearing::clear on the whole network: bus_pd_mw [n_bus], prices [U·K] (every unit's,
  /// in the market's unit order), lo/hi [U] (empty = static). Writes `out` in the whole network's
  /// shapes: a unit that is not live clears 0 MW (its offer withdrawn), a de-energized bus has
  /// LMP 0, an out or de-energized branch flows 0; feasible if every island is; status the worst
  /// island's; costs summed; unserved_mw = Σ islands' (shed − spill). Never throws.
  void clear(std::span<const double> bus_pd_mw, std::span<const double> prices,
             std::span<const double> lo, std::span<const double> hi, ClearingResult& out,
             IslandLosses& losses);

  bool unit_live(int u) const { return unit_live_[u] != 0; }
  bool bus_live(int b) const { return bus_live_[b] != 0; }
  int n_islands() const { return static_cast<int>(islands_.size()); }

 private:
  struct Island;
  IslandClearing() = default;
  int n_units_ = 0, k_ = 0, n_bus_ = 0, n_branch_ = 0;
  std::vector<char> unit_live_, bus_live_;
  std::vector<int> dead_buses_;
  std::vector<std::unique_ptr<Island>> islands_;
};

}  // namespace pz::market
