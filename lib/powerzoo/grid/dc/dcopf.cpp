// Exact DC-OPF (MATPOWER rundcopf) as an LP/QP in generator outputs, solved with COIN-OR CLP.
//
// Variables: PG of every in-service gen (MW) and, for piecewise-linear costs, one epigraph
// variable per gen ($/h). Rows: 0 = power balance ΣPG = Σ(PD + GS); 1..n_lim = flow of each rated
// branch, Σ_g PTDF[l, bus_g]·PG_g ∈ [−RATE_A − c_l, RATE_A − c_l] with c_l the flow due to the
// fixed injections; then the epigraph rows y_g − slope_k·PG_g ≥ intercept_k.
// Row duals are d objective / d row bound ($/MWh), from which the LMP follows as
// LMP_b = λ + Σ_l y_l·PTDF[l, b] (d objective / d PD_b).
#include "powerzoo/grid/dc/dcopf.hpp"

#include <algorithm>
#include <cmath>
#include <coin/CoinPackedMatrix.hpp>
#include <numbers>
#include <queue>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/dc/dcopf_impl.hpp"

namespace pz::grid {

namespace {

constexpr double kDegToRad = std::numbers::pi / 180.0;
constexpr double kBindingMu = 1e-4;  // MATPOWER/golden threshold for "binding"
constexpr double kUnlimited = 1e10;  // RATE_A at or above this counts as unlimited (MATPOWER)

}  // namespace

const char* to_string(DcOpfStatus s) {
  switch (s) {
    case DcOpfStatus::kOptimal:
      return "optimal";
    case DcOpfStatus::kInfeasible:
      return "infeasible";
    case DcOpfStatus::kFailed:
      return "failed";
  }
  return "failed";
}

/// Column data of the LP/QP: PG columns first, then epigraph columns, then the two balance slacks.
struct DcOpf::Impl::Columns {
  std::vector<double> lb, ub, obj, qdiag;  // qdiag: CLP objective cᵀx + ½ xᵀQx, Q diagonal
  std::vector<int> pwl_gens;               // gens with a piecewise-linear cost of >= 2 points
  std::vector<int> epi_col;                // [ng] epigraph column of the gen, -1 if none
};

/// Row-wise triplets (converted to a column-major packed matrix) and row bounds.
struct DcOpf::Impl::Rows {
  std::vector<int> ri, ci;
  std::vector<double> val, lb, ub;
  void add(int r, int col, double v) {
    ri.push_back(r);
    ci.push_back(col);
    val.push_back(v);
  }
};

DcOpf::Impl::Impl(const Case& cs) : c(cs) {
  nb = c.n_bus();
  nl = c.n_branch();
  ng = c.n_gen();
  if (c.gen_bus_idx.size() != c.gen.size() || c.branch_from_idx.size() != c.branch.size() ||
      c.branch_to_idx.size() != c.branch.size()) {
    c.finalize();
  }
  if (c.gencost.size() < c.gen.size()) {
    throw core::ConfigError("case '" + c.name + "': expected " + std::to_string(ng) +
                            " gencost rows for DC-OPF, found " + std::to_string(c.gencost.size()));
  }
  const int ref = c.ref_bus_idx;
  ptdf = PtdfFlow(c, ref);  // throws on islanding / zero reactance
  build_shift_injections();
  build_angle_tree(ref);
  Columns cols;
  build_columns(cols);
  Rows rows;
  build_rows(cols, rows);
  load_model(cols, rows);
}

/// Series susceptance and phase-shifter injections of every in-service branch.
void DcOpf::Impl::build_shift_injections() {
  b.assign(nl, 0.0);
  pfinj.assign(nl, 0.0);
  pbusinj.assign(nb, 0.0);
  for (int l = 0; l < nl; ++l) {
    const Branch& br = c.branch[l];
    if (br.status <= 0) continue;
    b[l] = 1.0 / (br.x_pu * br.effective_tap());
    pfinj[l] = b[l] * (-br.shift_deg * kDegToRad) * c.base_mva;
    pbusinj[c.branch_from_idx[l]] += pfinj[l];
    pbusinj[c.branch_to_idx[l]] -= pfinj[l];
  }
}

/// Angle tree (BFS over in-service branches from the reference bus).
void DcOpf::Impl::build_angle_tree(int ref) {
  std::vector<std::vector<int>> adj(nb);
  for (int l = 0; l < nl; ++l) {
    if (b[l] == 0.0) continue;
    adj[c.branch_from_idx[l]].push_back(l);
    adj[c.branch_to_idx[l]].push_back(l);
  }
  std::vector<char> seen(nb, 0);
  std::queue<int> q;
  q.push(ref);
  seen[ref] = 1;
  while (!q.empty()) {
    const int k = q.front();
    q.pop();
    for (int l : adj[k]) {
      const int o = c.branch_from_idx[l] == k ? c.branch_to_idx[l] : c.branch_from_idx[l];
      if (seen[o]) continue;
      seen[o] = 1;
      tree.push_back({l, k, o});
      q.push(o);
    }
  }
}

/// Columns: PG of every in-service gen, then one epigraph column per piecewise-linear gen, then
/// the balance slacks (unserved, spilled), fixed at 0 unless an override enables them.
void DcOpf::Impl::build_columns(Columns& cols) {
  gen_col.assign(ng, -1);
  for (int g = 0; g < ng; ++g) {
    const Gen& gen = c.gen[g];
    if (gen.status <= 0) continue;
    gen_col[g] = static_cast<int>(cols.lb.size());
    on_gens.push_back(g);
    cols.lb.push_back(gen.pmin_mw);
    cols.ub.push_back(gen.pmax_mw);
    double lin = 0, quad = 0;
    gen_cost_terms(g, lin, quad, cols.pwl_gens);
    cols.obj.push_back(lin);
    lin_cost.push_back(lin);
    quad_cost.push_back(quad);
    cols.qdiag.push_back(2.0 * quad);  // CLP objective: cᵀx + ½ xᵀQx
    if (quad != 0.0) qp = true;
  }
  if (on_gens.empty()) {
    throw core::ConfigError("case '" + c.name + "': expected an in-service generator for DC-OPF");
  }
  const int n_pg = static_cast<int>(on_gens.size());
  base_lin = lin_cost;
  base_obj.assign(cols.obj.begin(), cols.obj.begin() + n_pg);
  base_lb.assign(cols.lb.begin(), cols.lb.begin() + n_pg);
  base_ub.assign(cols.ub.begin(), cols.ub.begin() + n_pg);
  has_pwl = !cols.pwl_gens.empty();
  cols.epi_col.assign(ng, -1);
  for (int g : cols.pwl_gens) {
    cols.epi_col[g] = static_cast<int>(cols.lb.size());
    cols.lb.push_back(-COIN_DBL_MAX);
    cols.ub.push_back(COIN_DBL_MAX);
    cols.obj.push_back(1.0);
    cols.qdiag.push_back(0.0);
  }
  slack_col = static_cast<int>(cols.lb.size());
  for (int k = 0; k < 2; ++k) {
    cols.lb.push_back(0.0);
    cols.ub.push_back(0.0);
    cols.obj.push_back(0.0);
    cols.qdiag.push_back(0.0);
  }
}

/// Rows: balance, flow limit of every rated in-service branch, piecewise-linear epigraphs.
void DcOpf::Impl::build_rows(const Columns& cols, Rows& rows) {
  const int n_pg = static_cast<int>(on_gens.size());
  // Balance.
  for (int j = 0; j < n_pg; ++j) rows.add(0, j, 1.0);
  rows.lb.push_back(0);
  rows.ub.push_back(0);
  rows.add(0, slack_col, 1.0);
  rows.add(0, slack_col + 1, -1.0);
  // Flow limits.
  for (int l = 0; l < nl; ++l) {
    const double rate = c.branch[l].rate_a_mva;
    if (c.branch[l].status <= 0 || !(rate > 0) || rate >= kUnlimited) continue;
    const int r = static_cast<int>(rows.lb.size());
    lim.push_back(l);
    for (int j = 0; j < n_pg; ++j) {
      const double a = ptdf.at(l, c.gen_bus_idx[on_gens[j]]);
      if (a == 0.0) continue;
      rows.add(r, j, a);
    }
    rows.lb.push_back(-rate);
    rows.ub.push_back(rate);
  }
  fill_sensitivities();
  // Piecewise-linear epigraphs: y − slope·p ≥ intercept.
  for (int g : cols.pwl_gens) {
    const auto& k = c.gencost[g].coeffs;
    const size_t np = k.size() / 2;
    for (size_t i = 0; i + 1 < np; ++i) {
      const double slope = (k[2 * i + 3] - k[2 * i + 1]) / (k[2 * i + 2] - k[2 * i]);
      const double icpt = k[2 * i + 1] - slope * k[2 * i];
      const int r = static_cast<int>(rows.lb.size());
      rows.add(r, cols.epi_col[g], 1.0);
      rows.add(r, gen_col[g], -slope);
      rows.lb.push_back(icpt);
      rows.ub.push_back(COIN_DBL_MAX);
    }
  }
  n_rows = static_cast<int>(rows.lb.size());
}

/// mlim [n_lim x n_pg] and gmat [n_pg x nl] (zero for branches out of service) from the PTDF.
void DcOpf::Impl::fill_sensitivities() {
  // Run again for every outage set (set_branch_outage): the gen buses are looked up once and each
  // PTDF row is read once.
  const int n_pg = static_cast<int>(on_gens.size());
  thread_local std::vector<int> gbus;
  gbus.resize(n_pg);
  for (int j = 0; j < n_pg; ++j) gbus[j] = c.gen_bus_idx[on_gens[j]];
  mlim.resize(lim.size() * static_cast<size_t>(n_pg));
  for (size_t k = 0; k < lim.size(); ++k) {
    const double* row = ptdf.row(lim[k]);
    double* m = &mlim[k * n_pg];
    for (int j = 0; j < n_pg; ++j) m[j] = row[gbus[j]];
  }
  gmat.assign(static_cast<size_t>(n_pg) * nl, 0.0);
  for (int l = 0; l < nl; ++l) {
    if (b[l] == 0.0) continue;
    const double* row = ptdf.row(l);
    for (int j = 0; j < n_pg; ++j) gmat[static_cast<size_t>(j) * nl + l] = row[gbus[j]];
  }
}

/// Loads the matrix, bounds and objective (and, for a QP, the quadratic objective) into CLP.
void DcOpf::Impl::load_model(const Columns& cols, const Rows& rows) {
  const int n_cols = static_cast<int>(cols.lb.size());
  CoinPackedMatrix m(true, rows.ri.data(), rows.ci.data(), rows.val.data(),
                     static_cast<CoinBigIndex>(rows.val.size()));
  m.setDimensions(n_rows, n_cols);
  model.setLogLevel(0);
  model.loadProblem(m, cols.lb.data(), cols.ub.data(), cols.obj.data(), rows.lb.data(),
                    rows.ub.data());
  model.setMaximumIterations(iteration_limit(n_rows, n_cols));
  if (qp) {
    std::vector<CoinBigIndex> start(n_cols + 1, 0);
    std::vector<int> qcol;
    std::vector<double> qval;
    for (int j = 0; j < n_cols; ++j) {
      start[j] = static_cast<CoinBigIndex>(qval.size());
      if (cols.qdiag[j] != 0.0) {
        qcol.push_back(j);
        qval.push_back(cols.qdiag[j]);
      }
    }
    start[n_cols] = static_cast<CoinBigIndex>(qval.size());
    model.loadQuadraticObjective(n_cols, start.data(), qcol.data(), qval.data());
  }
}

bool DcOpf::Impl::run_solver(ClpSimplex& m, bool warm, bool keep_factors) {
  // Keep CLP's work areas and factorization between solves (bit 1); on a warm re-solve reuse
  // the old factorization (2) and skip re-initialising what whatsChanged says is unchanged (4).
  // The ClpSimplex bound/cost setters keep the work arrays current and clear those bits.
  const int sfo = warm && keep_factors ? (1 | 2 | 4) : 1;
  if (!warm) m.allSlackBasis(true);
  if (qp) {
    m.primal(0, sfo);
  } else {
    m.dual(0, sfo);  // warm: only bounds/costs changed, the old basis is reused
  }
  return m.status() == 0;
}

// Checks the override vectors' sizes and values.
bool DcOpf::Impl::check_overrides(const DcOpfOverrides* o, std::string& err) {
  if (!o) return true;
  auto check = [&](const std::vector<double>& v, const char* what) {
    if (v.empty()) return true;
    if (static_cast<int>(v.size()) != ng) {
      err = std::string("expected ") + std::to_string(ng) + " " + what + " values, found " +
            std::to_string(v.size());
      return false;
    }
    for (double x : v) {
      if (!std::isfinite(x)) {
        err = std::string("expected finite ") + what + " values, found a non-finite value";
        return false;
      }
    }
    return true;
  };
  if (!(o->line_overload_cost >= 0 && std::isfinite(o->line_overload_cost))) {
    err =
        "expected a finite line overload cost >= 0, found " + std::to_string(o->line_overload_cost);
    return false;
  }
  if (o->line_overload_cost > 0 && qp) {
    err = "soft line limits (line overload cost > 0) need a linear cost, found a quadratic one";
    return false;
  }
  return check(o->pmin_mw, "pmin") && check(o->pmax_mw, "pmax") &&
         check(o->linear_cost_delta, "linear cost delta") && check_offer_prices(o, err);
}

// Sets column bounds and linear objective terms of model m from the overrides (or back to the
// case's); m_overridden records whether m differs from the case.
void DcOpf::Impl::apply_overrides(ClpSimplex& m, bool& m_overridden, const DcOpfOverrides* o) {
  slack_on = o && o->balance_slack_cost > 0;
  if (!o && !m_overridden) return;
  const int n_pg = static_cast<int>(on_gens.size());
  for (int j = 0; j < n_pg; ++j) {
    const int g = on_gens[j];
    double lo = base_lb[j], hi = base_ub[j], d = 0;
    if (o && !o->pmin_mw.empty()) lo = o->pmin_mw[g];
    if (o && !o->pmax_mw.empty()) hi = o->pmax_mw[g];
    if (o && !o->linear_cost_delta.empty()) d = o->linear_cost_delta[g];
    if (lo > hi) lo = hi;  // clip semantics of the reference: an inverted window pins to hi
    m.setColumnBounds(j, lo, hi);
    m.setObjectiveCoefficient(j, base_obj[j] + d);
    lin_cost[j] = base_lin[j] + d;
  }
  for (int k = 0; k < 2; ++k) {
    m.setColumnBounds(slack_col + k, 0.0, slack_on ? COIN_DBL_MAX : 0.0);
    m.setObjectiveCoefficient(slack_col + k, slack_on ? o->balance_slack_cost : 0.0);
  }
  m_overridden = o != nullptr;
}

// The full model: every rated flow row, bounds from base_flow (or free without line limits).
bool DcOpf::Impl::solve_full(bool lines, int& iters, bool& warm_used) {
  flows_ready = false;
  for (size_t k = 0; k < lim.size(); ++k) {
    const int l = lim[k];
    const double rate = c.branch[l].rate_a_mva;
    if (lines && l != out_branch)  // the out branch's row is empty (set_branch_outage)
      model.setRowBounds(static_cast<int>(k) + 1, -rate - base_flow[l], rate - base_flow[l]);
    else
      model.setRowBounds(static_cast<int>(k) + 1, -COIN_DBL_MAX, COIN_DBL_MAX);
  }
  if (elastic_cost > 0 && full_elastic_col < 0) add_full_elastic();
  if (full_elastic_col >= 0)
    for (size_t k = 0; k < lim.size(); ++k)
      set_elastic_bounds(model, full_elastic_col + 2 * static_cast<int>(k));
  const bool warm = have_basis;
  warm_used = warm;
  const int n_pg = static_cast<int>(on_gens.size());
  // QP warm start: if the last optimum's active set still gives a KKT point for the new loads
  // (feasible, multipliers of the right sign), that point is the exact optimum of this convex
  // QP and CLP is not called.
  bool kkt_warm = false;
  if (warm && qp && !has_pwl && !last_fix.empty() && !overridden && !slack_on) {
    kkt_warm = kkt_solve(last_fix, last_act, xs, ys);
  }
  const bool keep = !matrix_changed;  // changed coefficients invalidate the old factorization
  matrix_changed = false;
  bool ok = kkt_warm || run_solver(model, warm, keep);
  // CLP's kept work areas (startFinishOptions 2|4) can go stale when bounds change a lot (seen:
  // after a unit-commitment reset, a warm re-solve reported "optimal" off the balance row by
  // 235 MW). An LP answer is checked against the model itself and re-solved cold if wrong.
  if (ok && warm && !kkt_warm && !qp && !verify_lp(model)) ok = false;
  iters = kkt_warm ? 0 : model.numberIterations();
  if (!ok) last_fix.clear();
  const bool proven = !ok && warm && !qp && model.status() == 1 && verify_infeasible(model);
  if (!ok && warm && !proven) {  // a stale basis must never change the answer: retry cold
    warm_used = false;
    ok = run_solver(model, false, true);
    iters += model.numberIterations();
  }
  // A cold dual solve from the slack basis has been seen to report "optimal" with a few $/h
  // left on the table (dual infeasible reduced costs): the primal simplex finishes it.
  if (ok && !warm_used && !qp && !verify_lp(model)) {
    model.primal(0, 1);
    iters += model.numberIterations();
    ok = model.status() == 0 && verify_lp(model);
  }
  if (!ok) {
    have_basis = false;
    return false;
  }
  have_basis = true;
  if (!kkt_warm) {
    xs.assign(model.primalColumnSolution(), model.primalColumnSolution() + n_pg);
    ys.assign(model.dualRowSolution(), model.dualRowSolution() + n_rows);
    polished_ = false;
    if (qp && !has_pwl && !slack_on) {
      polished_ = polish(xs, ys);
      if (!polished_) last_fix.clear();
    }
  } else {
    polished_ = true;
  }
  slack_mw_ = 0;
  if (slack_on && !kkt_warm) {
    const double* x = model.primalColumnSolution();
    slack_mw_ = x[slack_col] - x[slack_col + 1];
  }
  overload_mw_ = 0;
  if (elastic_cost > 0)
    for (size_t k = 0; k < lim.size(); ++k) {
      const double* x = model.primalColumnSolution();
      const int j = full_elastic_col + 2 * static_cast<int>(k);
      overload_mw_ += x[j] + x[j + 1];
    }
  return true;
}

void DcOpf::Impl::solve_into(const std::vector<double>* pd, double factor, const DcOpfOverrides* o,
                             DcOpfResult& res) {
  res.status = DcOpfStatus::kFailed;
  res.message.clear();
  res.objective = 0;
  res.gen_pg_mw.assign(ng, 0.0);
  res.branch_pf_mw.assign(nl, 0.0);
  res.binding_branches.clear();
  if (dispatch_only) {
    res.bus_va_deg.clear();
    res.bus_lam_p.clear();
    res.branch_mu_sf.clear();
    res.branch_mu_st.clear();
  } else {
    res.bus_va_deg.resize(nb);
    for (int k = 0; k < nb; ++k) res.bus_va_deg[k] = c.bus[k].va_deg;
    res.bus_lam_p.assign(nb, 0.0);
    res.branch_mu_sf.assign(nl, 0.0);
    res.branch_mu_st.assign(nl, 0.0);
  }
  res.balance_slack_mw = 0;
  res.line_overload_mw = 0;
  res.iterations = 0;
  res.warm_started = false;
  res.polished = false;
  if (pd && static_cast<int>(pd->size()) != nb) {
    res.message =
        "expected " + std::to_string(nb) + " bus loads, found " + std::to_string(pd->size());
    return;
  }
  if (!pd && ref_flow.empty()) {
    res.message = "expected reference loads (set_reference_loads) before a scaled solve";
    return;
  }
  bool finite = std::isfinite(factor);
  if (pd)
    for (double x : *pd) finite = finite && std::isfinite(x);
  if (!finite) {
    res.message = "expected finite bus loads, found a non-finite value";
    return;
  }
  if (!check_overrides(o, res.message)) return;
  try {
    fixed_flows(pd, factor);
    solve_checked(o, res);
  } catch (const std::exception& e) {
    have_basis = lazy_have_basis = false;
    res.status = DcOpfStatus::kFailed;
    res.message = std::string("solver error: ") + e.what();
  } catch (...) {
    have_basis = lazy_have_basis = false;
    res.status = DcOpfStatus::kFailed;
    res.message = "solver error";
  }
}

// The LP/QP after the input checks and fixed_flows, then the result in case units.
void DcOpf::Impl::solve_checked(const DcOpfOverrides* o, DcOpfResult& res) {
  const double demand = demand_;
  const bool lines = !o || o->line_limits;
  elastic_cost = o && lines ? o->line_overload_cost : 0.0;
  overload_mw_ = 0;
  flows_ready = false;
  const bool use_lazy = lazy && !qp && !has_pwl;
  bool ok = false, unverified = false;
  if (use_lazy) {
    lazy_model.setRowBounds(0, demand, demand);
    apply_overrides(lazy_model, lazy_overridden, o);
    ok = solve_lazy(lines, res.iterations, res.warm_started, unverified);
  }
  if (!use_lazy || unverified) {
    model.setRowBounds(0, demand, demand);
    apply_overrides(model, overridden, o);
    apply_offer_prices(o);
    ok = solve_full(lines, res.iterations, res.warm_started);
  }
  if (!ok) {
    const int st = use_lazy && !unverified ? lazy_model.status() : model.status();
    res.status = st == 1 ? DcOpfStatus::kInfeasible : DcOpfStatus::kFailed;
    res.message = st == 1   ? "primal infeasible (load cannot be served within gen and flow limits)"
                  : st == 2 ? "dual infeasible (unbounded cost)"
                  : st == 3 ? "CLP stopped at its iteration limit (" +
                                  std::to_string(model.maximumIterations()) + ", cycling)"
                            : "CLP status " + std::to_string(st);
    return;
  }
  res.polished = polished_;
  fill_result(res);
}

// Dispatch, objective, flows, LMPs, shadow prices and angles from xs, ys and slack_mw_.
void DcOpf::Impl::fill_result(DcOpfResult& res) {
  double obj = 0;
  for (int g : on_gens) {
    const double p = xs[gen_col[g]];
    res.gen_pg_mw[g] = p;
    obj += gen_cost(c.gencost[g], p);
  }
  res.objective = obj;
  res.balance_slack_mw = slack_mw_;
  res.line_overload_mw = overload_mw_;
  if (flows_ready)
    std::copy(flow_scratch.begin(), flow_scratch.begin() + nl, res.branch_pf_mw.begin());
  else
    flows_at(xs.data(), res.branch_pf_mw.data());
  res.status = DcOpfStatus::kOptimal;
  if (dispatch_only) return;
  // LMP = d objective / d PD_b: λ from the balance row plus the flow rows' bound shifts.
  const double lambda = ys[0];
  for (int k = 0; k < nb; ++k) res.bus_lam_p[k] = lambda;
  for (size_t j = 0; j < lim.size(); ++j) {
    const int l = lim[j];
    const double yl = ys[j + 1];
    res.branch_mu_sf[l] = yl < 0.0 ? -yl : 0.0;
    res.branch_mu_st[l] = yl > 0.0 ? yl : 0.0;
    if (yl != 0.0) ptdf.add_row(l, yl, res.bus_lam_p);
  }
  for (int l = 0; l < nl; ++l) {
    if (res.branch_mu_sf[l] > kBindingMu || res.branch_mu_st[l] > kBindingMu)
      res.binding_branches.push_back(l);
  }
  // Angles along the spanning tree: θ_f − θ_t = (PF − Pfinj) / (b·baseMVA).
  th.resize(nb);
  for (int k = 0; k < nb; ++k) th[k] = c.bus[k].va_deg * kDegToRad;
  for (const TreeEdge& e : tree) {
    const double d = (res.branch_pf_mw[e.l] - pfinj[e.l]) / (b[e.l] * c.base_mva);
    th[e.next] = c.branch_from_idx[e.l] == e.known ? th[e.known] - d : th[e.known] + d;
  }
  for (const TreeEdge& e : tree) res.bus_va_deg[e.next] = th[e.next] / kDegToRad;
}

DcOpf::DcOpf(const Case& c) : impl_(std::make_unique<Impl>(c)) {}
DcOpf::~DcOpf() = default;
DcOpf::DcOpf(DcOpf&&) noexcept = default;
DcOpf& DcOpf::operator=(DcOpf&&) noexcept = default;

DcOpfResult DcOpf::solve(const std::vector<double>& bus_pd_mw) {
  DcOpfResult r;
  impl_->solve_into(&bus_pd_mw, 1.0, nullptr, r);
  return r;
}

DcOpfResult DcOpf::solve(const std::vector<double>& bus_pd_mw, const DcOpfOverrides& o) {
  DcOpfResult r;
  impl_->solve_into(&bus_pd_mw, 1.0, &o, r);
  return r;
}

void DcOpf::solve_into(const std::vector<double>& bus_pd_mw, const DcOpfOverrides& o,
                       DcOpfResult& out) {
  impl_->solve_into(&bus_pd_mw, 1.0, &o, out);
}

void DcOpf::set_reference_loads(const std::vector<double>& bus_pd_mw) {
  impl_->set_reference_loads(bus_pd_mw);
}

void DcOpf::solve_scaled_into(double load_factor, const DcOpfOverrides& o, DcOpfResult& out) {
  impl_->solve_into(nullptr, load_factor, &o, out);
}

DcOpfResult DcOpf::solve() {
  std::vector<double> pd(impl_->nb);
  for (int k = 0; k < impl_->nb; ++k) pd[k] = impl_->c.bus[k].pd_mw;
  return solve(pd);
}

void DcOpf::reset_warm_start() {
  impl_->have_basis = false;
  impl_->lazy_have_basis = false;
  impl_->last_fix.clear();
}

void DcOpf::set_lazy_line_limits(bool on) {
  if (on && !impl_->lazy) impl_->init_lazy_model();
  impl_->lazy = on;
}
void DcOpf::set_dispatch_only(bool on) { impl_->dispatch_only = on; }
void DcOpf::set_iteration_limit(int n) {
  Impl& m = *impl_;
  const int full = n > 0 ? n : iteration_limit(m.model.numberRows(), m.model.numberColumns());
  m.model.setMaximumIterations(full);
  if (m.lazy)
    m.lazy_model.setMaximumIterations(
        n > 0 ? n
              : iteration_limit(1 + static_cast<int>(m.lim.size()), m.lazy_model.numberColumns()));
}
bool DcOpf::is_qp() const { return impl_->qp; }
const Case& DcOpf::case_data() const { return impl_->c; }

}  // namespace pz::grid
