// GenCos market env (PowerZooJax powerzoojax/envs/market/market_marl_core.py and
// powerzoojax/rl/market_marl.py): five generator companies bid offer curves into a market cleared
// every step by the exact offer-based SCED (pz::market).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/forecast.hpp"
#include "powerzoo/envs/outages.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/market/clearing.hpp"

namespace pz::envs {

/// Everything a GenCos market is built from (the task preset fills it, tasks/gencos.cpp).
struct GencosParams {
  grid::Case grid_case;
  std::vector<market::OfferUnit> units;  ///< agents genco_0.. in this order
  int segments = 3;                      ///< K offer segments per unit
  double max_markup = 2.0;               ///< offer = base·(1 + m·max_markup), m ∈ [0, 1]
  std::vector<double> ramp_up_mw, ramp_down_mw;  ///< [U] MW per step
  std::vector<int> load_bus_idx;                 ///< [D] 0-based bus rows of the loads
  std::vector<double> loads_mw;                  ///< [T × D] row-major, MW; rows = start pool
  int horizon = 48;
  double dt_hours = 0.5;
  int lmp_history = 4;
  double lmp_scale = 100;  ///< observation normalizer of prices ($/MWh)
  OutageParams outages;    ///< [env] outage keys (default: none)
  /// [env] forecast_horizon / forecast_noise: H steps of load_forecast (the reference's one
  /// perfect step by default; 0: no field).
  ForecastParams forecast{1, 0.0};
};

/// Agents genco_0.. in unit order. Per agent: obs 7 + F + H floats (as PowerZooJax's
/// market_marl.py: own base price / lmp_scale, pmax share, last dispatch, last profit, ramp
/// headroom, load_forecast [F = forecast.horizon] = total load of the next F steps / Σpmax (rows
/// of the load table, wrapping; F = 1 and no noise: the reference's next-step load), sin/cos
/// time of day, H mean LMPs / lmp_scale oldest first), action [K] in
/// [−1, 1] (offer markups, market::offer_prices), reward = profit LMP_bus·P·dt − TC(P)·dt ($ per
/// step, true cost); Step::reward = mean over agents. Cost channel thermal_overload = Σ MW over the
/// ratings. Info::sums: spec().episode_sum_names (episode sums; per-step means are pre-divided by
/// the horizon; price_volatility and planner_cost_ratio are written at the last step only).
///
/// Outages (params().outages, docs/outages.md): each step clears the network of that step's
/// status island by island (market::IslandClearing: MATPOWER's islands, a de-energized island's
/// load unserved); an out unit's offer is withdrawn (0 MW, profit 0, its action has no effect).
/// Then each agent's block gains branch_status [n_branch] and gen_status [U] (1 in service, the
/// status the next step clears; both whichever kinds can go out), the costs gain unserved_load (MW:
/// load of de-energized buses + load an island sheds) and spilled_generation (MW), and the traces
/// gain branch_status and gen_status (row t: the status step t cleared). Without outages nothing of
/// this exists.
///
/// Forecast errors (forecast.noise > 0, docs/design.md §4.12): each observation draws one error
/// path from the forecast's own stream (seeded at reset, saved after the outage state); every
/// agent sees the same market-wide forecast.
class GencosMarket final : public Env {
 public:
  /// Throws core::ConfigError for inconsistent sizes (ramps, loads, load buses) and for a
  /// scenario file's row the case cannot take (naming the file and line, OutageProcess).
  explicit GencosMarket(GencosParams p);

  const EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<State> make_state() const override;
  void reset(State& s, core::Rng& rng, std::span<float> obs,
             const ResetOptions& opt) const override;
  Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
            std::span<float> costs, Info* info) const override;
  /// unit_p_mw [n_units] cleared, bus_lmp_usd_per_mwh [n_bus], branch_p_mw [n_branch] of the
  /// step's clearing.
  void write_trace(const State& s, std::span<float> out) const override;
  void save_state(const State& s, std::vector<double>& out) const override;
  size_t load_state(State& s, std::span<const double> in) const override;

  const GencosParams& params() const { return p_; }
  const market::OfferMarket& market() const { return *market_; }
  int n_units() const { return static_cast<int>(p_.units.size()); }
  int64_t n_rows() const;
  const OutageProcess& outages() const { return outages_; }
  /// The last clearing of state s (after reset: the static truthful clearing of step 0).
  const market::ClearingResult& last_clearing(const State& s) const;
  /// The outage status of state s: the one the next step clears.
  const OutageState& outage_state(const State& s) const;
  /// Per-agent observation size without lmp history and outages, with a one-step forecast.
  static constexpr int kPerAgentObs = 8;

 private:
  struct GState;
  void setup_outages();
  /// Clears the step's network (the intact one through the state's own clearings, otherwise the
  /// islands of s.out); planner: the static truthful clearing's engine.
  void clear_network(GState& s, std::span<const double> pd, std::span<const double> prices,
                     std::span<const double> lo, std::span<const double> hi, bool planner,
                     market::ClearingResult& r) const;
  int per_agent_obs() const;
  double mean_lmp(const GState& s, const market::ClearingResult& r) const;
  void bus_loads(int64_t row, std::vector<double>& pd) const;
  double total_load(int64_t row) const;
  void write_obs(GState& s, std::span<float> obs) const;  // draws forecast errors
  void finish_metrics(GState& s, const market::ClearingResult& r, double planner_cost,
                      Info* info) const;

  GencosParams p_;
  std::shared_ptr<const market::OfferMarket> market_;
  EnvSpec spec_;
  double max_pmax_ = 0, sum_pmax_ = 0;
  std::vector<double> rated_;    ///< [n_branch] rating, 0 = unlimited
  std::vector<int64_t> starts_;  ///< [n_rows] every row of the load table starts an episode
  OutageProcess outages_;
  OutageState intact_;  ///< every row as the case has it
  Forecast forecast_;
};

}  // namespace pz::envs
