// UnitCommitment: DC unit commitment with an exact DC-OPF dispatch (PowerZooJax's
// UnitCommitmentEnv, powerzoojax/envs/grid/unit_commitment.py).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/forecast.hpp"
#include "powerzoo/envs/outages.hpp"
#include "powerzoo/envs/unit_commitment_outages.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/uc/dispatch_lp.hpp"
#include "powerzoo/grid/uc/merit_order.hpp"

namespace pz::envs {

/// Unit-commitment data of one unit (PowerZooJax's make_uc_params after conversion).
struct UcUnit {
  double mc_a = 0, mc_b = 0, mc_c = 0;      ///< marginal cost a·p² + b·p + c ($/MWh)
  double pmin = 0, pmax = 0;                ///< MW
  double ramp_up_mw = 0, ramp_down_mw = 0;  ///< per step (frac · pmax · Δt)
  int min_up = 1, min_down = 1;             ///< steps
  double startup_cost = 0;                  ///< $ per start
  double no_load_cost_per_step = 0;         ///< $ (no-load $/h · Δt)
  int status0 = 1;                          ///< initial commitment
  int tis0 = 200;                           ///< initial time in state (steps)
};

/// Parameters of a UnitCommitment model. The case's gens must be the units (same order) and are
/// rewritten: limits p_min/p_max, linear cost mc_c (the reference's OPF objective), status 1.
/// Bus load at absolute step k: base_pd[b] · load_scale · net[k].
struct UnitCommitmentParams {
  grid::Case grid_case;  ///< network (ratings already set); gens = units
  std::vector<UcUnit> units;
  std::vector<double> base_pd;          ///< [n_bus] MW (the reference's load_d_max per bus)
  std::vector<double> net;              ///< per absolute step, dimensionless net-load factor
  std::vector<int64_t> episode_starts;  ///< candidate starts (indices into net)
  int horizon = 48;
  double dt_hours = 0.5;
  double load_scale = 1.0;
  double reserve_margin = 0.05;
  bool enable_reserve = true;
  int forecast_horizon = 0;
  /// Relative load-forecast error one step ahead (envs/forecast.hpp; 0: perfect forecast).
  double forecast_noise = 0.0;
  double reward_scale = 1e-4;
  double cost_thermal_weight = 1.0;
  double dispatch_preference = 0.01;  ///< α of mc' = mc_c − α·target
  /// Try the merit-order economic dispatch before the LP (see UnitCommitment). false: always CLP
  /// (tests compare the two).
  bool screen_dispatch = true;
  /// Outages (scheduled, random, N-1; docs/outages.md). Inactive by default: nothing drawn, the
  /// spec and numbers of the env without them.
  OutageParams outages;
};

/// obs = [status (nu), tis/200 (nu), last/max(pmax,1) (nu), mc_b/max(max|mc_b|,1) (nu),
/// flow/max(|cap|,1) (nl), Σload/max(Σpmax,1), (Σu·pmax − Σload)/max(Σload,1), sin, cos,
/// forecast Σload[t+k]/max(Σpmax,1) (k = 1..H; past the episode's last step its load is held;
/// with forecast_noise > 0 each value carries the error of envs/forecast.hpp, drawn afresh at
/// every observation)]; action [commit (nu) | dispatch (nu)] ∈ [−1,1].
/// costs = [thermal_overload (MW), reserve_shortfall (MW), min_updown (0: masked)].
/// With outages configured (docs/outages.md): obs gains branch_status [n_branch] and/or
/// gen_status [nu] (1 in service, 0 out; the status the next step solves) after the forecast,
/// costs gain unserved_load (MW: the islands' unserved load and the load of de-energized buses),
/// traces gain the same status vectors (row t: the status step t solved). A unit out is off
/// whatever its action and min up time (no start-up or no-load cost; its time in state counts the
/// outage as time off, so min down is served by an outage at least that long); the dispatch
/// solves the network without the out branches, island by island (unit_commitment_outages.hpp).
/// The exact DC-OPF dispatches within the ramp windows of the committed units with the biased
/// linear cost. Screening: the OPF without flow limits is a continuous knapsack solved exactly by
/// merit order; when its flows (PTDF) are within every rating it is also the optimum with the
/// limits. Otherwise grid::DispatchLp's dual simplex continues from the merit order's basis, and
/// CLP (one model per state, warm-started) solves only what DispatchLp gives up on. The
/// dispatch equals CLP's up to rounding (or another optimal vertex if biased costs tie). The
/// balance may be missed at 1000 $/MWh at the reference bus: unserved load (committed units or
/// their ramps cannot reach the load; charged at 1000 $/h per MW in the reward, not in
/// total_operating_cost; unsafe) or spilled generation (Σ committed pmin or ramp-down floors above
/// the load; read as curtailed wind/solar, no extra charge). If the line limits make the OPF
/// infeasible it is re-solved without them (the overload then shows in thermal_overload). If the
/// solver still fails the episode terminates with StepStatus::kSolverFailed and the step is charged
/// the all-units-at-pmax cost for every remaining step (so ending an episode early never pays).
/// Info::sums = [total_operating_cost (gen $/h + startup $ + no-load $ per step, gen cost in $/h
/// not ×Δt, as the reference), total_commitment_switches,
/// step_feasibility_rate (is_safe / horizon), unserved_energy_mwh, spilled_energy_mwh].
class UnitCommitment final : public Env {
 public:
  /// Throws core::ConfigError on inconsistent sizes or an unusable network.
  explicit UnitCommitment(UnitCommitmentParams p);

