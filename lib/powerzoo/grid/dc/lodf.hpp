// Line outage distribution factors (LODF) of the DC network, next to the PTDF: the change of
// flow on every branch when one branch goes out, per MW of its pre-outage flow.
#pragma once

#include <vector>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// LODF of an energized case (grid::energize: each island has its reference bus, de-energized
/// buses are type 4). With H[l, k] the flow on branch l per MW sent from the from-bus of k to its
/// to-bus (the PTDF of that transfer), an outage of k changes the flow on l by
///   LODF[l, k] · PF_k,  LODF[l, k] = H[l, k] / (1 − H[k, k]),  LODF[k, k] = −1
/// (Wood & Wollenberg, "Power Generation, Operation, and Control", 2nd ed., §11.3; MATPOWER's
/// makeLODF). The denominator vanishes when k is a bridge: its outage splits its island, and no
/// factor describes the result (one side loses its reference or is left without a generator).
/// Such outages are detected on the graph, not by the size of the denominator, and marked
/// islands(k); their column is zero and the caller re-solves the network without k
/// (run_dcpf handles the islands as MATPOWER does).
class Lodf {
 public:
  /// Throws core::ConfigError for a zero reactance on an in-service branch.
  explicit Lodf(const Case& energized);

  int n_branch() const { return n_branch_; }
  /// LODF[l, k] (MW on l per MW of pre-outage flow on k); 0 where k is out of service or islands.
  double at(int l, int k) const { return m_[static_cast<size_t>(k) * n_branch_ + l]; }
  /// Column k [n_branch]: the factors of the outage of k.
  const double* column(int k) const { return &m_[static_cast<size_t>(k) * n_branch_]; }
  /// Branch k is in service in the energized case (an outage of it means something).
  bool in_service(int k) const { return on_[k] != 0; }
  /// The outage of k splits its island (k is a bridge of the in-service network).
  bool islands(int k) const { return bridge_[k] != 0; }
  /// For an islanding outage: the buses (0-based) cut off from the side holding the island's
  /// reference bus, ascending; empty otherwise.
  const std::vector<int>& cut_buses(int k) const { return cut_[k]; }

 private:
  int n_branch_ = 0;
  std::vector<double> m_;  // column-major [n_branch x n_branch]: m_[k·nl + l] = LODF[l, k]
  std::vector<char> on_, bridge_;
  std::vector<std::vector<int>> cut_;
};

}  // namespace pz::grid
