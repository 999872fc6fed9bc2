// The DC-OPF island by island (see island_dcopf.hpp). Moved from the transmission env's outage
// solvers, whose per-island models and summed dispatch it keeps exactly.
#include "powerzoo/grid/dc/island_dcopf.hpp"

#include <algorithm>

#include "powerzoo/grid/case/energized.hpp"

namespace pz::grid {

IslandDcOpf::IslandDcOpf(const Case& net) {
  const int nb = net.n_bus();
  gen_bus_ = net.gen_bus_idx;
  branch_from_ = net.branch_from_idx;
  n_bus_ = nb;
  int n_refs = 0;
  for (const auto& b : net.bus) n_refs += b.type == 3;
  if (n_refs == 0) return;
  const Islands isl = find_islands(net);
  for (int b = 0; b < nb; ++b) {
    if (net.bus[b].type != 3) continue;
    // The island of REF bus b alone: every other bus of type 4 (what touches it goes out).
    Case sub = net;
    std::vector<char> in(nb, 0);
    for (int k = 0; k < nb; ++k) {
      in[k] = isl.island[k] == isl.island[b];
      if (!in[k] && sub.bus[k].type != 4) sub.bus[k].type = 4;
      if (!in[k]) sub.bus[k].gs_mw = 0;
    }
    if (n_refs > 1) sub = energize(sub);
    opf_.push_back(std::make_unique<DcOpf>(sub));
    bus_in_.push_back(std::move(in));
  }
}

IslandDcOpf::~IslandDcOpf() = default;
IslandDcOpf::IslandDcOpf(IslandDcOpf&&) noexcept = default;
IslandDcOpf& IslandDcOpf::operator=(IslandDcOpf&&) noexcept = default;

DcOpfResult IslandDcOpf::solve(const std::vector<double>& bus_pd_mw) {
  DcOpfResult out;
  if (opf_.empty()) {  // no generator left anywhere: nothing energized, nothing to dispatch
    out.status = DcOpfStatus::kOptimal;
    out.gen_pg_mw.assign(gen_bus_.size(), 0.0);
    out.branch_pf_mw.assign(branch_from_.size(), 0.0);
    out.branch_mu_sf.assign(branch_from_.size(), 0.0);
    out.branch_mu_st.assign(branch_from_.size(), 0.0);
    out.bus_va_deg.assign(n_bus_, 0.0);
    out.bus_lam_p.assign(n_bus_, 0.0);
    return out;
  }
  const size_t nb = bus_pd_mw.size();
  thread_local std::vector<double> ld;
  if (opf_.size() == 1) {
    ld.assign(nb, 0.0);
    for (size_t b = 0; b < nb; ++b)
      if (bus_in_[0][b]) ld[b] = bus_pd_mw[b];
    DcOpfResult r = opf_[0]->solve(ld);
    // A de-energized bus has no price and no angle, as in the multi-island sum below (the
    // model's type-4 buses still carry its duals).
    for (size_t b = 0; b < r.bus_lam_p.size(); ++b)
      if (!bus_in_[0][b]) r.bus_lam_p[b] = 0.0;
    for (size_t b = 0; b < r.bus_va_deg.size(); ++b)
      if (!bus_in_[0][b]) r.bus_va_deg[b] = 0.0;
    return r;
  }
  out.status = DcOpfStatus::kOptimal;
  for (size_t i = 0; i < opf_.size(); ++i) {
    const std::vector<char>& in = bus_in_[i];
    ld.assign(nb, 0.0);
    for (size_t b = 0; b < nb; ++b)
      if (in[b]) ld[b] = bus_pd_mw[b];
    DcOpfResult r = opf_[i]->solve(ld);
    if (!r.ok()) return r;  // an island that cannot balance its load: the OPF is infeasible
    if (i == 0) {           // the shapes; every entry is then the island's own
      out.gen_pg_mw.assign(r.gen_pg_mw.size(), 0.0);
      out.branch_pf_mw.assign(r.branch_pf_mw.size(), 0.0);
      out.branch_mu_sf.assign(r.branch_mu_sf.size(), 0.0);
      out.branch_mu_st.assign(r.branch_mu_st.size(), 0.0);
      out.bus_va_deg.assign(r.bus_va_deg.size(), 0.0);
      out.bus_lam_p.assign(r.bus_lam_p.size(), 0.0);
    }
    out.objective += r.objective;
    out.iterations += r.iterations;
    out.balance_slack_mw += r.balance_slack_mw;
    out.line_overload_mw += r.line_overload_mw;
    for (size_t g = 0; g < r.gen_pg_mw.size(); ++g)
      if (in[gen_bus_[g]]) out.gen_pg_mw[g] = r.gen_pg_mw[g];
    for (size_t l = 0; l < r.branch_pf_mw.size(); ++l)
      if (in[branch_from_[l]]) out.branch_pf_mw[l] = r.branch_pf_mw[l];
    for (size_t l = 0; l < r.branch_mu_sf.size(); ++l)
      if (in[branch_from_[l]]) {
        out.branch_mu_sf[l] = r.branch_mu_sf[l];
        out.branch_mu_st[l] = r.branch_mu_st[l];
      }
    for (size_t b = 0; b < r.bus_va_deg.size(); ++b)
      if (in[b]) out.bus_va_deg[b] = r.bus_va_deg[b];
    for (size_t b = 0; b < r.bus_lam_p.size(); ++b)
      if (in[b]) out.bus_lam_p[b] = r.bus_lam_p[b];
    out.binding_branches.insert(out.binding_branches.end(), r.binding_branches.begin(),
                                r.binding_branches.end());
  }
  std::sort(out.binding_branches.begin(), out.binding_branches.end());
  return out;
}

}  // namespace pz::grid
