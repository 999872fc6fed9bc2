// The TSO task's `scopf` baseline (see tso_scopf.hpp, docs/tasks/tso.md): commit as merit_order,
// dispatch by grid::solve_scopf of the committed units within their ramp windows, screen the
// dispatches N-1 by LODF; registers "scopf" with the tso task.
#include "powerzoo/tasks/tso_scopf.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"

namespace pz::tasks {
namespace {

// The env's dispatch LP orders tied units by index with this bias ($/MWh per unit index,
// kTieBreak in envs/unit_commitment.cpp); the SCOPF gets the same objective so that, where no
// post-contingency limit binds, its dispatch is the one the env computes.
constexpr double kTieBreak = 1e-4;
constexpr double kOverTol = 1e-6;  // MW above a rating that counts (the env's violation test)
constexpr double kUnlimited = 1e10;

double over(double flow, double rate) {
  return rate > 0 && rate < kUnlimited ? std::max(std::abs(flow) - rate, 0.0) : 0.0;
}

}  // namespace

TsoScopf::TsoScopf(std::shared_ptr<const envs::UnitCommitment> uc)
    : uc_(std::move(uc)),
      ptdf_(uc_->params().grid_case, uc_->params().grid_case.ref_bus_idx),
      lodf_(grid::energize(uc_->params().grid_case)) {
  const auto& par = uc_->params();
  const int nu = uc_->n_units();
  order_.resize(nu);
  std::iota(order_.begin(), order_.end(), 0);
  std::stable_sort(order_.begin(), order_.end(),
                   [&](int x, int y) { return par.units[x].mc_b < par.units[y].mc_b; });
  sum_pmax_ = 0;
  for (const auto& u : par.units) sum_pmax_ += u.pmax;
  sum_base_pd_ = 0;
  for (double v : par.base_pd) sum_base_pd_ += v;
  for (int k = 0; k < par.grid_case.n_branch(); ++k)
    if (lodf_.in_service(k) && !lodf_.islands(k)) outages_.push_back(k);
}

TsoScopfDecision TsoScopf::decide(std::span<const float> obs) const {
  const auto& par = uc_->params();
  const auto& sp = uc_->spec();
  const int nu = uc_->n_units();
  const int i_status = sp.obs_field("status").offset;
  const int i_tis = sp.obs_field("time_in_state").offset;
  const int i_last = sp.obs_field("last_output").offset;
  const double load = obs[sp.obs_field("total_load").offset] * std::max(sum_pmax_, 1.0);
  TsoScopfDecision d;
  d.action.assign(2 * nu, 0.0f);
  d.on.assign(nu, 0);
  // Commitment: the merit_order baseline's (ascending mc_b until load · (1 + reserve)), then the
  // env's min up / down mask, so the SCOPF dispatches the units the env will have on.
  const double need = load * (1.0 + par.reserve_margin);
  double cap = 0;
  std::fill(d.action.begin(), d.action.begin() + nu, -1.0f);
  for (int u : order_) {
    if (cap >= need) break;
    d.action[u] = 1.0f;
    cap += par.units[u].pmax;
  }
  grid::Case& c = d.step_case;
  c = par.grid_case;
  // Bus loads: base_pd · load_scale · net, the factor read back from the observed total.
  const double f = sum_base_pd_ > 0 ? load / sum_base_pd_ : 0.0;
  for (int b = 0; b < c.n_bus(); ++b) c.bus[b].pd_mw = par.base_pd[b] * f;
  bool any_on = false;
  for (int u = 0; u < nu; ++u) {
    const envs::UcUnit& un = par.units[u];
    const int status = obs[i_status + u] > 0.5f ? 1 : 0;
    const int tis = static_cast<int>(std::lround(obs[i_tis + u] * 200.0));
    int on = d.action[u] > 0.0f ? 1 : 0;
    if (status == 1 && tis < un.min_up) on = 1;
    if (status == 0 && tis < un.min_down) on = 0;
    d.on[u] = on;
    any_on = any_on || on;
    // The env's ramp window and dispatch objective at preference 0 (target = the window's middle).
    const double last = obs[i_last + u] * std::max(un.pmax, 1.0);
    const double elo = on * std::max(un.pmin, last - un.ramp_down_mw);
    const double ehi = on * std::min(un.pmax, last + un.ramp_up_mw);
    const double target = 0.5 * (elo + ehi);
    c.gen[u].status = on;
    c.gen[u].pmin_mw = std::min(elo, ehi);  // an inverted window is pinned to ehi, as the env
    c.gen[u].pmax_mw = ehi;
    c.gencost[u].coeffs = {un.mc_c - par.dispatch_preference * target + kTieBreak * u, 0.0};
  }
  // Outages (when the env carries them): take the step's out-of-service rows out of `c` here
  // (status 0), from the observation's element status, and rebuild the LODF screen for them.
  if (!any_on) return d;
  std::vector<double> pd(c.n_bus());
  for (int b = 0; b < c.n_bus(); ++b) pd[b] = c.bus[b].pd_mw;
  grid::DcOpf opf(c);
  const grid::DcOpfResult plain = opf.solve(pd);
  if (plain.ok()) d.dcopf_pg = plain.gen_pg_mw;
  d.scopf = grid::solve_scopf(c);
  if (d.scopf.ok()) {
    d.outcome = TsoScopfOutcome::kSecured;
    d.dispatch = d.scopf.gen_pg_mw;
    for (int u = 0; u < nu && plain.ok(); ++u)
      d.security_binds = d.security_binds || std::abs(d.dispatch[u] - d.dcopf_pg[u]) > 1e-6;
  } else if (plain.ok()) {
    d.outcome = TsoScopfOutcome::kInfeasible;
    d.dispatch = d.dcopf_pg;
  }
  return d;
}

TsoN1Count TsoScopf::screen(const grid::Case& c, const std::vector<double>& pg) const {
  const int nb = c.n_bus(), nl = c.n_branch();
  std::vector<double> inj(nb, 0.0), flow(nl, 0.0);
  for (int b = 0; b < nb; ++b) inj[b] = -c.bus[b].pd_mw;
  for (int g = 0; g < c.n_gen(); ++g) inj[c.gen_bus_idx[g]] += pg[g];
  ptdf_.flows(inj, flow);
  TsoN1Count n;
  for (int l = 0; l < nl; ++l) n.base_over_mw += over(flow[l], c.branch[l].rate_a_mva);
  for (int k : outages_) {
    const double* col = lodf_.column(k);
    for (int l = 0; l < nl; ++l) {
      if (l == k || c.branch[l].status <= 0) continue;
      const double v = over(flow[l] + col[l] * flow[k], c.branch[l].rate_a_mva);
      if (v > kOverTol) {
        ++n.overloads;
        n.worst_mw = std::max(n.worst_mw, v);
      }
    }
  }
  return n;
}

namespace {

/// Adds one dispatch's screen to the counts under `who`.
void count_screen(std::map<std::string, double>& m, const std::string& who, const TsoN1Count& n) {
  m["n1_screened_steps/" + who] += 1;
  m["n1_insecure_steps/" + who] += n.overloads > 0;
  m["n1_overloads/" + who] += n.overloads;
  m["n1_worst_overload_mw/" + who] = std::max(m["n1_worst_overload_mw/" + who], n.worst_mw);
}

}  // namespace

std::optional<envs::PolicyFn> tso_scopf_baseline(const std::shared_ptr<const envs::Env>& env) {
  auto uc = std::dynamic_pointer_cast<const envs::UnitCommitment>(env);
  if (!uc) return std::nullopt;
  auto model = std::make_shared<const TsoScopf>(uc);
  auto counts = std::make_shared<std::map<std::string, double>>();
  // Per observation row: the last decision, to screen the dispatch the env realized from it.
  auto last = std::make_shared<std::vector<TsoScopfDecision>>();
  const int obs_dim = uc->spec().obs_dim, act_dim = uc->spec().act_dim, nu = uc->n_units();
  const int i_last = uc->spec().obs_field("last_output").offset;
  envs::CountingPolicy p;
  p.counts = counts;
  p.act = [=](const float* obs, int n, float* a) {
    auto& m = *counts;
    if (static_cast<int>(last->size()) != n) last->assign(n, TsoScopfDecision{});
    for (int i = 0; i < n; ++i) {
      const std::span<const float> row(obs + static_cast<size_t>(i) * obs_dim, obs_dim);
      TsoScopfDecision& prev = (*last)[i];
      if (!prev.dispatch.empty()) {  // the env's dispatch of the previous step, as observed
        std::vector<double> real(nu);
        double dev = 0;
        for (int u = 0; u < nu; ++u) {
          real[u] = row[i_last + u] * std::max(uc->params().units[u].pmax, 1.0);
          dev = std::max(dev, std::abs(real[u] - prev.dispatch[u]));
        }
        m["env_compared_steps"] += 1;
        m["env_reproduced_steps"] += dev <= 1e-3;
        count_screen(m, "env_dispatch", model->screen(prev.step_case, real));
      }
      TsoScopfDecision d = model->decide(row);
      m["steps"] += 1;
      m["secured_steps"] += d.outcome == TsoScopfOutcome::kSecured;
      m["infeasible_steps"] += d.outcome == TsoScopfOutcome::kInfeasible;
      m["no_dispatch_steps"] += d.outcome == TsoScopfOutcome::kNoDispatch;
      m["security_binds_steps"] += d.security_binds;
      if (!d.dispatch.empty())
        count_screen(m, "baseline_dispatch", model->screen(d.step_case, d.dispatch));
      if (!d.dcopf_pg.empty())
        count_screen(m, "dcopf_dispatch", model->screen(d.step_case, d.dcopf_pg));
      std::copy(d.action.begin(), d.action.end(), a + static_cast<size_t>(i) * act_dim);
      prev = std::move(d);
    }
  };
  return envs::PolicyFn(p);
}

}  // namespace pz::tasks
