// TransGrid: DC transmission dispatch env (PowerZooJax's TransGridEnv in
// powerzoojax/envs/grid/trans.py, agent-dispatch mode).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/outages.hpp"
#include "powerzoo/grid/ac/acopf.hpp"
#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/dc/lodf.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"

namespace pz::envs {

/// Parameters of a TransGrid model. Loads: every bus with PD ≠ 0 is a load; at grid step k its
/// demand is PD · load_scale · profile[k] / profile_mean (profile empty ⇒ factor 1 at every step).
struct TransGridParams {
  grid::Case grid_case;
  std::vector<double> profile;          ///< demand series (MW), indexed by absolute grid step
  double profile_mean = 1.0;            ///< normalizer of the profile (train-split mean)
  std::vector<int64_t> episode_starts;  ///< candidate start indices into profile (≥ 1 if profile)
  int horizon = 48;
  double dt_hours = 0.5;  ///< step length (sets the time-of-day features)
  double load_scale = 1.0;
  double reward_scale = 0.01;  ///< reward = −reward_scale · generation cost ($/h)
  double cost_thermal_weight = 1.0;
  int slack_bus_idx = -1;  ///< −1: the case's reference bus
  /// Optional override of per-unit limits [n_units] (tests use the reference's case5 limits).
  std::vector<double> pmin_override, pmax_override;
  /// OPF mode (reference solver_mode 1, exact): the DC-OPF of the step's load dispatches and the
  /// action is ignored (act_dim stays n_units; attached devices, which would take the action,
  /// do not exist yet). An infeasible OPF terminates the episode with kSolverFailed.
  bool opf_dispatch = false;
  /// Also solve the step's DC-OPF (agent mode) and report Info::sums = [policy_gen_cost_usd,
  /// opf_gen_cost_usd] (gen cost × Δt, both 0 on steps whose OPF is not optimal); evaluation
  /// turns them into opf_gap = policy / OPF − 1.
  bool report_opf_gap = false;
  /// Physics of a step (reference `physics` / `solver_mode`): kDc the PTDF flow above; kAcPf the
  /// Newton–Raphson AC power flow of the agent's (or the DC-OPF's) dispatch, the reference bus's
  /// first unit absorbing the imbalance and the losses; kAcOpf the AC-OPF of the step's loads
  /// dispatches (action ignored). AC modes observe |S| and every bus's Vm, and cost apparent-power
  /// overloads and voltage-band violations; reactive loads follow the active ones (QD × the same
  /// factor). With report_opf_gap the gap is taken against the AC-OPF.
  enum class Solver { kDc, kAcPf, kAcOpf };
  Solver solver = Solver::kDc;
  bool enforce_q_lims = true;     ///< AC PF: PV-bus gens held at their Q limits (slack unlimited)
  double vm_min = 0, vm_max = 0;  ///< > 0: every bus's voltage band instead of VMIN / VMAX (AC)
  /// Outages (scheduled and random; every solver and dispatch mode). Inactive by default: nothing
  /// drawn, observation, costs and traces as without it. Active: the observation gains
  /// branch_status / gen_status (the tracked kinds), the costs unserved_load (MW at de-energized
  /// buses), the traces branch_status / gen_status (row t: the status step t solved). Each step
  /// solves the network without the out elements (docs/outages.md): the OPF modes the DC-OPF /
  /// AC-OPF of the edited case (the DC-OPF per energized island), the AC modes the AC power flow of
  /// the edited case.
  OutageParams outages;
};

/// DC power flow on PTDF, slack-bus units absorb the imbalance, generation cost from gencost.
/// obs = [flow/max(|cap|,1) (n_branch), load/max(Σpmax,1) (n_loads), p/max(pmax,1) (n_units),
/// sin, cos] with unlimited branches at cap 1e6 (as the reference). action ∈ [−1,1]^n_units maps
/// to [pmin, pmax]. costs = [thermal_overload (MW), voltage_violation (0 in DC), power_balance
/// (MW outside unit limits), resource (0)]. Time limit → truncated.
/// AC modes (TransGridParams::solver): obs = [|Sf|/max(|cap|,1) (n_branch), Vm (n_bus), loads,
/// units, sin, cos]; thermal_overload in MVA (|S| at the worse end), voltage_violation =
/// Σ_b max(Vm − Vmax, 0) + max(Vmin − Vm, 0) (p.u.). A power flow that does not converge (or an
/// AC-OPF that is not optimal) ends the episode (kSolverFailed) with every bus counted as
/// collapsed (voltage_violation = Σ Vmin).
/// The solvers of one outage set (trans_grid_outage_net.cpp), built when a step's set differs
/// from the one before and kept in the env state; derived data, rebuilt after a resume.
struct OutageNet;

class TransGrid final : public Env {
 public:
  /// Throws core::ConfigError if the case has no in-service generator or is islanded.
  explicit TransGrid(TransGridParams p);

