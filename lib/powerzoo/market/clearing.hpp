// Offer-based market clearing (SCED) on the exact DC-OPF: offer curves become piecewise-linear
// costs of grid::DcOpf, ramp windows become per-solve unit bounds (PowerZooJax's offer_sced,
// powerzoojax/envs/market/offer_sced.py, solved as an exact LP); small markets are solved first
// by OfferLp, the same LP in segment form (offer_lp.hpp).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/market/offer_curve.hpp"
#include "powerzoo/market/offer_lp.hpp"

namespace pz::market {

/// The market's immutable model: the case with each unit's cost replaced by a K-segment
/// piecewise-linear curve over [pmin, pmax] at truthful prices (gencost model 1), unit limits
/// from the units, shunts kept. Shared by every Clearing of it.
class OfferMarket {
 public:
  /// Throws core::ConfigError if a unit's gen row is outside the case, appears twice, or has
  /// pmax ≤ pmin, or k is outside [1, 64]; the DC-OPF's own errors (islanding, …) propagate.
  OfferMarket(const grid::Case& c, std::vector<OfferUnit> units, int k);

  const grid::Case& offer_case() const { return case_; }
  const std::vector<OfferUnit>& units() const { return units_; }
  int n_units() const { return static_cast<int>(units_.size()); }
  int segments() const { return k_; }
  /// Truthful prices [U·K], $/MWh (truthful_prices()).
  const std::vector<double>& base_prices() const { return base_; }

 private:
  grid::Case case_;
  std::vector<OfferUnit> units_;
  int k_ = 0;
  std::vector<double> base_;
};

/// Outcome of one clearing. Arrays in unit order ([U]), case bus order ([n_bus]) and branch
/// order ([n_branch]).
struct ClearingResult {
  /// Load was served within the unit windows and line ratings without shedding or spilling.
  bool feasible = false;
  /// The line ratings were dropped to find a dispatch (shedding alone could not meet them).
  bool lines_relaxed = false;
  grid::DcOpfStatus status = grid::DcOpfStatus::kFailed;  ///< of the last DC-OPF solve
  std::vector<double> p_mw;                               ///< dispatch [U], MW
  std::vector<double> lmp;           ///< [n_bus] $/MWh (d offered cost / d load at the bus)
  std::vector<double> flow_mw;       ///< [n_branch] from-end flow, MW
  std::vector<double> window_lo_mw;  ///< [U] the unit bounds the clearing used
  std::vector<double> window_hi_mw;
  double offer_cost = 0;  ///< $/h, Σ_u offered cost of P_u above window_lo_u
  double true_cost = 0;   ///< $/h, Σ_u TC_u(P_u)
  double unserved_mw =
      0;  ///< shed load (> 0) or spilled generation (< 0) at the value of lost load
};

/// The ramp window of each unit around its previous dispatch p_prev [U] (MW): lo = max(pmin,
/// p_prev − ramp_down), hi = min(pmax, p_prev + ramp_up); ramps [U] in MW per step. Writes lo, hi.
void ramp_window(const std::vector<OfferUnit>& units, std::span<const double> p_prev,
                 std::span<const double> ramp_up, std::span<const double> ramp_down,
                 std::span<double> lo, std::span<double> hi);

/// One instance's clearing engine: owns a DC-OPF of the market's case (mutable: warm starts) and
/// must outlive no OfferMarket it was built from. Not thread-safe; one per env state.
class Clearing {
 public:
  /// Value of lost load ($/MWh): the price of shed load and of spilled generation.
  static constexpr double kVoll = 1000.0;

  /// Throws core::ConfigError as grid::DcOpf does on the market's case (zero reactance, ...).
  /// lazy_opf: the DC-OPF is built at the first clearing OfferLp does not settle instead (for a
  /// network already checked, e.g. an island of a checked case: most clearings of a small market
  /// never need it, and building CLP's model is most of a Clearing's construction).
  explicit Clearing(const OfferMarket& m, bool lazy_opf = false);

  /// Clears bus loads bus_pd_mw [n_bus] (MW) against offers prices [U·K] ($/MWh, non-decreasing
  /// per unit) within unit windows [lo, hi] (MW, [U] each; empty = [pmin, pmax], the static
  /// market). The window truncates the offer curve (the reference compresses it instead:
  /// docs/deviations.md). min offered cost s.t. balance, windows and line ratings, as one LP;
  /// LMPs from its duals. The LP goes to OfferLp (a few rows: the CLP model's optimum, ~40×
  /// faster, no allocation) and to CLP where OfferLp does not apply or settles nothing (phase
  /// shifters, gens that are not units, a relaxed clearing whose price is degenerate). If the
  /// window cannot meet the load, the balance is missed at kVoll (shed or spill, feasible =
  /// false); if the ratings cannot be met even so, they are dropped (lines_relaxed: OfferLp's
  /// second solve without line limits, or CLP's); if CLP still fails, dispatch is pinned to the
  /// window's clip of the load share and LMPs are 0 (status kFailed). Never throws.
  void clear(std::span<const double> bus_pd_mw, std::span<const double> prices,
             std::span<const double> lo, std::span<const double> hi, ClearingResult& out);

  /// Forgets the warm start (the next clearing starts cold).
  void reset_warm_start() {
    if (opf_) opf_->reset_warm_start();
  }

  /// false: every clearing goes to CLP (the fast path's reference in the tests). Default true:
  /// OfferLp first, CLP for what it does not settle (docs/tasks/gencos.md, "Speed").
  void set_fast_path(bool on) { fast_ = on; }
  /// Clearings settled by OfferLp, and by CLP, since construction.
  long fast_clearings() const { return n_fast_; }
  long clp_clearings() const { return n_clp_; }

 private:
  void clear_clp(std::span<const double> prices, double load, ClearingResult& out);

  const OfferMarket* m_;
  std::optional<grid::DcOpf> opf_;  // built at construction, or at first use (lazy_opf)
  grid::DcOpfOverrides o_;
  grid::DcOpfResult r_;
  std::vector<double> pd_;
  OfferLp lp_;
  bool fast_ = true;
  long n_fast_ = 0, n_clp_ = 0;
};

}  // namespace pz::market
