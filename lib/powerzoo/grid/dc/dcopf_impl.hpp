// Internal to the DC-OPF: the solver state shared by dcopf.cpp (model, solve) and
// dcopf_check.cpp (answer check, exact QP polishing).
#pragma once

#include <coin/ClpSimplex.hpp>
#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"

namespace pz::grid {

/// Simplex iteration cap of one CLP call: a degenerate LP can make the dual simplex cycle
/// (seen on case118 unit commitment), and an uncapped solve then never returns. Warm solves
/// take a handful of iterations and cold ones about rows + cols, so the cap is far above both.
inline int iteration_limit(int n_rows, int n_cols) { return 20 * (n_rows + n_cols) + 1000; }

struct DcOpf::Impl {
  Case c;
  int nb = 0, nl = 0, ng = 0;
  PtdfFlow ptdf;                // [nl x nb], slack = reference bus
  std::vector<double> b;        // series susceptance per branch (p.u.), 0 if out of service
  std::vector<double> pfinj;    // MW, phase-shifter flow offset per branch
  std::vector<double> pbusinj;  // MW, phase-shifter bus injection (subtracted from injections)
  std::vector<int> gen_col;     // [ng] column of PG, -1 if out of service
  std::vector<int> on_gens;     // in-service gen rows, in column order
  std::vector<int> lim;         // rated in-service branches, row 1 + k
  std::vector<double> mlim;     // [n_lim x n_pg] PTDF of the rated branches at the gen buses
  int n_rows = 0;
  double const_cost = 0;  // Σ constant terms of polynomial costs ($/h)
  bool qp = false;
  bool has_pwl = false;
  std::vector<double> lin_cost, quad_cost;  // per in-service gen column: b and a of a·p² + b·p
                                            // (lin_cost includes the current override delta)
  std::vector<double> base_lin, base_obj;   // per PG column: case linear term, case objective coef
  std::vector<double> base_lb, base_ub;     // per PG column: case bounds
  bool overridden = false;                  // the model currently differs from the case
  int slack_col = 0;                        // columns slack_col (unserved), slack_col+1 (spill)
  bool slack_on = false;
  // Soft line limits (DcOpfOverrides::line_overload_cost, dcopf_elastic.cpp): per flow row an
  // overload column (coefficient −1) and an underload column (+1), both ≥ 0 at the price.
  // Added to a model on its first soft solve; fixed at 0 in hard solves.
  double elastic_cost = 0;    // this solve's price, 0 = hard limits
  int full_elastic_col = -1;  // model: first of 2·n_lim columns (pairs per lim index), −1 none
  std::vector<int> lazy_elastic_col;  // lazy_model: per lazy row, its pair's first column or −1
  double overload_mw_ = 0;            // the last solve's Σ overload (MW)
  void add_full_elastic();
  void add_lazy_elastic();
  void set_elastic_bounds(ClpSimplex& m, int first_col);
  double elastic_sum(const ClpSimplex& m, const std::vector<int>& first_cols) const;
  // Spanning tree from the reference bus for angles: (branch, known bus, new bus).
  struct TreeEdge {
    int l, known, next;
  };
  std::vector<TreeEdge> tree;
  ClpSimplex model;
  bool have_basis = false;
  // Lazy line limits (LP without piecewise-linear costs only, see DcOpf::set_lazy_line_limits):
  // a second CLP model with the PG and slack columns, the balance row and only the flow rows
  // found violated so far (lazy_rows[i] = index into lim of model row 1 + i).
  bool lazy = false;
  ClpSimplex lazy_model;
  bool lazy_have_basis = false;
  bool lazy_overridden = false;
  std::vector<int> lazy_rows;  // [rows in lazy_model − 1] index into lim
  std::vector<int> lazy_pos;   // [n_lim] row of lim[k] in lazy_model, −1 if absent
  std::vector<int> pend_k;     // scratch: violated rows to add
  std::vector<CoinBigIndex> pend_start;
  std::vector<int> pend_col;
  std::vector<double> pend_val, pend_lo, pend_hi;
  // Per-solve scratch (sized once): fixed injections, flows of the fixed injections, solution.
  std::vector<double> inj, base_flow, xs, ys, th;
  std::vector<double> gmat;                // [n_pg x nl] PTDF at the gen buses, per column
  std::vector<double> ref_flow, off_flow;  // [nl] flows of −reference loads; of shunts + shifters
  double ref_demand = 0, gs_demand = 0;    // Σ reference loads, Σ GS (MW)
  double demand_ = 0;                      // this solve's Σ(PD + GS), MW
  std::vector<double> flow_scratch;        // [nl] lazy screening
  // flow_scratch holds flows_at(xs) of the last solve (its final lazy screen): fill_result copies
  // it instead of recomputing the same sums.
  bool flows_ready = false;
  bool dispatch_only = false;  // DcOpf::set_dispatch_only
  bool polished_ = false;      // QP: the last solve's point was polished
  double slack_mw_ = 0;        // the last solve's balance slack (unserved − spilled), MW