  struct GridState : State {
    int t = 0;
    int64_t start = 0;
    std::vector<double> p_mw;     ///< [n_units] slack-adjusted output
    std::vector<double> flow_mw;  ///< [n_branch]
    double episode_cost = 0;
    std::unique_ptr<grid::DcOpf> opf;  ///< OPF mode / opf-gap report only (warm-started)
    // AC modes only.
    std::unique_ptr<grid::AcPowerFlow> acpf;
    std::unique_ptr<grid::AcOpf> acopf;  ///< AC-OPF dispatch / AC opf-gap report (warm-started)
    grid::AcPfResult ac;                 ///< last AC power flow (its vectors are reused)
    std::vector<double> vm, va_deg;      ///< [n_bus] last AC voltages (the next step's start)
    std::vector<double> qflow_mvar;      ///< [n_branch] from-end reactive flow
    bool ac_valid = false;               ///< vm / va_deg hold a converged solution
    OutageState out;                     ///< element status (outages active only)
    double unserved_mw = 0;              ///< load at de-energized buses in the last step
    /// Solvers of the outage set of s.out (null: not built yet, or built for another set).
    std::shared_ptr<OutageNet> net;
  };

  const EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<State> make_state() const override;
  void reset(State& s, core::Rng& rng, std::span<float> obs,
             const ResetOptions& opt = {}) const override;
  Step step(State& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
            std::span<float> costs, Info* info) const override;
  /// unit_p_mw [n_units], branch_p_mw [n_branch] (from end); AC modes also branch_q_mvar and
  /// bus_vm_pu [n_bus] of the last power flow.
  void write_trace(const State& s, std::span<float> out) const override;
  void save_state(const State& s, std::vector<double>& out) const override;
  size_t load_state(State& s, std::span<const double> in) const override;

  int n_units() const { return static_cast<int>(unit_gen_.size()); }
  const TransGridParams& params() const { return p_; }            ///< grid_case: the energized case
  const std::vector<int>& unit_gen() const { return unit_gen_; }  ///< unit -> case gen row
  const std::vector<int>& load_bus() const { return load_bus_; }  ///< load -> bus index
  const std::vector<double>& load_pd() const { return load_pd_; }  ///< load -> PD (MW)
  const std::vector<double>& pmin() const { return pmin_; }
  const std::vector<double>& pmax() const { return pmax_; }
  /// Per-bus load (MW) at absolute profile index k.
  void bus_load(int64_t k, std::vector<double>& load) const;
  /// Total generation cost ($/h) of unit outputs p [n_units].
  double generation_cost(const std::vector<double>& p) const;

