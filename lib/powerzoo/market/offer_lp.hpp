// The offer-based SCED of a small market as a dense bounded-variable LP solved by a primal
// simplex of its own: the fast path of pz::market::Clearing (CLP stays the path of record for
// everything this one does not settle).
#pragma once

#include <span>
#include <vector>

#include "powerzoo/grid/dc/ptdf_flow.hpp"

namespace pz::market {

class OfferMarket;
struct ClearingResult;

/// min Σ price·x over the offer segments x (MW above each unit's window floor, within the part of
/// the segment inside the window) + VOLL·(shed + spill) s.t. the power balance and every rated
/// in-service branch's flow within ±RATE_A: the LP Clearing hands to CLP (grid::DcOpf with the
/// offer curves as epigraph rows), in segment form. Columns: the U·K segments, shed, spill, per
/// flow row an elastic pair at a price far above any line's shadow price (a feasible start), then
/// one logical per row carrying the row's bounds. The start is the merit order (segments by price,
/// then index); Dantzig pricing, bound flips, the basis inverted afresh at every iteration (the LP
/// has 1 + n_rated rows), so x_B and the duals are those of the final basis, not of updates.
/// The answer is the LP's optimum to 1e-9 (reduced costs and bounds are checked); the LMPs follow
/// from the duals as in DcOpf (LMP_b = λ + Σ_l μ_l·PTDF[l, b]). Where the optimum is not unique
/// (equal offers at the margin) this simplex's vertex may differ from CLP's, as CLP's own differs
/// between warm and cold starts.
class OfferLp {
 public:
  /// Rows at most: a market with more rated branches than this goes to CLP.
  static constexpr int kMaxRows = 16;

  explicit OfferLp(const OfferMarket& m);

  /// False where the fast path does not apply: an in-service gen that is no unit, a phase
  /// shifter, or more than kMaxRows − 1 rated branches.
  bool usable() const { return usable_; }

  /// Clears loads bus_pd_mw [n_bus] against prices [U·K] within out.window_lo_mw/hi_mw [U]
  /// (already set, lo ≤ hi). On success fills out.p_mw, lmp, flow_mw, unserved_mw, status and
  /// returns true; returns false (out's arrays then unspecified) when a window leaves the offer
  /// curve, the line ratings cannot be met, or the simplex stops without a verified optimum.
  /// line_limits = false: the flow rows never bind (Clearing's re-solve without line limits,
  /// out.lines_relaxed, as DcOpf with line_limits off).
  bool solve(std::span<const double> bus_pd_mw, std::span<const double> prices, ClearingResult& out,
             bool line_limits = true);
  /// After a solve with line limits that returned false: true iff the simplex reached a verified
  /// optimum whose elastic flow columns are positive, i.e. the ratings cannot be met even with
  /// shedding at the slack bus (where CLP's solve with line limits is infeasible).
  bool ratings_unmet() const { return ratings_unmet_; }

 private:
  enum class Status : unsigned char { kBasic, kLower, kUpper };
  bool invert_basis();
  bool iterate();
  bool verified() const;  // every basic value within its bounds
  bool elastics_zero() const;
  void crash(double demand);
  double row_value(int i) const;

  bool usable_ = false;
  bool ratings_unmet_ = false;
  int nu_ = 0, k_ = 0, nb_ = 0, nl_ = 0;
  int m_ = 0, n_ = 0;           // rows, columns
  int ns_ = 0;                  // segment columns (U·K)
  int shed_ = 0, elastic_ = 0;  // first column of shed/spill, of the elastic pairs
  int logical_ = 0;             // first logical column
  grid::PtdfFlow ptdf_;
  std::vector<int> lim_;         // rated in-service branches (flow row 1 + k)
  std::vector<double> rate_;     // [n_lim] RATE_A
  std::vector<int> unit_bus_;    // [U]
  std::vector<int> unit_order_;  // units by gen row (DcOpf's column order, for the flow sums)
  std::vector<double> xk_;       // [U·(K+1)] breakpoints of each unit's curve
  std::vector<char> branch_on_;  // [n_branch]
  std::vector<double> gs_;       // [n_bus] shunt MW
  std::vector<double> a_;        // [n × m] column-major constraint matrix (constant)
  // Per solve.
  std::vector<double> lb_, ub_, cost_, x_;
  std::vector<Status> st_;
  std::vector<int> basis_;            // [m] column basic in each row
  std::vector<double> binv_, bwork_;  // [m × m]
  std::vector<double> pi_, w_, rhs_, inj_, order_;
  std::vector<int> seg_order_;
};

}  // namespace pz::market