  explicit Impl(const Case& cs);
  // Model building, in the order the constructor runs them (dcopf.cpp).
  struct Columns;  ///< column bounds, objective and Q diagonal while the model is built
  struct Rows;     ///< row-wise triplets and row bounds while the model is built
  void build_shift_injections();
  void build_angle_tree(int ref);
  void gen_cost_terms(int g, double& lin, double& quad, std::vector<int>& pwl_gens);
  void build_columns(Columns& cols);
  void build_rows(const Columns& cols, Rows& rows);
  void load_model(const Columns& cols, const Rows& rows);
  void solve_into(const std::vector<double>* pd, double factor, const DcOpfOverrides* o,
                  DcOpfResult& res);
  void fixed_flows(const std::vector<double>* pd, double factor);
  void set_reference_loads(const std::vector<double>& pd);
  void flows_at(const double* x, double* out) const;
  void solve_checked(const DcOpfOverrides* o, DcOpfResult& res);
  void fill_result(DcOpfResult& res);
  bool check_overrides(const DcOpfOverrides* o, std::string& err);
  void apply_overrides(ClpSimplex& m, bool& m_overridden, const DcOpfOverrides* o);
  bool run_solver(ClpSimplex& m, bool warm, bool keep_factors);
  /// Full model: CLP on every rated flow row. Returns ok; x, y as solve_lazy.
  bool solve_full(bool warm, int& iters, bool& warm_used);
  /// Lazy model: solves with the flow rows in lazy_model, adds the rated rows the solution
  /// violates, re-solves (warm) until none is violated. On success xs [n_pg], ys [n_rows]
  /// (full row numbering, 0 for rows not in the model) hold the optimum of the full LP.
  /// unverified: CLP's "optimal" failed verify_lp even after a primal clean-up (use the full
  /// model instead).
  bool solve_lazy(bool lines, int& iters, bool& warm_used, bool& unverified);
  bool lazy_lp(bool warm, bool keep_factors, int& iters, bool& warm_used, bool& unverified);
  bool lazy_add_violated(const double* x);
  void init_lazy_model();
  /// LP: is CLP's reported point primal feasible and dual feasible (reduced-cost signs) for the
  /// model as it stands? Recomputed from the stored matrix, not from CLP's work arrays.
  bool verify_lp(const ClpSimplex& m);
  std::vector<double> v_act, v_aty;  // verify_lp scratch
  /// LP: does CLP's infeasibility ray prove the model as it stands infeasible (Farkas)?
  bool verify_infeasible(const ClpSimplex& m);
  bool polish(std::vector<double>& x, std::vector<double>& y);
  bool kkt_solve(const std::vector<int>& fix, const std::vector<int>& act, std::vector<double>& x,
                 std::vector<double>& y) const;
  // Offer prices (DcOpfOverrides::pwl_prices, dcopf_offers.cpp): per model-1 gen its PG column,
  // first epigraph row, breakpoints and first cost point; built on first use.
  struct PwlCurve {
    int col = 0, row0 = 0;
    std::vector<double> x;
    double y0 = 0;
  };
  std::vector<PwlCurve> pwl_curves;
  size_t n_pwl_prices = 0;
  bool offers_applied = false;  // the epigraph rows differ from the case's slopes
  bool matrix_changed = false;  // coefficients changed since the last CLP call (no old factors)
  void init_pwl_curves();
  bool check_offer_prices(const DcOpfOverrides* o, std::string& err);
  void apply_offer_prices(const DcOpfOverrides* o);
  // One branch out by LODF (DcOpf::set_branch_outage, dcopf_outage.cpp): the branch (−1 none),
  // the case's PTDF (kept from the first outage on), the out branch's susceptance, and the
  // reference loads of set_reference_loads (their flows are recomputed on the new PTDF).
  int out_branch = -1, out_status = 1;
  double out_b = 0;
  PtdfFlow ptdf0;
  std::vector<double> ref_pd, old_mlim;
  void fill_sensitivities();  ///< mlim and gmat from ptdf and b (build_rows, outages)
  void set_branch_outage(int k, const double* lodf_col);
  // QP warm start: active set of the last polished optimum (empty if none).
  std::vector<int> last_fix, last_act;
};

}  // namespace pz::grid
