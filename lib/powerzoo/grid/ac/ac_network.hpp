// AcNetwork: the AC model of a case — branch π-models, bus shunts, the sparse Ybus, MATPOWER bus
// types (bustypes) and islands — shared by the Newton–Raphson power flow and the AC-OPF.
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"

namespace pz::grid {

using Complex = std::complex<double>;

/// The four terms of one branch's π-model (MATPOWER makeYbus), p.u. on baseMVA:
/// Ys = 1/(r + jx), τ = tap·e^{j·shift}, Yff = (Ys + jb/2)/|τ|², Yft = −Ys/conj(τ),
/// Ytf = −Ys/τ, Ytt = Ys + jb/2. If = Yff·Vf + Yft·Vt, It = Ytf·Vf + Ytt·Vt.
struct BranchAdmittance {
  Complex yff, yft, ytf, ytt;
};

/// The π-model of branch row `br` (ignores its status).
BranchAdmittance branch_admittance(const Branch& br);

/// The checks an AC solve needs beyond the parser's: a bus of type 3, no in-service branch with
/// r = x = 0, RATE_A ≥ 0 and VMIN ≤ VMAX. Throws core::ConfigError naming the case file, the
/// matrix row (1-based) and the column (MATPOWER name), what was expected and what was found.
void validate_ac_case(const Case& c);

/// The in-service AC network of a case. Buses of type 4 (isolated) and branches or gens touching
/// them are out, as in MATPOWER's ext2int. Islands are the connected components of the remaining
/// buses over in-service branches.
class AcNetwork {
 public:
  /// Throws core::ConfigError (validate_ac_case) for bad AC data.
  explicit AcNetwork(const Case& c);

  int n_bus() const { return n_bus_; }
  int n_branch() const { return static_cast<int>(branch_y_.size()); }
  double base_mva() const { return base_mva_; }

  /// [n_branch] π-model terms (zeros for branches that are out).
  const std::vector<BranchAdmittance>& branch_y() const { return branch_y_; }
  /// [n_branch] 1 if the branch is in the model (status > 0, both ends not isolated).
  const std::vector<char>& branch_on() const { return branch_on_; }
  /// [n_bus] 1 unless the bus is of type 4.
  const std::vector<char>& bus_on() const { return bus_on_; }
  /// [n_bus] bus shunt (GS + jBS)/baseMVA, p.u. at V = 1.
  const std::vector<Complex>& bus_shunt() const { return shunt_; }

  /// Ybus in compressed rows: row i holds the buses k with Y_ik structurally nonzero (branch
  /// ends and the diagonal of every bus that is on), columns sorted. diag_pos()[i] is the entry
  /// of Y_ii in values() (−1 for a bus of type 4, which has no row entries).
  const std::vector<int>& row_ptr() const { return row_ptr_; }
  const std::vector<int>& col_idx() const { return col_idx_; }
  const std::vector<Complex>& values() const { return y_; }
  const std::vector<int>& diag_pos() const { return diag_pos_; }
  /// Per branch the positions of (f,f), (f,t), (t,f), (t,t) in values() (−1 if the branch is out).
  const std::vector<int>& branch_pos() const { return branch_pos_; }

  /// [n_bus] island label 0..n_islands−1, −1 for a type-4 bus.
  const std::vector<int>& island() const { return island_; }
  int n_islands() const { return n_islands_; }

 private:
  int n_bus_ = 0;
  double base_mva_ = 100;
  std::vector<BranchAdmittance> branch_y_;
  std::vector<char> branch_on_, bus_on_;
  std::vector<Complex> shunt_;
  std::vector<int> row_ptr_, col_idx_, diag_pos_, branch_pos_;
  std::vector<Complex> y_;
  std::vector<int> island_;
  int n_islands_ = 0;
};

/// MATPOWER bustypes applied per island (grid::bus_types). `gen_on[g]` says which gens count as in
/// service (the Q-limit loop turns some off); `type[b]` is the bus type to start from (the case's,
/// possibly changed to PQ by the Q-limit loop). Writes `out` [n_bus].
void ac_bus_types(const AcNetwork& net, const Case& c, const std::vector<char>& gen_on,
                  const std::vector<int>& type, std::vector<AcBusType>& out);

}  // namespace pz::grid
