// The optimality check of a CLP answer, recomputed from the stored model: used by DcOpf and the
// security-constrained DC-OPF, so both accept exactly the same answers.
#pragma once

#include <vector>

class ClpSimplex;

namespace pz::grid {

/// KKT conditions of the LP (or diagonal QP) answer held in `m`, to a relative 1e-6: primal
/// feasibility of rows and columns, row duals of the right sign (d objective / d bound: ≥ 0 at
/// a lower bound, ≤ 0 at an upper, 0 between), reduced costs c + Q·x − Aᵀy of the right sign at
/// the column bounds and 0 between them. `qdiag` [n_cols or fewer; missing entries 0]: the
/// diagonal of Q. `act` [n_rows] and `aty` [n_cols] are scratch, resized here.
bool lp_kkt_holds(const ClpSimplex& m, const std::vector<double>& qdiag, std::vector<double>& act,
                  std::vector<double>& aty);

}  // namespace pz::grid
