// The TSO task's `scopf` baseline: merit-order commitment, dispatch by the preventive
// security-constrained DC-OPF of the committed units (grid/dc/scopf), mapped to the TSO action
// (docs/tasks/tso.md, Baselines).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/envs/counting_policy.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/envs/unit_commitment.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/lodf.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"
#include "powerzoo/grid/dc/scopf.hpp"

namespace pz::tasks {

/// What the scopf baseline did on one step.
enum class TsoScopfOutcome {
  kSecured,     ///< the SCOPF of the committed units is optimal: its dispatch is the answer
  kInfeasible,  ///< no dispatch of the committed units is N-1 secure: the DC-OPF's (fallback)
  kNoDispatch,  ///< not even the DC-OPF is feasible (load or line limits out of the units' reach)
};

/// N-1 screen of one dispatch over the outages the SCOPF secures (in service, not islanding).
struct TsoN1Count {
  int overloads = 0;        ///< (outage, branch) pairs with |post-outage flow| > rating + 1e-6
  double worst_mw = 0;      ///< largest post-outage flow above its rating (MW)
  double base_over_mw = 0;  ///< Σ base-case flow above the ratings (MW)
};

/// One step's decision for one observation row.
struct TsoScopfDecision {
  TsoScopfOutcome outcome = TsoScopfOutcome::kNoDispatch;
  std::vector<float> action;     ///< [2·nu]: commit ±1 | dispatch preference 0
  std::vector<int> on;           ///< [nu] commitment after the env's min up / down mask
  grid::Case step_case;          ///< the problem solved: committed units, windows, loads
  grid::ScopfResult scopf;       ///< grid::solve_scopf(step_case)
  std::vector<double> dcopf_pg;  ///< [nu] the DC-OPF's dispatch (empty if not optimal)
  std::vector<double> dispatch;  ///< [nu] SCOPF's if secured, else the DC-OPF's (else empty)
  /// A post-contingency limit binds at the SCOPF optimum: the SCOPF dispatch differs from the
  /// DC-OPF's, and the env (whose dispatch LP has base-case limits only) does not reproduce it.
  bool security_binds = false;
};

/// The baseline's model of the env: what it reads from an observation and how it rebuilds the
/// step's dispatch problem (loads, ramp windows, the env's dispatch objective) as a grid::Case.
class TsoScopf {
 public:
  explicit TsoScopf(std::shared_ptr<const envs::UnitCommitment> uc);

  /// The decision for one observation row [obs_dim] (the env's observation before the step).
  TsoScopfDecision decide(std::span<const float> obs) const;
  /// N-1 screen of unit outputs pg [nu] on `step_case`'s loads.
  TsoN1Count screen(const grid::Case& step_case, const std::vector<double>& pg) const;
  const envs::UnitCommitment& env() const { return *uc_; }

 private:
  std::shared_ptr<const envs::UnitCommitment> uc_;
  std::vector<int> order_;  // units by ascending mc_b (the merit_order baseline's order)
  grid::PtdfFlow ptdf_;
  grid::Lodf lodf_;
  std::vector<int> outages_;  // in-service branches whose outage does not island
  double sum_pmax_ = 1, sum_base_pd_ = 1;
};

/// The `scopf` policy of the TSO task (nullopt for another env). Its counts (baseline output
/// policy/<name>, summed over the split's steps): steps secured / infeasible (fallback) / without
/// a dispatch, steps whose security binds, and the N-1 overloads of the SCOPF dispatch, of the
/// DC-OPF dispatch of the same commitment, and of the dispatch the env realized (read back from
/// the next observation).
std::optional<envs::PolicyFn> tso_scopf_baseline(const std::shared_ptr<const envs::Env>& env);

}  // namespace pz::tasks