  struct UcState : State {
    int t = 0;
    int64_t start = 0;
    std::vector<int> status, tis;
    std::vector<double> last;          ///< [nu] MW
    std::vector<double> flow;          ///< [n_branch] MW
    std::unique_ptr<grid::DcOpf> opf;  ///< CLP fallback (warm start between steps); clp_opf()
    grid::DcOpfResult opf_result;      ///< the last step's OPF answer (buffers reused)
    ForecastState forecast;            ///< the load forecast's error stream (noise > 0)
    /// The dispatch LP's own dual simplex (screening on; empty otherwise), and how the dispatches
    /// of this state were found: merit order, DispatchLp, CLP (counts, for tests and profiling).
    std::optional<grid::DispatchLp> lp;
    int64_t n_merit = 0, n_lp = 0, n_clp = 0;
    OutageState out;                   ///< element status (outages active only)
    std::unique_ptr<UcOutageNet> net;  ///< the network of out's status (built when it changes)
    double shed_mw = 0, spill_mw = 0;  ///< outages: the last dispatch's unserved / spilled MW
  };

  const EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<State> make_state() const override;
  void reset(State& s, core::Rng& rng, std::span<float> obs,
             const ResetOptions& opt = {}) const override;
  Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
            std::span<float> costs, Info* info) const override;
  /// unit_on (1/0) and unit_p_mw [n_units], branch_p_mw [n_branch] of the last dispatch.
  void write_trace(const State& s, std::span<float> out) const override;
  /// t, start, status, time in state, last dispatch, flows (then the forecast error stream when
  /// forecast_noise > 0). The solver's warm-start basis is
  /// not saved: a restored state re-solves cold (same optimum; ties between equal-cost
  /// dispatches may resolve differently).
  void save_state(const State& s, std::vector<double>& out) const override;
  size_t load_state(State& s, std::span<const double> in) const override;

  int n_units() const { return static_cast<int>(p_.units.size()); }
  const UnitCommitmentParams& params() const { return p_; }
  /// Total load (MW) at absolute step k.
  double total_load(int64_t k) const;
  /// Reference total cost a/3 p³ + b/2 p² + c p ($/h) of unit u.
  double unit_cost(int u, double p) const;

 private:
  void observe(UcState& s, std::span<float> obs) const;  // draws forecast errors
  int64_t index(const UcState& s, int t) const;
  /// The dispatch LP at loads f·base_pd with unit bounds o.pmin_mw/pmax_mw and costs
  /// mc_c + o.linear_cost_delta: merit order, else DispatchLp, else CLP (soft line limits).
  void dispatch(UcState& s, double f, const grid::DcOpfOverrides& o) const;
  grid::DcOpf& clp_opf(UcState& s) const;  // the state's CLP fallback, built at first use
  // Outages (unit_commitment_outages.cpp).
  void setup_outages();  ///< constructor: the process and the spec's additions
  const UcOutageNet& outage_net(UcState& s) const;
  /// dispatch() on the network of s.out (per island); sets s.shed_mw, s.spill_mw.
  void dispatch_outages(UcState& s, double f, const grid::DcOpfOverrides& o) const;
  void observe_outages(const UcState& s, std::span<float> obs, size_t k) const;
  int trace_outages(const UcState& s, std::span<float> out, int o) const;
  bool unit_out(const UcState& s, int u) const { return outages_.active() && !s.out.gen_on[u]; }

  UnitCommitmentParams p_;
  Forecast forecast_;
  EnvSpec spec_;
  std::vector<double> cap_;  // [n_branch] MW, 1e6 = unlimited
  // Screening: merit order on base_pd at the reference bus against cap_ (empty: screening off).
  std::optional<grid::MeritOrder> merit_;
  // The same screen's LP with the violated ratings as soft limits (copied into every state).
  std::optional<grid::DispatchLp> lp_;
  double sum_pmax_ = 1, max_abs_b_ = 1, sum_base_pd_ = 0, max_step_cost_ = 0;
  // Branch outages: the LODF for the rank-1 update of the screen when one branch is out.
  std::optional<grid::Lodf> lodf_;
  OutageProcess outages_;  // inactive unless [env] outages / outage_rate / outage_n1
};

}  // namespace pz::envs
