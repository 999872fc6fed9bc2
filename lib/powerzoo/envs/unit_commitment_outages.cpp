// UnitCommitment under outages (docs/outages.md, "unit_commitment"): the dispatch LP's line rows
// are those of the network without the out branches, per energized island, each island with its
// own balance at its MATPOWER reference bus; units out are forced off.
#include "powerzoo/envs/unit_commitment_outages.hpp"

#include <algorithm>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/unit_commitment.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"

namespace pz::envs {

void build_uc_outage_net(const grid::Case& c, const std::vector<double>& base_pd,
                         const std::vector<double>& rating, double voll, double overload_price,
                         const std::vector<uint8_t>& branch_on, const std::vector<uint8_t>& gen_on,
                         UcOutageNet& out, const UcIntactNet& intact) {
  out.branch_on = branch_on;
  out.gen_on = gen_on;
  out.islands.clear();
  out.dead_buses.clear();
  out.dead_base_mw = 0;
  int n_out = 0, k_out = -1;
  for (int l = 0; l < c.n_branch(); ++l)
    if (!branch_on[l] && c.branch[l].status > 0) {
      ++n_out;
      k_out = l;
    }
  bool gen_out = false;
  for (int g = 0; g < c.n_gen(); ++g) gen_out = gen_out || (!gen_on[g] && c.gen[g].status > 0);
  const int nu = c.n_gen();
  // `c` is energized: without an edit it is its own single-island reading.
  out.intact = n_out == 0 && !gen_out;
  if (out.intact) return;
  // One branch out that does not island, every unit on: one island, the case's reference, every
  // bus and unit in it; the screen by the LODF update instead of a factorization.
  if (n_out == 1 && !gen_out && intact.merit && intact.lp && intact.lodf &&
      !intact.lodf->islands(k_out)) {
    UcIsland is;
    is.ref_bus = c.ref_bus_idx;
    is.has_unit.assign(nu, 1);
    is.merit.emplace_back(*intact.merit, k_out, intact.lodf->column(k_out));
    is.lp.emplace_back(*intact.lp, k_out, intact.lodf->column(k_out));
    out.islands.push_back(std::move(is));
    return;
  }
  std::vector<int> dead;
  const grid::Case e = outage_case(c, branch_on, gen_on, &dead);
  out.intact = n_out == 0 && dead.empty() && e.ref_bus_idx == c.ref_bus_idx;
  if (out.intact) return;
  out.dead_buses = dead;
  for (int b : dead) out.dead_base_mw += base_pd[b];
  const int nb = e.n_bus();
  const grid::Islands isl = grid::find_islands(e);
  for (int i = 0; i < isl.n; ++i) {
    int ref = -1;
    for (int b = 0; b < nb && ref < 0; ++b)
      if (isl.island[b] == i && e.bus[b].type == 3) ref = b;
    if (ref < 0) continue;  // de-energized (type 4 after energize: not an island any more)
    // The island alone: every other bus isolated, every branch leaving it out.
    grid::Case ci = e;
    std::vector<double> load(nb, 0.0);
    for (int b = 0; b < nb; ++b) {
      if (isl.island[b] == i)
        load[b] = base_pd[b];
      else
        ci.bus[b].type = 4;
    }
    for (int l = 0; l < ci.n_branch(); ++l)
      if (isl.island[ci.branch_from_idx[l]] != i || isl.island[ci.branch_to_idx[l]] != i)
        ci.branch[l].status = 0;
    UcIsland is;
    is.ref_bus = ref;
    is.has_unit.assign(nu, 0);
    for (int u = 0; u < nu; ++u) is.has_unit[u] = isl.island[e.gen_bus_idx[u]] == i;
    const grid::PtdfFlow ptdf(ci, ref);
    is.merit.emplace_back(ptdf, e.gen_bus_idx, load, rating, voll);
    is.lp.emplace_back(ptdf, e.gen_bus_idx, load, rating, voll, overload_price);
    out.islands.push_back(std::move(is));
  }
}

void UnitCommitment::setup_outages() {
  const grid::Case& c = p_.grid_case;
  outages_ = OutageProcess(p_.outages, c, p_.horizon);
  if (!outages_.active()) return;
  for (const auto& br : c.branch)
    if (br.status > 0 && br.shift_deg != 0.0)
      throw core::ConfigError(
          "[env] outages: the outage dispatch uses PTDF flows, which need a network without phase "
          "shifters; case '" +
          c.name + "' has one");
  if (outages_.tracks_branches()) lodf_.emplace(c);
  const int nl = c.n_branch(), nu = n_units();
  // Appended after the forecast, so every field of the env without outages keeps its offset.
  // The traces always carry the tracked kinds; the observation unless outage_status_obs = false.
  if (outages_.observes_branches()) {
    spec_.obs_fields.push_back({"branch_status", {spec_.obs_dim, nl}});
    spec_.obs_dim += nl;
  }
  if (outages_.observes_gens()) {
    spec_.obs_fields.push_back({"gen_status", {spec_.obs_dim, nu}});
    spec_.obs_dim += nu;
  }
  if (outages_.tracks_branches()) spec_.trace_vectors.push_back({"branch_status", nl});
  if (outages_.tracks_gens()) spec_.trace_vectors.push_back({"gen_status", nu});
  spec_.cost_names.push_back("unserved_load");
}

void UnitCommitment::observe_outages(const UcState& s, std::span<float> obs, size_t k) const {
  if (outages_.observes_branches())
    for (uint8_t on : s.out.branch_on) obs[k++] = on;
  if (outages_.observes_gens())
    for (uint8_t on : s.out.gen_on) obs[k++] = on;
}

int UnitCommitment::trace_outages(const UcState& s, std::span<float> out, int o) const {
  const int n = static_cast<int>(out.size());
  if (outages_.tracks_branches())
    for (uint8_t on : s.out.solved_branch_on)
      if (o < n) out[o++] = on;
  if (outages_.tracks_gens())
    for (uint8_t on : s.out.solved_gen_on)
      if (o < n) out[o++] = on;
  return o;
}

// The network of the state's outage set (rebuilt only when the set changes; the net depends on
// the set alone, so a rebuild after a resume gives the same dispatch).
const UcOutageNet& UnitCommitment::outage_net(UcState& s) const {
  if (!s.net || s.net->branch_on != s.out.branch_on || s.net->gen_on != s.out.gen_on) {
    if (!s.net) s.net = std::make_unique<UcOutageNet>();
    build_uc_outage_net(
        p_.grid_case, p_.base_pd, cap_, kUcVoll, kUcOverloadPrice, s.out.branch_on, s.out.gen_on,
        *s.net, {merit_ ? &*merit_ : nullptr, lp_ ? &*lp_ : nullptr, lodf_ ? &*lodf_ : nullptr});
  }
  return *s.net;
}

// Each island is the LP of the intact network restricted to its buses and units: merit order when
// it meets the ratings, else DispatchLp from its basis, else (DispatchLp gives up: more than
// kMaxRows violated rows or its iteration cap) the merit-order point, whose overload then shows
// in thermal_overload. Unserved load and spilled generation are summed over the islands, with the
// load of de-energized buses as unserved.
void UnitCommitment::dispatch_outages(UcState& s, double f, const grid::DcOpfOverrides& o) const {
  const UcOutageNet& net = outage_net(s);
  grid::DcOpfResult& r = s.opf_result;
  s.shed_mw = s.spill_mw = 0;
  if (net.intact) {
    dispatch(s, f, o);
    if (r.ok()) {
      s.shed_mw = std::max(r.balance_slack_mw, 0.0);
      s.spill_mw = std::max(-r.balance_slack_mw, 0.0);
    }
    return;
  }
  const int nu = n_units(), nl = static_cast<int>(cap_.size());
  thread_local std::vector<double> mc, lo, hi;
  thread_local grid::MeritOrderResult mo, lp_out;
  mc.resize(nu);
  lo.resize(nu);
  hi.resize(nu);
  for (int u = 0; u < nu; ++u) mc[u] = p_.units[u].mc_c + o.linear_cost_delta[u];
  r.status = grid::DcOpfStatus::kOptimal;
  r.gen_pg_mw.assign(nu, 0.0);
  r.branch_pf_mw.assign(nl, 0.0);
  r.balance_slack_mw = 0;
  s.shed_mw = f * net.dead_base_mw;
  for (UcIsland& is : s.net->islands) {
    for (int u = 0; u < nu; ++u) {
      lo[u] = is.has_unit[u] ? o.pmin_mw[u] : 0.0;
      hi[u] = is.has_unit[u] ? o.pmax_mw[u] : 0.0;
    }
    const grid::MeritOrderStatus ms = is.merit[0].solve(f, lo, hi, mc, mo);
    const grid::MeritOrderResult* take = nullptr;
    if (ms == grid::MeritOrderStatus::kOptimal) {
      take = &mo;
      ++s.n_merit;
    } else if (ms == grid::MeritOrderStatus::kNeedsOpf && is.lp[0].solve(f, lo, hi, mc, lp_out)) {
      take = &lp_out;
      ++s.n_lp;
    } else if (ms == grid::MeritOrderStatus::kNeedsOpf) {
      take = &mo;
    } else {
      r.status = grid::DcOpfStatus::kFailed;
      return;
    }
    for (int u = 0; u < nu; ++u)
      if (is.has_unit[u]) r.gen_pg_mw[u] = take->p_mw[u];
    for (int l = 0; l < nl; ++l) r.branch_pf_mw[l] += take->flow_mw[l];
    s.shed_mw += std::max(take->slack_mw, 0.0);
    s.spill_mw += std::max(-take->slack_mw, 0.0);
  }
  r.balance_slack_mw = s.shed_mw - s.spill_mw;
}

}  // namespace pz::envs