 private:
  void build_shift_flows(const grid::Case& c);
  void dc_flow(const std::vector<double>& load, std::vector<double>& p,
               std::vector<double>& flow) const;
  void observe(const GridState& s, std::span<float> obs) const;
  bool ac() const { return p_.solver != TransGridParams::Solver::kDc; }
  double load_factor(int64_t k) const;  ///< load_scale × profile[k] / profile_mean
  void setup_ac(bool ac_opf);           ///< voltage band, AC data checks (constructor)
  void make_ac_state(GridState& s) const;
  void reset_ac(GridState& s, int64_t k, const std::vector<double>& load) const;
  Step step_ac(GridState& s, std::span<const float> action, core::Rng& rng, std::span<float> obs,
               std::span<float> costs, Info* info) const;
  /// What a mode's step leaves to finish_step: its thermal (MW or MVA over the ratings) and
  /// voltage (p.u.) violations and their count, whether its solve failed (ends the episode;
  /// failed_unsafe: also marks the step unsafe) and the OPF objective of the opf_gap sums.
  struct StepEnd {
    double thermal = 0, voltage = 0;
    int n_violations = 0;
    bool failed = false, failed_unsafe = false, gap_ok = false;
    double gap_cost = 0;
  };
  Step finish_step(GridState& s, const StepEnd& e, core::Rng& rng, std::span<float> obs,
                   std::span<float> costs, Info* info) const;
  /// Reactive bus loads (MVAr) at absolute profile index k: QD × the active loads' factor.
  void bus_qload(int64_t k, std::vector<double>& q) const;
  struct AcCosts {
    bool ok = false;  ///< the AC solve converged (optimal)
    double thermal_mva = 0, voltage_pu = 0, opf_cost = 0;
    int n_thermal = 0, n_voltage = 0;
  };
  /// AC power flow of the units' outputs s.p_mw (REF units updated to the solution) at loads
  /// (p, q), warm-started from s.vm / s.va_deg when `warm`; writes flows and voltages into s.
  AcCosts ac_power_flow(GridState& s, const std::vector<double>& p, const std::vector<double>& q,
                        bool warm) const;
  /// AC-OPF dispatch at loads (p, q) into s (p_mw, flows, voltages).
  AcCosts ac_opf_dispatch(GridState& s, const std::vector<double>& p,
                          const std::vector<double>& q) const;
  /// Thermal (|S| at the worse end over the rating, MVA) and voltage-band (p.u.) violations of
  /// the flows and voltages in s (from `r`'s arrays).
  void ac_costs(const grid::Case& c, const std::vector<double>& pf, const std::vector<double>& qf,
                const std::vector<double>& pt, const std::vector<double>& qt,
                const std::vector<double>& vm, AcCosts& out) const;
  /// The AC solvers (and the case whose type-4 buses are de-energized) of the step's network.
  grid::AcPowerFlow& step_acpf(GridState& s) const;
  grid::AcOpf& step_acopf(GridState& s) const;
  /// Vm = Va = 0 at the buses the outages de-energized (as the AC solvers' dead islands).
  void dark_buses(GridState& s) const;
  /// AC-OPF of loads (p, q) on the step's network (de-energized buses without load) into r.
  void solve_ac_opf(GridState& s, const std::vector<double>& p, const std::vector<double>& q,
                    grid::AcOpfResult& r) const;
  const grid::Case& step_case(GridState& s) const;
  int64_t profile_index(const GridState& s, int t) const;
  // Outages (trans_grid_outage.cpp).
  void setup_outages(const grid::Case& c);  ///< constructor: process, LODF, spec additions
  /// Flows of the dispatch s.p_mw (out units at 0) on the network of s.out: the base PTDF with a
  /// rank-one LODF update for one branch out, a DC power flow of the edited case otherwise.
  void dc_flow_outages(GridState& s, const std::vector<double>& load) const;
  void bridge_flows(GridState& s, const std::vector<double>& load, int k,
                    const std::vector<double>& share) const;
  void observe_outages(const GridState& s, std::span<float> obs, size_t k) const;
  /// The solvers of s.out's set (built if s.net was built for another set). Never throws for a
  /// set the outage process can produce.
  OutageNet& outage_net(GridState& s) const;
  /// DC-OPF of the step's loads on the network of s.out (intact: s.opf; else per energized
  /// island of the edited case, objectives summed; kInfeasible if any island is).
  grid::DcOpfResult solve_dc_opf(GridState& s, const std::vector<double>& load) const;
  /// The branch (0-based) whose single outage s.out is, when s.opf can take it by its LODF column
  /// (every gen as in the case, no other branch out, k neither a bridge nor a phase shifter); −1
  /// for the intact network; −2 when the set needs the edited case's own models (OutageNet).
  int opf_lodf_branch(const GridState& s) const;
  /// Flows of s.p_mw on the network of s.out from the PTDF of that network, built once per set
  /// (out units and units of de-energized islands at 0, their load unserved). False (nothing
  /// done) when the edited network has several islands with generators.
  bool cached_dc_flows(GridState& s, const std::vector<double>& load) const;
  void build_outage_ptdf(OutageNet& n) const;
  int trace_outages(const GridState& s, std::span<float> out, int o) const;
  bool unit_on(const GridState& s, int u) const {
    return !outages_.active() || s.out.gen_on[unit_gen_[u]];
  }

  TransGridParams p_;
  EnvSpec spec_;
  std::vector<int> unit_gen_;    // env unit -> case gen row (in-service gens)
  std::vector<int> unit_bus_;    // env unit -> bus index
  std::vector<int> load_bus_;    // env load -> bus index
  std::vector<double> load_pd_;  // env load -> PD (MW)
  std::vector<double> pmin_, pmax_;
  std::vector<double> slack_share_;  // [n_units] share of the imbalance
  grid::PtdfFlow ptdf_;              // [n_branch x n_bus] at the slack bus
  std::vector<double> shift_flow_;   // [n_branch] MW of the phase shifters; empty if none
  std::vector<double> cap_;          // [n_branch] MW, 1e6 = unlimited
  double sum_pmax_ = 1;
  grid::Case opf_case_;  // the case with the env's unit limits (OPF mode / opf-gap report)
  std::vector<double> vmin_, vmax_;  // [n_bus] voltage band of the AC modes
  OutageProcess outages_;            // inactive unless [env] outages / outage_rate
  std::optional<grid::Lodf> lodf_;   // built when branches can go out
  // The DC-OPF case energizes as it is (one island, every bus live), so s.opf takes single
  // branch outages by LODF (opf_lodf_branch).
  bool opf_by_lodf_ = false;
};

}  // namespace pz::envs
