// Preventive security-constrained DC-OPF on CLP with lazily added flow rows (see scopf.hpp).
//
// Variables: PG of every in-service gen (MW), then one epigraph variable ($/h) per gen with a
// piecewise-linear cost. Rows: 0 = balance ΣPG = Σ(PD + GS); the epigraph rows
// y_g − slope·PG_g ≥ intercept; then the flow rows found violated so far, each the flow of
// branch l in state k (base case or the outage of k) as a function of PG:
//   PF_l + LODF[l, k]·PF_k = c_lk + Σ_j (G[l, j] + LODF[l, k]·G[k, j])·PG_j  ∈ [−RATE_A, RATE_A]
// with G the PTDF at the gen buses and c_lk the same combination of the fixed injections' flows.
// CLP solves the LP (the linear cost terms); with quadratic costs its vertex starts an exact
// active-set solve of the QP (grid/dc/qp_refine), whose row duals give the shadow prices.
#include "powerzoo/grid/dc/scopf.hpp"

#include <algorithm>
#include <cmath>
#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <numbers>
#include <string>
#include <tuple>
#include <vector>

#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/lodf.hpp"
#include "powerzoo/grid/dc/lp_kkt.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"
#include "powerzoo/grid/dc/qp_refine.hpp"

namespace pz::grid {

namespace {

constexpr double kDegToRad = std::numbers::pi / 180.0;
constexpr double kUnlimited = 1e10;  // RATE_A at or above this counts as unlimited (MATPOWER)
constexpr double kBindingMu = 1e-4;  // MATPOWER's test for a binding limit ($/MWh)
// A limit is violated when the flow exceeds it by more than this relative to 1 + RATE_A: well
// inside CLP's primal tolerance (1e-7), as grid/dc/dcopf_lazy.
constexpr double kViolTol = 1e-9;

/// The network data of the problem: PTDF at the gen buses, flows of the fixed injections, the
/// rated branches and the outages secured.
struct Network {
  int nl = 0, n_pg = 0;
  std::vector<int> on_gens;   // in-service gen rows, in column order
  std::vector<double> g;      // [nl x n_pg] PTDF of branch l at the bus of gen column j
  std::vector<double> fixed;  // [nl] flow of −PD − GS and the phase shifters (MW)
  std::vector<int> rated;     // in-service rows with 0 < RATE_A < 1e10
  std::vector<int> outages;   // in-service rows whose outage does not island
  double demand = 0;          // Σ(PD + GS), MW
};

Network build_network(const Case& c, const Lodf& lodf, ScopfResult& res) {
  Network n;
  const int nb = c.n_bus();
  n.nl = c.n_branch();
  for (int gi = 0; gi < c.n_gen(); ++gi)
    if (c.gen[gi].status > 0) n.on_gens.push_back(gi);
  n.n_pg = static_cast<int>(n.on_gens.size());
  const PtdfFlow ptdf(c, c.ref_bus_idx);
  // Phase shifters as MATPOWER's makeBdc: Pfinj = b·(−shift), a bus injection −Pfinj at the from
  // end and +Pfinj at the to end, and the flow offset Pfinj.
  std::vector<double> pfinj(n.nl, 0.0), inj(nb, 0.0);
  for (int l = 0; l < n.nl; ++l) {
    const Branch& br = c.branch[l];
    if (br.status <= 0) continue;
    pfinj[l] = -br.shift_deg * kDegToRad / (br.x_pu * br.effective_tap()) * c.base_mva;
    inj[c.branch_from_idx[l]] -= pfinj[l];
    inj[c.branch_to_idx[l]] += pfinj[l];
  }
  for (int k = 0; k < nb; ++k) {
    inj[k] -= c.bus[k].pd_mw + c.bus[k].gs_mw;
    n.demand += c.bus[k].pd_mw + c.bus[k].gs_mw;
  }
  n.fixed.assign(n.nl, 0.0);
  n.g.assign(static_cast<size_t>(n.nl) * n.n_pg, 0.0);
  for (int l = 0; l < n.nl; ++l) {
    if (c.branch[l].status <= 0) continue;
    n.fixed[l] = ptdf.branch_flow(l, inj.data(), pfinj[l]);
    for (int j = 0; j < n.n_pg; ++j)
      n.g[static_cast<size_t>(l) * n.n_pg + j] = ptdf.at(l, c.gen_bus_idx[n.on_gens[j]]);
    const double rate = c.branch[l].rate_a_mva;
    if (rate > 0 && rate < kUnlimited) n.rated.push_back(l);
    if (!lodf.in_service(l)) continue;
    if (lodf.islands(l))
      res.islanding.push_back(l);
    else
      n.outages.push_back(l);
  }
  return n;
}

/// PG and epigraph columns with the case's costs and bounds, the balance and epigraph rows.
void load_base_model(const Case& c, const Network& n, ClpSimplex& m, std::vector<double>& qdiag) {
  std::vector<double> lb, ub, obj, rlb{n.demand}, rub{n.demand};
  qdiag.clear();
  std::vector<int> ri, ci;
  std::vector<double> val;
  auto add = [&](int r, int col, double v) {
    ri.push_back(r);
    ci.push_back(col);
    val.push_back(v);
  };
  for (int j = 0; j < n.n_pg; ++j) {
    const Gen& gen = c.gen[n.on_gens[j]];
    const GenCost& gc = c.gencost[n.on_gens[j]];
    lb.push_back(gen.pmin_mw);
    ub.push_back(gen.pmax_mw);
    const size_t nk = gc.coeffs.size();
    const double lin = gc.model == 2 && nk >= 2 ? gc.coeffs[nk - 2] : 0.0;
    const double quad = gc.model == 2 && nk >= 3 ? gc.coeffs[nk - 3] : 0.0;
    obj.push_back(lin);
    qdiag.push_back(2.0 * quad);  // CLP objective: cᵀx + ½ xᵀQx
    add(0, j, 1.0);
  }
  for (int j = 0; j < n.n_pg; ++j) {  // epigraphs of the piecewise-linear costs (>= 2 points)
    const GenCost& gc = c.gencost[n.on_gens[j]];
    const auto& k = gc.coeffs;
    const size_t np = k.size() / 2;
    if (gc.model != 1 || np < 2) continue;
    const int col = static_cast<int>(lb.size());
    lb.push_back(-COIN_DBL_MAX);
    ub.push_back(COIN_DBL_MAX);
    obj.push_back(1.0);
    qdiag.push_back(0.0);
    for (size_t i = 0; i + 1 < np; ++i) {
      const double slope = (k[2 * i + 3] - k[2 * i + 1]) / (k[2 * i + 2] - k[2 * i]);
      const int r = static_cast<int>(rlb.size());
      add(r, col, 1.0);
      add(r, j, -slope);
      rlb.push_back(k[2 * i + 1] - slope * k[2 * i]);
      rub.push_back(COIN_DBL_MAX);
    }
  }
  const int n_cols = static_cast<int>(lb.size()), n_rows = static_cast<int>(rlb.size());
  CoinPackedMatrix a(true, ri.data(), ci.data(), val.data(), static_cast<CoinBigIndex>(val.size()));
  a.setDimensions(n_rows, n_cols);
  m.setLogLevel(0);
  // The quadratic terms stay out of CLP (qdiag): the LP of the linear terms gives a feasible
  // vertex, from which refine_qp finds the QP's optimum (CLP's own QP path returned points
  // short of it here, with duals of the wrong sign).
  m.loadProblem(a, lb.data(), ub.data(), obj.data(), rlb.data(), rub.data());
}

/// The flow rows of the model beyond the base rows: (outage k or −1, branch l) per row.
struct FlowRows {
  int first = 0;  // model row of the first flow row
  std::vector<int> outage, branch;
  std::vector<char> in_model;  // [(nl + 1) x nl]: (k + 1)·nl + l
};

/// Base flows f [nl] at dispatch x; then adds every limit the dispatch violates that is not in
/// the model yet. Returns the number of rows added.
int add_violated(const Case& c, const Network& n, const Lodf& lodf, const double* x,
                 std::vector<double>& f, FlowRows& rows, ClpSimplex& m) {
  for (int l = 0; l < n.nl; ++l) {
    double s = n.fixed[l];
    const double* gl = &n.g[static_cast<size_t>(l) * n.n_pg];
    for (int j = 0; j < n.n_pg; ++j) s += gl[j] * x[j];
    f[l] = c.branch[l].status > 0 ? s : 0.0;
  }
  std::vector<double> lo, hi, vals;
  std::vector<int> cols;
  std::vector<CoinBigIndex> start;
  auto consider = [&](int k, int l, double flow, double factor) {
    const double rate = c.branch[l].rate_a_mva;
    char& seen = rows.in_model[static_cast<size_t>(k + 1) * n.nl + l];
    if (seen || std::abs(flow) <= rate + kViolTol * (1 + rate)) return;
    seen = 1;
    const double* gl = &n.g[static_cast<size_t>(l) * n.n_pg];
    const double* gk = k >= 0 ? &n.g[static_cast<size_t>(k) * n.n_pg] : nullptr;
    const double off = n.fixed[l] + (k >= 0 ? factor * n.fixed[k] : 0.0);
    start.push_back(static_cast<CoinBigIndex>(vals.size()));
    for (int j = 0; j < n.n_pg; ++j) {
      const double a = gl[j] + (k >= 0 ? factor * gk[j] : 0.0);
      if (a == 0.0) continue;
      cols.push_back(j);
      vals.push_back(a);
    }
    lo.push_back(-rate - off);
    hi.push_back(rate - off);
    rows.outage.push_back(k);
    rows.branch.push_back(l);
  };
  // Per state (the base case, each outage) only its most violated limit not in the model yet:
  // the others are often relieved by the same redispatch, and the model stays small.
  auto worst = [&](int k, const double* col) {
    int arg = -1;
    double most = 0;
    for (int l : n.rated) {
      if (l == k || rows.in_model[static_cast<size_t>(k + 1) * n.nl + l]) continue;
      const double flow = k < 0 ? f[l] : f[l] + col[l] * f[k];
      const double rate = c.branch[l].rate_a_mva;
      const double over = std::abs(flow) - rate - kViolTol * (1 + rate);
      if (over > most) {
        most = over;
        arg = l;
      }
    }
    if (arg >= 0)
      consider(k, arg, k < 0 ? f[arg] : f[arg] + col[arg] * f[k], k < 0 ? 0.0 : col[arg]);
  };
  worst(-1, nullptr);
  for (int k : n.outages) worst(k, lodf.column(k));
  if (lo.empty()) return 0;
  start.push_back(static_cast<CoinBigIndex>(vals.size()));
  const int added = static_cast<int>(lo.size());
  const int first = m.numberRows();
  m.addRows(added, lo.data(), hi.data(), start.data(), cols.data(), vals.data());
  for (int r = first; r < first + added; ++r) m.setRowStatus(r, ClpSimplex::basic);
  return added;
}

/// KKT conditions of CLP's answer, recomputed from the stored model (grid/dc/lp_kkt, as DcOpf).
bool kkt_ok(const ClpSimplex& m, const std::vector<double>& qdiag) {
  std::vector<double> act, aty;
  return lp_kkt_holds(m, qdiag, act, aty);
}

/// The model as a dense QP (refine_qp's input).
DenseQp dense_qp(const ClpSimplex& m, const std::vector<double>& qdiag) {
  DenseQp p;
  p.n_rows = m.numberRows();
  p.n_cols = m.numberColumns();
  p.a.assign(static_cast<size_t>(p.n_rows) * p.n_cols, 0.0);
  const CoinPackedMatrix* a = m.matrix();  // column-major
  for (int j = 0; j < p.n_cols; ++j)
    for (CoinBigIndex e = a->getVectorStarts()[j];
         e < a->getVectorStarts()[j] + a->getVectorLengths()[j]; ++e)
      p.a[static_cast<size_t>(a->getIndices()[e]) * p.n_cols + j] = a->getElements()[e];
  p.row_lo.assign(m.rowLower(), m.rowLower() + p.n_rows);
  p.row_hi.assign(m.rowUpper(), m.rowUpper() + p.n_rows);
  p.col_lo.assign(m.columnLower(), m.columnLower() + p.n_cols);
  p.col_hi.assign(m.columnUpper(), m.columnUpper() + p.n_cols);
  p.c.assign(m.objective(), m.objective() + p.n_cols);
  p.q = qdiag;
  p.q.resize(p.n_cols, 0.0);
  return p;
}

/// One CLP solve (dual simplex) of the linear model, its answer in x, y: an LP's optimum must
/// pass kkt_ok; with quadratic costs the LP's vertex is the start of refine_qp, which returns
/// the QP's exact optimum. A warm solve that fails is repeated cold. Returns CLP's status
/// (0 optimal, 1 primal infeasible, ...) or −1 for an answer that fails the checks even cold.
int run_clp(ClpSimplex& m, const std::vector<double>& qdiag, bool qp, bool warm,
            std::vector<double>& x, std::vector<double>& y) {
  for (int attempt = warm ? 0 : 1; attempt < 2; ++attempt) {
    if (attempt == 1) m.allSlackBasis(true);
    m.dual();
    if (m.status() != 0) continue;
    x.assign(m.primalColumnSolution(), m.primalColumnSolution() + m.numberColumns());
    y.assign(m.dualRowSolution(), m.dualRowSolution() + m.numberRows());
    if (qp ? refine_qp(dense_qp(m, qdiag), x, y, 20 * m.numberColumns() + 2 * m.numberRows())
           : kkt_ok(m, qdiag))
      return 0;
  }
  return m.status() == 0 ? -1 : m.status();
}

/// Objective, dispatch, flows, row counts and the binding limits of the final model.
void fill_result(const Case& c, const Network& n, const Lodf& lodf, const std::vector<double>& f,
                 const FlowRows& rows, const std::vector<double>& x, const std::vector<double>& y,
                 ScopfResult& res) {
  res.objective = 0;
  for (int j = 0; j < n.n_pg; ++j) {
    res.gen_pg_mw[n.on_gens[j]] = x[j];
    res.objective += gen_cost(c.gencost[n.on_gens[j]], x[j]);
  }
  res.branch_pf_mw = f;
  for (size_t i = 0; i < rows.outage.size(); ++i) {
    const int k = rows.outage[i], l = rows.branch[i];
    (k < 0 ? res.base_rows : res.contingency_rows) += 1;
    const double mu = std::abs(y[rows.first + static_cast<int>(i)]);
    if (!(mu > kBindingMu)) continue;
    const double flow = k < 0 ? f[l] : f[l] + lodf.at(l, k) * f[k];
    res.binding.push_back({k, l, flow, c.branch[l].rate_a_mva, mu});
  }
  std::sort(res.binding.begin(), res.binding.end(), [](const auto& a, const auto& b) {
    return a.outage != b.outage ? a.outage < b.outage : a.branch < b.branch;
  });
  res.status = DcOpfStatus::kOptimal;
}

// Adds island result `r` to the running sum `out` (rows of different islands are disjoint: a
// gen or branch outside r's island is out of service in its sub-case, so r holds 0 there).
void add_island(const ScopfResult& r, ScopfResult& out) {
  out.objective += r.objective;
  out.dcopf_objective += r.dcopf_objective;
  for (size_t g = 0; g < out.gen_pg_mw.size(); ++g) out.gen_pg_mw[g] += r.gen_pg_mw[g];
  for (size_t l = 0; l < out.branch_pf_mw.size(); ++l) out.branch_pf_mw[l] += r.branch_pf_mw[l];
  out.n_contingencies += r.n_contingencies;
  out.islanding.insert(out.islanding.end(), r.islanding.begin(), r.islanding.end());
  out.base_rows += r.base_rows;
  out.contingency_rows += r.contingency_rows;
  out.rounds += r.rounds;
  out.binding.insert(out.binding.end(), r.binding.begin(), r.binding.end());
}

}  // namespace

ScopfResult solve_scopf(const Case& in) {
  Case c = in;
  if (c.gen_bus_idx.size() != c.gen.size() || c.branch_from_idx.size() != c.branch.size())
    c.finalize();
  ScopfResult res;
  res.gen_pg_mw.assign(c.n_gen(), 0.0);
  res.branch_pf_mw.assign(c.n_branch(), 0.0);
  // The DC-OPF first: its constructor checks the network and the costs as `grid dcopf` does,
  // and its cost is the one security adds to.
  DcOpf opf(c);
  const DcOpfResult plain = opf.solve();
  if (!plain.ok()) {
    res.status = plain.status;
    res.message = "the DC-OPF without contingency limits is not optimal already: " + plain.message;
    return res;
  }
  res.dcopf_objective = plain.objective;
  const Lodf lodf(energize(c));
  const Network n = build_network(c, lodf, res);
  res.n_contingencies = static_cast<int>(n.outages.size());
  ClpSimplex m;
  std::vector<double> qdiag;  // per column: the Q diagonal of CLP's cᵀx + ½ xᵀQx
  load_base_model(c, n, m, qdiag);
  const bool qp = opf.is_qp();
  // Each round adds at least one of the (n_outages + 1)·n_rated limits, or ends.
  const int n_cols = m.numberColumns();
  m.setMaximumIterations(20 * (m.numberRows() + n_cols) + 1000);
  FlowRows rows;
  rows.first = m.numberRows();
  rows.in_model.assign(static_cast<size_t>(n.nl + 1) * n.nl, 0);
  std::vector<double> f(n.nl, 0.0), x, y;  // base flows; the model's solution and row duals
  const size_t max_rounds = (n.outages.size() + 1) * n.rated.size() + 1;
  for (size_t round = 0; round < max_rounds; ++round) {
    res.rounds = static_cast<int>(round) + 1;
    m.setMaximumIterations(20 * (m.numberRows() + n_cols) + 1000);
    const int st = run_clp(m, qdiag, qp, round > 0, x, y);
    if (st != 0) {
      res.status = st == 1 ? DcOpfStatus::kInfeasible : DcOpfStatus::kFailed;
      res.message = st == 1  ? "primal infeasible: no dispatch keeps every flow within RATE_A in "
                               "the base case and after each non-islanding branch outage"
                    : st < 0 ? "CLP's optimum failed the KKT check (not optimal), cold too"
                             : "CLP status " + std::to_string(st);
      return res;
    }
    if (add_violated(c, n, lodf, x.data(), f, rows, m) > 0) continue;
    fill_result(c, n, lodf, f, rows, x, y, res);
    return res;
  }
  res.message = "no convergence after " + std::to_string(max_rounds) + " rounds";
  return res;
}

// Split as IslandDcOpf splits the DC-OPF.
ScopfResult solve_island_scopf(const Case& net) {
  const int nb = net.n_bus();
  int n_refs = 0;
  for (const auto& b : net.bus) n_refs += b.type == 3;
  ScopfResult out;
  out.gen_pg_mw.assign(net.n_gen(), 0.0);
  out.branch_pf_mw.assign(net.n_branch(), 0.0);
  out.status = DcOpfStatus::kOptimal;
  if (n_refs == 0) return out;  // nothing energized: nothing to dispatch or secure
  const Islands isl = find_islands(net);
  for (int b = 0; b < nb; ++b) {
    if (net.bus[b].type != 3) continue;
    // The island of REF bus b alone: every other bus of type 4 with no load (solve_scopf's
    // balance counts every row's PD and GS).
    Case sub = net;
    for (int k = 0; k < nb; ++k) {
      if (isl.island[k] == isl.island[b]) continue;
      sub.bus[k].type = 4;
      sub.bus[k].pd_mw = sub.bus[k].qd_mvar = sub.bus[k].gs_mw = 0;
    }
    if (n_refs > 1) sub = energize(sub);
    ScopfResult r = solve_scopf(sub);
    if (!r.ok()) {
      if (n_refs > 1)
        r.message = "island of bus " + std::to_string(net.bus[b].id) + ": " + r.message;
      return r;
    }
    add_island(r, out);
  }
  std::sort(out.islanding.begin(), out.islanding.end());
  std::stable_sort(out.binding.begin(), out.binding.end(),
                   [](const ScopfBinding& a, const ScopfBinding& b) {
                     return std::tie(a.outage, a.branch) < std::tie(b.outage, b.branch);
                   });
  return out;
}

}  // namespace pz::grid
