// Internal to the DC-OPF: the solver state shared by dcopf.cpp (model, solve) and
// dcopf_check.cpp (answer check, exact QP polishing).
#pragma once

#include <coin/ClpSimplex.hpp>
#include <string>
#include <vector>

#include "powerzoo/grid/case.hpp"
#include "powerzoo/grid/dcopf.hpp"
#include "powerzoo/grid/ptdf_flow.hpp"

namespace pz::grid {

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
  // Spanning tree from the reference bus for angles: (branch, known bus, new bus).
  struct TreeEdge {
    int l, known, next;
  };
  std::vector<TreeEdge> tree;
  ClpSimplex model;
  bool have_basis = false;

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
  DcOpfResult solve(const std::vector<double>& pd, const DcOpfOverrides* o = nullptr);
  bool apply_overrides(const DcOpfOverrides* o, std::string& err);
  bool run_solver(bool warm);
  /// LP: is CLP's reported point primal feasible and dual feasible (reduced-cost signs) for the
  /// model as it stands? Recomputed from the stored matrix, not from CLP's work arrays.
  bool verify_lp() const;
  bool polish(std::vector<double>& x, std::vector<double>& y);
  bool kkt_solve(const std::vector<int>& fix, const std::vector<int>& act, std::vector<double>& x,
                 std::vector<double>& y) const;
  // QP warm start: active set of the last polished optimum (empty if none).
  std::vector<int> last_fix, last_act;
};

}  // namespace pz::grid
