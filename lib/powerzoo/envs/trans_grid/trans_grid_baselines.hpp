// trans_grid's OPF baselines: `dcopf` (the exact DC-OPF of the step's loads, the dispatch the
// env's OPF mode computes) and `scopf` (the preventive N-1 security-constrained DC-OPF,
// grid/dc/scopf), each output as the agent-mode action that yields its dispatch.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/envs/counting_policy.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/scopf.hpp"

namespace pz::envs {

/// What an OPF baseline of trans_grid did on one step.
enum class OpfBaselineOutcome {
  kSolved,      ///< its own optimization (DC-OPF or SCOPF) is optimal
  kFallback,    ///< SCOPF infeasible: the DC-OPF's dispatch (scopf only)
  kNoDispatch,  ///< not even the DC-OPF is feasible: every unit at p_max
};

/// One step's decision for one observation row.
struct OpfBaselineDecision {
  OpfBaselineOutcome outcome = OpfBaselineOutcome::kNoDispatch;
  grid::Case step_case;          ///< the step's problem: the env's unit limits, the step's loads
  grid::ScopfResult scopf;       ///< scopf only
  std::vector<double> dcopf_pg;  ///< [n_gen] the DC-OPF's dispatch (empty if not optimal)
  std::vector<double> dispatch;  ///< [n_gen] the dispatch the action carries
  std::vector<float> action;     ///< [n_units]
  bool security_binds = false;   ///< scopf: its dispatch differs from the DC-OPF's
  int outage_fallback = 0;  ///< 1: the observed outages island the network: solved without them
};

/// The step's problem read from one observation row of a DC trans_grid env: the energized case
/// with the env's unit limits, GS = 0 (the env's flows carry no shunt load), every load bus at
/// PD · the load factor read back from the observation (float precision), and every rating and
/// the slack-bus units' limits 1e-3 MW inside (room for the float action's rounding); then the
/// decision of the `dcopf` (secure = false) or `scopf` (secure = true) baseline.
OpfBaselineDecision decide_opf_baseline(const TransGrid& env, std::span<const float> obs,
                                        bool secure);

/// The agent-mode action [n_units] that makes the env dispatch pg [n_gen]:
/// a = (2·p − pmin − pmax) / (pmax − pmin), clipped to [−1, 1] (0 for a fixed unit).
std::vector<float> action_for_dispatch(const TransGrid& env, const std::vector<double>& pg);

/// The "dcopf" / "scopf" policy for a trans_grid env with dispatch = "agent" (nullopt for
/// another name or env; a ConfigError for an OPF-mode or AC-OPF env, which ignore the action).
/// Counts (policy/<name>): steps, solved / fallback / no-dispatch steps, steps whose security
/// binds, the N-1 overloads (grid::screen_n1 over the outages that do not island) of its
/// dispatch and of the DC-OPF's.
std::optional<PolicyFn> trans_grid_opf_baseline(const std::string& name,
                                                const std::shared_ptr<const Env>& env);

}  // namespace pz::envs
