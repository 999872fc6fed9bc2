// Internal to the AC power flow: the solver's working state (shared by acpf.cpp and
// acpf_soln.cpp).
#pragma once

#include <vector>

#include "powerzoo/grid/ac/ac_network.hpp"
#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/linalg/klu_solver.hpp"

namespace pz::grid {

struct AcPowerFlow::Impl {
  explicit Impl(const Case& cs);

  Case c;
  AcNetwork net;
  int nb = 0, ng = 0, nl = 0;

  // Working data of one solve (MATPOWER's bus/gen matrices as runpf changes them).
  std::vector<int> type;       ///< [nb] bus types; the Q-limit loop sets switched buses to PQ
  std::vector<char> gen_in;    ///< [ng] gen in the model: status > 0 and its bus not type 4
  std::vector<AcBusType> bt;   ///< [nb] bus types of the current round
  std::vector<double> pd, qd;  ///< [nb] MW, MVAr
  std::vector<double> pg, qg;  ///< [ng] MW, MVAr (pfsoln updates REF PG and PV/REF QG)
  std::vector<double> vm, va;  ///< [nb] p.u., rad
  std::vector<Complex> v, cur, sbus;  ///< [nb] voltage, Ybus·V, scheduled injection (p.u.)
  std::vector<Complex> vn;            ///< [nb] e^{jVa}
  std::vector<double> vset;           ///< [nb] VG of the last in-model gen at the bus (0 if none)

  // Newton system for the pattern of `bt_pattern`.
  std::vector<AcBusType> bt_pattern;
  std::vector<int> th_idx, vm_idx;  ///< [nb] unknown / equation index of Va and Vm, −1 if fixed
  std::vector<int> pvpq;            ///< buses with a Va unknown (PV then PQ, ascending)
  int nx = 0;
  std::vector<int> jp, ji;     ///< Jacobian pattern (compressed columns)
  std::vector<int> jslot;      ///< [4·nnz(Ybus)] position in jx of (P,θ) (P,Vm) (Q,θ) (Q,Vm)
  std::vector<double> jx, fx;  ///< Jacobian values; mismatch / step
  KluSolver klu;
  bool pattern_ok = false;

  std::vector<int> ref_start;    ///< [n_islands] REF bus of each island before Q-limit rounds
  std::vector<double> va_ref0;   ///< [n_islands] its initial angle (rad)
  std::vector<int> limited;      ///< gens fixed at a Q limit in this solve
  std::vector<int> gens_at_bus;  ///< gen rows grouped by bus (CSR with gens_ptr)
  std::vector<int> gens_ptr;     ///< [nb + 1]

  bool build_pattern();      ///< Jacobian pattern + KLU analysis for `bt`; false if KLU refuses
  void set_vc_magnitudes();  ///< Vm at PV/REF buses = VG, V from vm/va
  void set_voltage(int b);   ///< v[b], vn[b] from vm[b], va[b] (0 on a de-energized bus)
  void make_sbus();
  double mismatch();  ///< cur, fx = [P mismatch (pvpq); Q mismatch (pq)]; returns ∞-norm
  void fill_jacobian();
  AcPfStatus newton(const AcPfOptions& opt, int& iterations, double& norm);
  void pfsoln();  ///< REF PG, PV/REF QG split as MATPOWER
  /// One Q-limit check; returns true if gens were fixed (a new round is needed). Sets
  /// `infeasible` when every remaining PV/REF gen violates the same side.
  bool enforce_q_limits(const AcPfOptions& opt, bool& infeasible);
  void write_result(AcPfResult& out) const;
};

}  // namespace pz::grid
