// trans_grid's OPF baselines (see trans_grid_baselines.hpp); registered by trans_grid_entry.cpp.
#include "powerzoo/envs/trans_grid/trans_grid_baselines.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/dc/n1_screen.hpp"

namespace pz::envs {
namespace {

// The action is a float: the env realizes each unit to ~1.5e-8 of its range, and its slack-bus
// units take the sum of those errors and of the loads' (read back from float observations). The
// step's problem keeps every rating and the slack units' limits this far inside, so the realized
// dispatch meets the env's 1e-6 MW violation test; it moves the optimum by this much at most.
constexpr double kMarginMw = 1e-3;

// Sets status 0 on the rows the observation's branch_status / gen_status fields show out;
// whether any was.
bool take_out_observed(const TransGrid& env, std::span<const float> obs, grid::Case& c) {
  bool any = false;
  for (const auto& f : env.spec().obs_fields) {
    if (f.name == "branch_status") {
      for (int l = 0; l < f.slice.size; ++l)
        if (obs[f.slice.offset + l] < 0.5f && c.branch[l].status > 0) {
          c.branch[l].status = 0;
          any = true;
        }
    } else if (f.name == "gen_status") {
      for (int u = 0; u < f.slice.size; ++u)
        if (obs[f.slice.offset + u] < 0.5f) {
          c.gen[env.unit_gen()[u]].status = 0;
          any = true;
        }
    }
  }
  return any;
}

// With the reference bus's units out the env balances at the reference the edit leaves (MATPOWER's
// bustypes: the first PV bus with a unit, grid/case/energized): its units get the same margin as
// the case's slack units (a user trial: unit 1 of case5 at 40.00003 MW of its 40 with gen 4 out,
// a 3e-5 MW power_balance violation).
void hold_new_reference_inside(const TransGrid& env, grid::Case& edited) {
  const grid::Case live = grid::energize(edited);
  for (int u = 0; u < env.n_units(); ++u) {
    const int g = env.unit_gen()[u];
    const int b = edited.gen_bus_idx[g];
    grid::Gen& gen = edited.gen[g];
    if (gen.status > 0 && live.bus[b].type == 3 && b != env.params().slack_bus_idx &&
        gen.pmax_mw - gen.pmin_mw > 2 * kMarginMw) {
      gen.pmin_mw += kMarginMw;
      gen.pmax_mw -= kMarginMw;
    }
  }
}

}  // namespace

OpfBaselineDecision decide_opf_baseline(const TransGrid& env, std::span<const float> obs,
                                        bool secure) {
  const TransGridParams& par = env.params();
  const int nu = env.n_units();
  OpfBaselineDecision d;
  grid::Case& c = d.step_case;
  c = par.grid_case;
  for (int u = 0; u < nu; ++u) {
    c.gen[env.unit_gen()[u]].pmin_mw = env.pmin()[u];
    c.gen[env.unit_gen()[u]].pmax_mw = env.pmax()[u];
  }
  // The observation holds every load as PD · factor / max(Σ pmax, 1): the factor is read back
  // from the largest load (the best relative precision of a float).
  double sum_pmax = 0;
  for (double v : env.pmax()) sum_pmax += v;
  const int i_load = env.spec().obs_field("load").offset;
  const auto& pd = env.load_pd();
  size_t big = 0;
  for (size_t i = 1; i < pd.size(); ++i)
    if (std::abs(pd[i]) > std::abs(pd[big])) big = i;
  const double f = pd.empty() ? 0.0 : obs[i_load + big] * std::max(sum_pmax, 1.0) / pd[big];
  for (auto& b : c.bus) {
    b.pd_mw = 0;
    b.gs_mw = 0;  // the env's flows and balance carry no shunt load
  }
  for (size_t i = 0; i < pd.size(); ++i) c.bus[env.load_bus()[i]].pd_mw += pd[i] * f;
  for (auto& br : c.branch)
    if (br.rate_a_mva > kMarginMw && br.rate_a_mva < 1e10) br.rate_a_mva -= kMarginMw;
  for (int u = 0; u < nu; ++u) {
    grid::Gen& g = c.gen[env.unit_gen()[u]];
    if (c.gen_bus_idx[env.unit_gen()[u]] == par.slack_bus_idx &&
        g.pmax_mw - g.pmin_mw > 2 * kMarginMw) {
      g.pmin_mw += kMarginMw;
      g.pmax_mw -= kMarginMw;
    }
  }
  // Outages: the step's out-of-service rows (status 0) from the observation's status fields,
  // which hold the status this step solves; the solves below secure what remains. An edit that
  // islands the network (the DC-OPF takes one island) and an observation without the fields
  // (outage_status_obs = false) leave the case as given (docs/outages.md).
  // The model built to try the edit is the one solved (one DcOpf per step, not a probe and a
  // second build of the same case).
  std::unique_ptr<grid::DcOpf> opf;
  if (grid::Case edited = c; take_out_observed(env, obs, edited)) {
    hold_new_reference_inside(env, edited);
    try {
      opf = std::make_unique<grid::DcOpf>(edited);
      c = std::move(edited);
    } catch (const core::ConfigError&) {
      ++d.outage_fallback;
    }
  }
  if (!opf) opf = std::make_unique<grid::DcOpf>(c);
  const grid::DcOpfResult plain = opf->solve();
  if (plain.ok()) d.dcopf_pg = plain.gen_pg_mw;
  if (secure) {
    d.scopf = grid::solve_scopf(c);
    if (d.scopf.ok()) {
      d.outcome = OpfBaselineOutcome::kSolved;
      d.dispatch = d.scopf.gen_pg_mw;
      for (size_t g = 0; g < d.dispatch.size() && plain.ok(); ++g)
        d.security_binds = d.security_binds || std::abs(d.dispatch[g] - d.dcopf_pg[g]) > 1e-6;
    } else if (plain.ok()) {
      d.outcome = OpfBaselineOutcome::kFallback;
      d.dispatch = d.dcopf_pg;
    }
  } else if (plain.ok()) {
    d.outcome = OpfBaselineOutcome::kSolved;
    d.dispatch = d.dcopf_pg;
  }
  if (d.outcome == OpfBaselineOutcome::kNoDispatch) {  // the most the units can supply
    d.dispatch.assign(c.n_gen(), 0.0);
    for (int u = 0; u < nu; ++u) d.dispatch[env.unit_gen()[u]] = env.pmax()[u];
  }
  d.action = action_for_dispatch(env, d.dispatch);
  return d;
}

std::vector<float> action_for_dispatch(const TransGrid& env, const std::vector<double>& pg) {
  const int nu = env.n_units();
  std::vector<float> a(nu, 0.0f);
  for (int u = 0; u < nu; ++u) {
    const double lo = env.pmin()[u], hi = env.pmax()[u];
    if (hi > lo)
      a[u] = static_cast<float>(
          std::clamp((2.0 * pg[env.unit_gen()[u]] - lo - hi) / (hi - lo), -1.0, 1.0));
  }
  return a;
}

namespace {

/// Adds the N-1 screen (grid::screen_n1) of dispatch pg on the step's case under `who`: the
/// outages the SCOPF secures (in service, not islanding) whose post-outage flows overload.
void count_screen(std::map<std::string, double>& m, const std::string& who, grid::Case c,
                  const grid::Case& rated, const std::vector<double>& pg) {
  for (int g = 0; g < c.n_gen(); ++g) c.gen[g].pg_mw = pg[g];
  for (int l = 0; l < c.n_branch(); ++l) c.branch[l].rate_a_mva = rated.branch[l].rate_a_mva;
  const grid::N1Screen s = grid::screen_n1(c);
  int pairs = 0;
  double worst = 0;
  for (const grid::N1Outage& o : s.outages) {
    if (o.islands) continue;
    pairs += static_cast<int>(o.overloads.size());
    for (int l : o.overloads)
      worst = std::max(worst, std::abs(o.flow_mw[l]) - c.branch[l].rate_a_mva);
  }
  m["n1_screened_steps/" + who] += 1;
  m["n1_insecure_steps/" + who] += pairs > 0;
  m["n1_overloads/" + who] += pairs;
  m["n1_worst_overload_mw/" + who] = std::max(m["n1_worst_overload_mw/" + who], worst);
}

}  // namespace

std::optional<PolicyFn> trans_grid_opf_baseline(const std::string& name,
                                                const std::shared_ptr<const Env>& env) {
  auto tg = std::dynamic_pointer_cast<const TransGrid>(env);
  if (!tg || (name != "dcopf" && name != "scopf")) return std::nullopt;
  const TransGridParams& par = tg->params();
  if (par.opf_dispatch || par.solver == TransGridParams::Solver::kAcOpf)
    throw core::ConfigError("--policy " + name +
                            ": expected [env] dispatch = \"agent\" and solver = \"dc\" or " +
                            "\"acpf\" (the policy dispatches through the action), found " +
                            (par.opf_dispatch ? std::string("dispatch = \"dcopf\"")
                                              : std::string("solver = \"acopf\"")) +
                            ", where the env dispatches itself and ignores the action");
  const bool secure = name == "scopf";
  auto counts = std::make_shared<std::map<std::string, double>>();
  const int obs_dim = tg->spec().obs_dim, act_dim = tg->spec().act_dim;
  CountingPolicy p;
  p.counts = counts;
  p.act = [tg, secure, counts, obs_dim, act_dim](const float* obs, int n, float* a) {
    auto& m = *counts;
    for (int i = 0; i < n; ++i) {
      const std::span<const float> row(obs + static_cast<size_t>(i) * obs_dim, obs_dim);
      const OpfBaselineDecision d = decide_opf_baseline(*tg, row, secure);
      m["steps"] += 1;
      m[secure ? "secured_steps" : "solved_steps"] += d.outcome == OpfBaselineOutcome::kSolved;
      if (secure) {
        m["infeasible_steps"] += d.outcome == OpfBaselineOutcome::kFallback;
        m["security_binds_steps"] += d.security_binds;
      }
      m["no_dispatch_steps"] += d.outcome == OpfBaselineOutcome::kNoDispatch;
      if (d.outage_fallback) m["outage_fallback_steps"] += 1;  // only where it happens
      count_screen(m, "baseline_dispatch", d.step_case, tg->params().grid_case, d.dispatch);
      if (secure && !d.dcopf_pg.empty())
        count_screen(m, "dcopf_dispatch", d.step_case, tg->params().grid_case, d.dcopf_pg);
      std::copy(d.action.begin(), d.action.end(), a + static_cast<size_t>(i) * act_dim);
    }
  };
  return PolicyFn(p);
}

}  // namespace pz::envs
