// DC-OPF with lazy line limits: a CLP model holding only the flow rows the solution violated.
#include <algorithm>
#include <cmath>
#include <coin/CoinPackedMatrix.hpp>
#include <vector>

#include "powerzoo/grid/dc/dcopf_impl.hpp"

namespace pz::grid {

namespace {
// A row is violated when its flow exceeds the limit by more than this (MW, relative to 1 + the
// bound): well inside CLP's primal tolerance (1e-7), so the answer is the full LP's.
constexpr double kViolTol = 1e-9;
}  // namespace

/// PG columns and the two balance slacks (bounds and costs of the case), the balance row.
void DcOpf::Impl::init_lazy_model() {
  const int n_pg = static_cast<int>(on_gens.size());
  const int n_cols = n_pg + 2;
  std::vector<double> lb(base_lb), ub(base_ub), obj(base_obj);
  std::vector<int> ri, ci;
  std::vector<double> val;
  for (int j = 0; j < n_pg; ++j) {
    ri.push_back(0);
    ci.push_back(j);
    val.push_back(1.0);
  }
  for (int k = 0; k < 2; ++k) {
    lb.push_back(0.0);
    ub.push_back(0.0);
    obj.push_back(0.0);
    ri.push_back(0);
    ci.push_back(n_pg + k);
    val.push_back(k == 0 ? 1.0 : -1.0);
  }
  CoinPackedMatrix m(true, ri.data(), ci.data(), val.data(), static_cast<CoinBigIndex>(val.size()));
  m.setDimensions(1, n_cols);
  const double zero = 0.0;
  lazy_model.setLogLevel(0);
  lazy_model.loadProblem(m, lb.data(), ub.data(), obj.data(), &zero, &zero);
  // No scaling: PTDF coefficients are O(0.01–1) and bounds O(10–1000) MW, so CLP's geometric
  // scaling buys no accuracy here and was re-run on every solve (~25 % of the env step).
  lazy_model.scaling(0);
  lazy_model.setMaximumIterations(iteration_limit(1 + static_cast<int>(lim.size()), n_cols));
  lazy_rows.clear();
  lazy_elastic_col.clear();
  lazy_pos.assign(lim.size(), -1);
  lazy_have_basis = false;
  lazy_overridden = false;
  const size_t n_lim = lim.size();
  pend_k.reserve(n_lim);
  pend_start.reserve(n_lim + 1);
  pend_col.reserve(n_lim * n_pg);
  pend_val.reserve(n_lim * n_pg);
  pend_lo.reserve(n_lim);
  pend_hi.reserve(n_lim);
}

/// Adds every rated row absent from lazy_model that x [n_pg] violates; returns whether any was.
bool DcOpf::Impl::lazy_add_violated(const double* x) {
  const int n_pg = static_cast<int>(on_gens.size());
  const int n_lim = static_cast<int>(lim.size());
  pend_k.clear();
  pend_start.clear();
  pend_col.clear();
  pend_val.clear();
  pend_lo.clear();
  pend_hi.clear();
  flow_scratch.resize(nl);
  flows_at(x, flow_scratch.data());
  for (int k = 0; k < n_lim; ++k) {
    if (lazy_pos[k] >= 0) continue;
    const int l = lim[k];
    const double rate = c.branch[l].rate_a_mva;
    if (std::abs(flow_scratch[l]) <= rate + kViolTol * (1 + rate)) continue;
    const double* row = &mlim[static_cast<size_t>(k) * n_pg];
    const double hi = rate - base_flow[l], lo = -rate - base_flow[l];
    pend_k.push_back(k);
    pend_start.push_back(static_cast<CoinBigIndex>(pend_val.size()));
    for (int j = 0; j < n_pg; ++j) {
      if (row[j] == 0.0) continue;
      pend_col.push_back(j);
      pend_val.push_back(row[j]);
    }
    pend_lo.push_back(lo);
    pend_hi.push_back(hi);
  }
  if (pend_k.empty()) return false;
  pend_start.push_back(static_cast<CoinBigIndex>(pend_val.size()));
  const int first = lazy_model.numberRows();
  lazy_model.addRows(static_cast<int>(pend_k.size()), pend_lo.data(), pend_hi.data(),
                     pend_start.data(), pend_col.data(), pend_val.data());
  for (size_t i = 0; i < pend_k.size(); ++i) {
    const int r = first + static_cast<int>(i);
    lazy_pos[pend_k[i]] = r;
    lazy_rows.push_back(pend_k[i]);
    lazy_model.setRowStatus(r, ClpSimplex::basic);  // the old basis stays a (dual) basis
  }
  return true;
}

// One LP solve of lazy_model whose answer is checked against the model (verify_lp, or
// verify_infeasible for an infeasible verdict): a warm solve that fails the check is repeated cold,
// a cold one that fails it (seen: "optimal" from the slack basis with a few $/h left on the table)
// is finished by the primal simplex. A CLP verdict other than optimal is returned as is; an
// "optimal" that still fails the check sets unverified (the caller then solves the full model).
bool DcOpf::Impl::lazy_lp(bool warm, bool keep_factors, int& iters, bool& warm_used,
                          bool& unverified) {
  ClpSimplex& m = lazy_model;
  bool ok = run_solver(m, warm, keep_factors) && verify_lp(m);
  iters += m.numberIterations();
  // A warm "infeasible" is wrong about one time in ten (stale work areas); CLP's ray proves the
  // rest, which then need no cold re-solve.
  if (!ok && warm && m.status() == 1 && verify_infeasible(m)) return false;
  if (!ok && warm) {
    warm_used = false;
    ok = run_solver(m, false, keep_factors) && verify_lp(m);
    iters += m.numberIterations();
  }
  if (!ok && m.status() == 0) {
    m.primal(0, 1);
    iters += m.numberIterations();
    ok = m.status() == 0 && verify_lp(m);
    unverified = !ok && m.status() == 0;
  }
  return ok;
}

bool DcOpf::Impl::solve_lazy(bool lines, int& iters, bool& warm_used, bool& unverified) {
  ClpSimplex& m = lazy_model;
  for (size_t i = 0; i < lazy_rows.size(); ++i) {
    const int l = lim[lazy_rows[i]];
    const double rate = c.branch[l].rate_a_mva;
    if (lines)
      m.setRowBounds(static_cast<int>(i) + 1, -rate - base_flow[l], rate - base_flow[l]);
    else
      m.setRowBounds(static_cast<int>(i) + 1, -COIN_DBL_MAX, COIN_DBL_MAX);
  }
  // Soft limits: every row in the model gets its overload pair (priced), hard: pairs fixed at 0.
  const size_t n_pairs = lazy_elastic_col.size();
  if (elastic_cost > 0) add_lazy_elastic();
  for (int j : lazy_elastic_col)
    if (j >= 0) set_elastic_bounds(m, j);
  const int n_pg = static_cast<int>(on_gens.size());
  warm_used = lazy_have_basis;
  iters = 0;
  bool keep_factors = lazy_elastic_col.size() == n_pairs;  // false after the matrix changed
  // Each round adds at least one row, so at most n_lim + 1 rounds.
  for (size_t round = 0; round <= lim.size(); ++round) {
    unverified = false;
    if (!lazy_lp(lazy_have_basis, keep_factors, iters, warm_used, unverified)) {
      // Infeasible with a subset of the rows: infeasible with all of them. Any other failure
      // (the iteration cap, numerical trouble) is left to the full model. The dual simplex
      // ends an infeasible solve on a dual feasible basis, a good start for the next loads (a
      // wrong answer from it is caught by the checks and re-solved cold).
      lazy_have_basis = m.status() == 1;
      if (m.status() != 1) unverified = true;
      return false;
    }
    lazy_have_basis = true;
    const double* x = m.primalColumnSolution();
    if (lines && lazy_add_violated(x)) {
      keep_factors = false;
      if (elastic_cost > 0) {
        const size_t old = lazy_elastic_col.size();
        add_lazy_elastic();
        for (size_t i = old; i < lazy_elastic_col.size(); ++i)
          set_elastic_bounds(m, lazy_elastic_col[i]);
      }
      continue;
    }
    xs.assign(x, x + n_pg);
    // With lines, lazy_add_violated has just computed flow_scratch = flows_at(x): the result's
    // flows, bit for bit (same x, same sums).
    flows_ready = lines;
    ys.assign(n_rows, 0.0);
    const double* y = m.dualRowSolution();
    ys[0] = y[0];
    for (size_t i = 0; i < lazy_rows.size(); ++i) ys[lazy_rows[i] + 1] = y[i + 1];
    polished_ = false;
    slack_mw_ = slack_on ? x[n_pg] - x[n_pg + 1] : 0.0;
    overload_mw_ = elastic_sum(m, lazy_elastic_col);
    return true;
  }
  lazy_have_basis = false;
  unverified = true;
  return false;
}

}  // namespace pz::grid
