// AcPowerFlow: the Newton–Raphson iteration (MATPOWER newtonpf, polar, power balance) on a KLU-
// factored sparse Jacobian, and the runpf driver with its Q-limit rounds.
#include "powerzoo/grid/ac/acpf.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <tuple>

#include "powerzoo/grid/ac/acpf_impl.hpp"

namespace pz::grid {

namespace {
constexpr double kDeg = std::numbers::pi / 180.0;
}  // namespace

AcPowerFlow::Impl::Impl(const Case& cs)
    : c(cs), net(cs), nb(cs.n_bus()), ng(cs.n_gen()), nl(cs.n_branch()) {
  gen_in.assign(ng, 0);
  for (int g = 0; g < ng; ++g) gen_in[g] = c.gen[g].status > 0 && net.bus_on()[c.gen_bus_idx[g]];
  gens_ptr.assign(nb + 1, 0);
  for (int g = 0; g < ng; ++g)
    if (gen_in[g]) ++gens_ptr[c.gen_bus_idx[g] + 1];
  for (int b = 0; b < nb; ++b) gens_ptr[b + 1] += gens_ptr[b];
  gens_at_bus.assign(gens_ptr[nb], 0);
  std::vector<int> fill(gens_ptr.begin(), gens_ptr.end() - 1);
  for (int g = 0; g < ng; ++g)
    if (gen_in[g]) gens_at_bus[fill[c.gen_bus_idx[g]]++] = g;
  vset.assign(nb, 0.0);
  for (int g = 0; g < ng; ++g)  // MATPOWER: the last gen at a bus sets its voltage
    if (gen_in[g]) vset[c.gen_bus_idx[g]] = c.gen[g].vg_pu;
  type.resize(nb);
  pd.resize(nb);
  qd.resize(nb);
  pg.resize(ng);
  qg.resize(ng);
  vm.resize(nb);
  va.resize(nb);
  v.resize(nb);
  vn.resize(nb);
  cur.resize(nb);
  sbus.resize(nb);
  th_idx.resize(nb);
  vm_idx.resize(nb);
  for (int b = 0; b < nb; ++b) type[b] = c.bus[b].type;
  ac_bus_types(net, c, gen_in, type, bt);
  build_pattern();
  ref_start.resize(net.n_islands());
  va_ref0.resize(net.n_islands());
  limited.reserve(ng);
}

bool AcPowerFlow::Impl::build_pattern() {
  bt_pattern = bt;
  pvpq.clear();
  std::fill(th_idx.begin(), th_idx.end(), -1);
  std::fill(vm_idx.begin(), vm_idx.end(), -1);
  for (AcBusType want : {AcBusType::kPv, AcBusType::kPq})
    for (int b = 0; b < nb; ++b)
      if (bt[b] == want) {
        th_idx[b] = static_cast<int>(pvpq.size());
        pvpq.push_back(b);
      }
  nx = static_cast<int>(pvpq.size());
  for (int b = 0; b < nb; ++b)
    if (bt[b] == AcBusType::kPq) vm_idx[b] = nx++;
  const auto& rp = net.row_ptr();
  const auto& ci = net.col_idx();
  const int nnz_y = rp[nb];
  std::vector<std::tuple<int, int, int>> trip;  // (column, row, slot)
  trip.reserve(4 * static_cast<size_t>(nnz_y));
  for (int i = 0; i < nb; ++i) {
    const int rows[2] = {th_idx[i], vm_idx[i]};
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
      const int cols[2] = {th_idx[ci[k]], vm_idx[ci[k]]};
      for (int r = 0; r < 2; ++r)
        for (int q = 0; q < 2; ++q)
          if (rows[r] >= 0 && cols[q] >= 0) trip.emplace_back(cols[q], rows[r], 4 * k + 2 * r + q);
    }
  }
  std::sort(trip.begin(), trip.end());
  jp.assign(nx + 1, 0);
  ji.resize(trip.size());
  jslot.assign(4 * static_cast<size_t>(nnz_y), -1);
  for (size_t e = 0; e < trip.size(); ++e) {
    const auto [col, row, slot] = trip[e];
    ++jp[col + 1];
    ji[e] = row;
    jslot[slot] = static_cast<int>(e);
  }
  for (int j = 0; j < nx; ++j) jp[j + 1] += jp[j];
  jx.assign(trip.size(), 0.0);
  fx.assign(nx, 0.0);
  pattern_ok = nx == 0 || klu.analyze(nx, jp, ji);
  return pattern_ok;
}

void AcPowerFlow::Impl::set_voltage(int b) {
  vn[b] = Complex(std::cos(va[b]), std::sin(va[b]));
  v[b] = bt[b] == AcBusType::kOff ? Complex(0, 0) : vm[b] * vn[b];
}

