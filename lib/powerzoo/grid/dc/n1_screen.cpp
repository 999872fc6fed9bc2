// The N-1 screen (see n1_screen.hpp).
#include "powerzoo/grid/dc/n1_screen.hpp"

#include <algorithm>
#include <cmath>

#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/lodf.hpp"

namespace pz::grid {

namespace {

// A flow above RATE_A by more than this (MW) is an overload: far above the solvers' rounding,
// far below anything an operator would call one.
constexpr double kOverloadTol = 1e-6;

void mark_overloads(const Case& c, N1Outage& o) {
  o.overloads.clear();
  o.max_loading_pct = 0;
  for (int l = 0; l < c.n_branch(); ++l) {
    const double rate = c.branch[l].rate_a_mva;
    if (!(rate > 0)) continue;
    const double f = std::abs(o.flow_mw[l]);
    o.max_loading_pct = std::max(o.max_loading_pct, 100.0 * f / rate);
    if (f > rate + kOverloadTol) o.overloads.push_back(l);
  }
}

// The side of bridge k an operator calls cut off: the side without the island's reference bus
// (Lodf::cut_buses), which is the de-energized one when a side has no generator; when both sides
// keep a generator, the smaller side (case39's 6-31 cuts off bus 31, the reference bus with its
// unit, not the 38 buses that get a new reference).
std::vector<int> cut_side(const Case& e, const Islands& isl, const Lodf& lodf, int k) {
  const std::vector<int>& no_ref = lodf.cut_buses(k);
  const int home = isl.island[e.branch_from_idx[k]];
  size_t n_home = 0;
  for (int b = 0; b < e.n_bus(); ++b) n_home += isl.island[b] == home;
  const size_t n_other = n_home - no_ref.size();
  if (no_ref.size() <= n_other) return no_ref;
  bool gen_cut = false;  // the side without the reference has a generator (gets its own)
  for (int g = 0; g < e.n_gen(); ++g)
    if (e.gen[g].status > 0 && std::binary_search(no_ref.begin(), no_ref.end(), e.gen_bus_idx[g]))
      gen_cut = true;
  if (!gen_cut) return no_ref;
  std::vector<int> ref_side;
  for (int b = 0; b < e.n_bus(); ++b)
    if (isl.island[b] == home && !std::binary_search(no_ref.begin(), no_ref.end(), b))
      ref_side.push_back(b);
  return ref_side;
}

}  // namespace

N1Screen screen_n1(const Case& c) {
  N1Screen s;
  s.base = run_dcpf(c);
  if (!s.base.success) return s;
  std::vector<int> dead_before;
  const Case e = energize(c, &dead_before);
  const Lodf lodf(e);
  const Islands isl = find_islands(e);
  const int nl = c.n_branch();
  const std::vector<double>& pre = s.base.branch_pf_mw;
  for (int k = 0; k < nl; ++k) {
    if (!lodf.in_service(k)) continue;
    N1Outage o;
    o.branch = k;
    o.pre_flow_mw = pre[k];
    if (!lodf.islands(k)) {
      const double* col = lodf.column(k);
      o.flow_mw.resize(nl);
      for (int l = 0; l < nl; ++l) o.flow_mw[l] = pre[l] + col[l] * pre[k];
      o.flow_mw[k] = 0.0;
      ++s.n_lodf;
    } else {
      o.islands = true;
      o.cut_buses = cut_side(e, isl, lodf, k);
      Case ck = c;
      ck.branch[k].status = 0;
      DcPfResult r = run_dcpf(ck);
      o.success = r.success;
      o.flow_mw = std::move(r.branch_pf_mw);
      for (int b : r.dead_buses)
        if (!std::binary_search(dead_before.begin(), dead_before.end(), b))
          o.dead_buses.push_back(b);
      ++s.n_resolved;
    }
    mark_overloads(c, o);
    s.outages.push_back(std::move(o));
  }
  return s;
}

}  // namespace pz::grid