void AcPowerFlow::Impl::set_vc_magnitudes() {
  for (int b = 0; b < nb; ++b) {
    if (bt[b] == AcBusType::kPv || bt[b] == AcBusType::kRef) vm[b] = vset[b];
    set_voltage(b);
  }
}

void AcPowerFlow::Impl::make_sbus() {
  const double base = c.base_mva;
  for (int b = 0; b < nb; ++b) sbus[b] = Complex(-pd[b], -qd[b]) / base;
  for (int g = 0; g < ng; ++g)
    if (gen_in[g]) sbus[c.gen_bus_idx[g]] += Complex(pg[g], qg[g]) / base;
}

double AcPowerFlow::Impl::mismatch() {
  const auto& rp = net.row_ptr();
  const auto& ci = net.col_idx();
  const auto& y = net.values();
  double norm = 0;
  for (int i = 0; i < nb; ++i) {
    Complex acc(0, 0);
    for (int k = rp[i]; k < rp[i + 1]; ++k) acc += y[k] * v[ci[k]];
    cur[i] = acc;
    if (th_idx[i] < 0) continue;
    const Complex mis = v[i] * std::conj(acc) - sbus[i];
    fx[th_idx[i]] = mis.real();
    norm = std::max(norm, std::abs(mis.real()));
    if (vm_idx[i] >= 0) {
      fx[vm_idx[i]] = mis.imag();
      norm = std::max(norm, std::abs(mis.imag()));
    }
    if (!std::isfinite(mis.real()) || !std::isfinite(mis.imag()))
      norm = std::numeric_limits<double>::infinity();
  }
  return norm;
}

// dS_i/dθ_j = −j·V_i·conj(Y_ij·V_j) (j ≠ i), j·V_i·conj(I_i − Y_ii·V_i) (j = i);
// dS_i/dVm_j = V_i·conj(Y_ij·Vn_j) (j ≠ i), V_i·conj(Y_ii·Vn_i) + conj(I_i)·Vn_i (j = i).
void AcPowerFlow::Impl::fill_jacobian() {
  const auto& rp = net.row_ptr();
  const auto& ci = net.col_idx();
  const auto& y = net.values();
  const Complex jj(0, 1);
  for (int i = 0; i < nb; ++i) {
    if (th_idx[i] < 0) continue;
    const Complex vi = v[i];
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
      const int j = ci[k];
      Complex ds_dth, ds_dvm;
      if (j == i) {
        ds_dth = jj * vi * std::conj(cur[i] - y[k] * vi);
        ds_dvm = vi * std::conj(y[k] * vn[j]) + std::conj(cur[i]) * vn[j];
      } else {
        ds_dth = -jj * vi * std::conj(y[k] * v[j]);
        ds_dvm = vi * std::conj(y[k] * vn[j]);
      }
      const int* s = &jslot[4 * static_cast<size_t>(k)];
      if (s[0] >= 0) jx[s[0]] = ds_dth.real();
      if (s[1] >= 0) jx[s[1]] = ds_dvm.real();
      if (s[2] >= 0) jx[s[2]] = ds_dth.imag();
      if (s[3] >= 0) jx[s[3]] = ds_dvm.imag();
    }
  }
}

AcPfStatus AcPowerFlow::Impl::newton(const AcPfOptions& opt, int& iterations, double& norm) {
  iterations = 0;
  norm = mismatch();
  if (!std::isfinite(norm)) return AcPfStatus::kNonFinite;
  while (norm >= opt.tol && iterations < opt.max_iter) {
    ++iterations;
    fill_jacobian();
    if (!klu.factor(jx.data()) || !klu.solve(fx.data())) return AcPfStatus::kSingular;
    for (int b : pvpq) {
      va[b] -= fx[th_idx[b]];
      if (vm_idx[b] >= 0) vm[b] -= fx[vm_idx[b]];
    }
    for (int b : pvpq) {  // as MATPOWER's Vm = |V|, Va = angle(V) of V = Vm·e^{jVa}
      if (vm[b] < 0) {
        vm[b] = -vm[b];
        va[b] += std::numbers::pi;
      }
      if (va[b] > std::numbers::pi || va[b] <= -std::numbers::pi)
        va[b] = std::remainder(va[b], 2 * std::numbers::pi);
      set_voltage(b);
    }
    norm = mismatch();
    if (!std::isfinite(norm)) return AcPfStatus::kNonFinite;
  }
  return norm < opt.tol ? AcPfStatus::kConverged : AcPfStatus::kMaxIter;
}

const char* to_string(AcPfStatus s) {
  switch (s) {
    case AcPfStatus::kConverged:
      return "converged";
    case AcPfStatus::kMaxIter:
      return "max_iter";
    case AcPfStatus::kSingular:
      return "singular";
    case AcPfStatus::kNonFinite:
      return "non_finite";
    case AcPfStatus::kQLimInfeasible:
      return "q_lim_infeasible";
    case AcPfStatus::kBadInput:
      return "bad_input";
  }
  return "unknown";
}

AcPowerFlow::AcPowerFlow(const Case& c) : impl_(std::make_unique<Impl>(c)) {}
AcPowerFlow::~AcPowerFlow() = default;
AcPowerFlow::AcPowerFlow(AcPowerFlow&&) noexcept = default;
AcPowerFlow& AcPowerFlow::operator=(AcPowerFlow&&) noexcept = default;
const Case& AcPowerFlow::case_data() const { return impl_->c; }

AcPfResult AcPowerFlow::solve(const AcPfOptions& opt) {
  AcPfResult r;
  solve_into(AcPfInput{}, opt, r);
  return r;
}

namespace {

/// Copies `in` (or the case values `dflt` when empty) into `out`; false on a wrong size or a
/// non-finite value.
template <class F>
bool take(std::span<const double> in, size_t n, std::vector<double>& out, F dflt) {
  if (in.empty()) {
    for (size_t k = 0; k < n; ++k) out[k] = dflt(k);
    return true;
  }
  if (in.size() != n) return false;
  for (size_t k = 0; k < n; ++k) {
    if (!std::isfinite(in[k])) return false;
    out[k] = in[k];
  }
  return true;
}

}  // namespace

void AcPowerFlow::solve_into(const AcPfInput& in, const AcPfOptions& opt, AcPfResult& out) {
  Impl& m = *impl_;
  const Case& c = m.c;
  const size_t nb = m.nb, ng = m.ng;
  out.iterations = 0;
  out.max_mismatch_pu = 0;
  out.q_limited_gens.clear();
  const bool ok = take(in.bus_pd_mw, nb, m.pd, [&](size_t k) { return c.bus[k].pd_mw; }) &&
                  take(in.bus_qd_mvar, nb, m.qd, [&](size_t k) { return c.bus[k].qd_mvar; }) &&
                  take(in.gen_pg_mw, ng, m.pg, [&](size_t k) { return c.gen[k].pg_mw; }) &&
                  take(in.gen_qg_mvar, ng, m.qg, [&](size_t k) { return c.gen[k].qg_mvar; }) &&
                  take(in.vm0_pu, nb, m.vm, [&](size_t k) { return c.bus[k].vm_pu; }) &&
                  take(in.va0_deg, nb, m.va, [&](size_t k) { return c.bus[k].va_deg; });
  if (!ok) {
    out.status = AcPfStatus::kBadInput;
    out.success = false;
    m.write_result(out);
    return;
  }
  for (size_t b = 0; b < nb; ++b) {
    m.va[b] *= kDeg;
    m.type[b] = c.bus[b].type;
  }
  ac_bus_types(m.net, c, m.gen_in, m.type, m.bt);
  for (int isl = 0; isl < m.net.n_islands(); ++isl) m.ref_start[isl] = -1;
  for (int b = 0; b < m.nb; ++b)
    if (m.bt[b] == AcBusType::kRef && m.ref_start[m.net.island()[b]] < 0) {
      m.ref_start[m.net.island()[b]] = b;
      m.va_ref0[m.net.island()[b]] = m.va[b];
    }
  m.limited.clear();
  m.set_vc_magnitudes();
  AcPfStatus status = AcPfStatus::kConverged;
  for (int round = 0;; ++round) {
    if (m.bt != m.bt_pattern) m.build_pattern();
    m.make_sbus();
    int it = 0;
    double norm = 0;
    status = m.pattern_ok ? m.newton(opt, it, norm) : AcPfStatus::kSingular;
    out.iterations += it;
    out.max_mismatch_pu = norm;
    if (status != AcPfStatus::kConverged) break;
    m.pfsoln();
    if (!opt.enforce_q_lims) break;
    bool infeasible = false;
    if (!m.enforce_q_limits(opt, infeasible)) break;
    if (infeasible) {
      status = AcPfStatus::kQLimInfeasible;
      break;
    }
    ac_bus_types(m.net, c, m.gen_in, m.type, m.bt);
    for (int b = 0; b < m.nb; ++b) m.set_voltage(b);  // the next round starts from this solution
  }
  // Islands whose reference moved: shift their angles back to the original reference's angle.
  for (int isl = 0; isl < m.net.n_islands(); ++isl) {
    const int r0 = m.ref_start[isl];
    if (r0 < 0 || m.bt[r0] == AcBusType::kRef) continue;
    const double shift = m.va_ref0[isl] - m.va[r0];
    for (int b = 0; b < m.nb; ++b)
      if (m.net.island()[b] == isl) m.va[b] += shift;
  }
  out.status = status;
  out.success = status == AcPfStatus::kConverged;
  m.write_result(out);
}

}  // namespace pz::grid
