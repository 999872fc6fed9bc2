// AcOpfModel: variables, bounds, start point, cost, power balance, |S|² branch limits, angle and
// piecewise-linear cost rows of the AC-OPF, with exact first derivatives (sparse triplets).
#include "powerzoo/grid/ac/acopf_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "powerzoo/core/error.hpp"

namespace pz::grid {

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

std::string gen_where(const Case& c, int g) {
  return (c.source_path.empty() ? "case '" + c.name + "'" : c.source_path) + ": mpc.gencost row " +
         std::to_string(g + 1);
}

}  // namespace

AcOpfModel::AcOpfModel(const Case& c) : c_(c), net_(c), nb_(c.n_bus()) {
  if (static_cast<int>(c.gencost.size()) < c.n_gen())
    throw core::ConfigError((c.source_path.empty() ? "case '" + c.name + "'" : c.source_path) +
                            ": expected an mpc.gencost row per generator for the AC-OPF (" +
                            std::to_string(c.n_gen()) + "), found " +
                            std::to_string(c.gencost.size()));
  for (int g = 0; g < c.n_gen(); ++g) {
    if (c.gen[g].status <= 0 || !net_.bus_on()[c.gen_bus_idx[g]]) continue;
    const int k = static_cast<int>(gens_.size());
    gens_.push_back(g);
    const GenCost& gc = c.gencost[g];
    poly_.push_back(gc.model == 2 ? gc.coeffs : std::vector<double>{});
    if (gc.model != 1) continue;
    const auto& p = gc.coeffs;
    const size_t np = p.size() / 2;
    if (np < 2)
      throw core::ConfigError(gen_where(c, g) + ": expected at least 2 points of a piecewise-" +
                              "linear cost, found " + std::to_string(np));
    Pwl w{k, {}, {}};
    for (size_t s = 0; s + 1 < np; ++s) {
      const double dx = p[2 * s + 2] - p[2 * s];
      if (!(dx > 0))
        throw core::ConfigError(gen_where(c, g) + ": expected increasing breakpoints, found x" +
                                std::to_string(s + 2) + " <= x" + std::to_string(s + 1));
      const double slope = (p[2 * s + 3] - p[2 * s + 1]) / dx;
      if (!w.slope.empty() && slope < w.slope.back())
        throw core::ConfigError(
            gen_where(c, g) + ": expected a convex piecewise-linear cost (non-decreasing " +
            "segment prices), found a falling price at point " + std::to_string(s + 1));
      w.slope.push_back(slope);
      w.icept.push_back(p[2 * s + 1] - slope * p[2 * s]);
    }
    n_seg_ += static_cast<int>(w.slope.size());
    pwl_.push_back(std::move(w));
  }
  ng_ = static_cast<int>(gens_.size());
  if (ng_ == 0)
    throw core::ConfigError((c.source_path.empty() ? "case '" + c.name + "'" : c.source_path) +
                            ": expected at least one in-service generator for the AC-OPF");
  bal_row_.assign(nb_, -1);
  for (int b = 0; b < nb_; ++b)
    if (net_.bus_on()[b]) bal_row_[b] = n_bal_++;
  for (int l = 0; l < c.n_branch(); ++l) {
    if (!net_.branch_on()[l]) continue;
    const Branch& br = c.branch[l];
    if (br.rate_a_mva > 0 && br.rate_a_mva < 1e10) {
      rated_.push_back(l);
      smax2_.push_back(std::pow(br.rate_a_mva / c.base_mva, 2));
    }
    if ((br.angmin_deg != 0 && br.angmin_deg > -360) || (br.angmax_deg != 0 && br.angmax_deg < 360))
      angle_br_.push_back(l);
  }
  n_lim_ = static_cast<int>(rated_.size());
  n_ = 2 * nb_ + 2 * ng_ + static_cast<int>(pwl_.size());
  m_ = 2 * n_bal_ + 2 * n_lim_ + static_cast<int>(angle_br_.size()) + n_seg_;
  pd_pu_.resize(nb_);
  qd_pu_.resize(nb_);
  for (int b = 0; b < nb_; ++b) {
    pd_pu_[b] = c.bus[b].pd_mw / c.base_mva;
    qd_pu_[b] = c.bus[b].qd_mvar / c.base_mva;
  }
  v_.resize(nb_);
  cur_.resize(nb_);
  build_jacobian();
  build_hessian();
}

void AcOpfModel::set_loads(std::span<const double> pd_mw, std::span<const double> qd_mvar) {
  for (int b = 0; b < nb_; ++b) {
    pd_pu_[b] = pd_mw[b] / c_.base_mva;
    qd_pu_[b] = qd_mvar[b] / c_.base_mva;
  }
}

void AcOpfModel::bounds(double* xl, double* xu, double* gl, double* gu, double inf) const {
  std::vector<char> island_fixed(net_.n_islands(), 0);
  for (int b = 0; b < nb_; ++b)
    if (net_.bus_on()[b] && c_.bus[b].type == 3) island_fixed[net_.island()[b]] = 1;
  for (int b = 0; b < nb_; ++b) {
    const Bus& bus = c_.bus[b];
    const bool on = net_.bus_on()[b];
    // Reference angles are fixed; an island without a type-3 bus has its first bus fixed.
    bool fix_va = !on || bus.type == 3;
    if (on && !island_fixed[net_.island()[b]]) {
      fix_va = true;
      island_fixed[net_.island()[b]] = 1;
    }
    xl[va(b)] = fix_va ? bus.va_deg * kDeg : -inf;
    xu[va(b)] = fix_va ? bus.va_deg * kDeg : inf;
    xl[vm(b)] = net_.bus_on()[b] ? bus.vmin_pu : bus.vm_pu;
    xu[vm(b)] = net_.bus_on()[b] ? bus.vmax_pu : bus.vm_pu;
  }
  auto lim = [&](double v) { return std::isinf(v) ? (v > 0 ? inf : -inf) : v / c_.base_mva; };
  for (int k = 0; k < ng_; ++k) {
    const Gen& gen = c_.gen[gens_[k]];
    xl[pg(k)] = gen.pmin_mw / c_.base_mva;
    xu[pg(k)] = gen.pmax_mw / c_.base_mva;
    xl[qg(k)] = lim(gen.qmin_mvar);
    xu[qg(k)] = lim(gen.qmax_mvar);
  }
  for (int y = 2 * nb_ + 2 * ng_; y < n_; ++y) {
    xl[y] = -inf;
    xu[y] = inf;
  }
  int r = 0;
  for (; r < 2 * n_bal_; ++r) gl[r] = gu[r] = 0;
  for (int j = 0; j < n_lim_; ++j, ++r) {  // from ends, then to ends
    gl[r] = gl[r + n_lim_] = -inf;
    gu[r] = gu[r + n_lim_] = smax2_[j];
  }
  r += n_lim_;
  for (int l : angle_br_) {
    const Branch& br = c_.branch[l];
    gl[r] = br.angmin_deg != 0 ? br.angmin_deg * kDeg : -inf;
    gu[r] = br.angmax_deg != 0 ? br.angmax_deg * kDeg : inf;
    ++r;
  }
  for (const Pwl& w : pwl_)
    for (size_t s = 0; s < w.slope.size(); ++s, ++r) {
      gl[r] = -inf;
      gu[r] = -w.icept[s];
    }
}

void AcOpfModel::start(double* x) const {
  double va_ref = 0;
  for (int b = 0; b < nb_; ++b)
    if (c_.bus[b].type == 3) {
      va_ref = c_.bus[b].va_deg * kDeg;
      break;
    }
  for (int b = 0; b < nb_; ++b) {
    const Bus& bus = c_.bus[b];
    x[va(b)] = net_.bus_on()[b] ? va_ref : bus.va_deg * kDeg;
    x[vm(b)] = net_.bus_on()[b] ? 0.5 * (std::min(bus.vmax_pu, 1.5) + std::max(bus.vmin_pu, 0.5))
                                : bus.vm_pu;
  }
  // Mid-range, or one unit inside a one-sided bound (MATPOWER's MIPS start).
  auto mid = [](double lo, double hi) {
    if (std::isinf(lo) && std::isinf(hi)) return 0.0;
    if (std::isinf(lo)) return hi - 1;
    if (std::isinf(hi)) return lo + 1;
    return 0.5 * (lo + hi);
  };
  for (int k = 0; k < ng_; ++k) {
    const Gen& gen = c_.gen[gens_[k]];
    x[pg(k)] = mid(gen.pmin_mw, gen.pmax_mw) / c_.base_mva;
    x[qg(k)] = mid(gen.qmin_mvar / c_.base_mva, gen.qmax_mvar / c_.base_mva);
  }
  double ymax = -std::numeric_limits<double>::infinity();
  for (const Pwl& w : pwl_) ymax = std::max(ymax, c_.gencost[gens_[w.k]].coeffs.back());
  for (int y = 2 * nb_ + 2 * ng_; y < n_; ++y) x[y] = ymax + 0.1 * std::abs(ymax);
}

namespace {

/// Polynomial (highest order first) value, first and second derivative at p.
void poly(const std::vector<double>& c, double p, double& f, double& d1, double& d2) {
  f = d1 = d2 = 0;
  for (double ci : c) {
    d2 = d2 * p + 2 * d1;
    d1 = d1 * p + f;
    f = f * p + ci;
  }
}

}  // namespace

double AcOpfModel::f(const double* x) const {
  double obj = 0, f0, d1, d2;
  for (int k = 0; k < ng_; ++k) {
    poly(poly_[k], x[pg(k)] * c_.base_mva, f0, d1, d2);
    obj += f0;
  }
  for (int y = 2 * nb_ + 2 * ng_; y < n_; ++y) obj += x[y];
  return obj;
}

void AcOpfModel::grad_f(const double* x, double* grad) const {
  std::fill(grad, grad + n_, 0.0);
  double f0, d1, d2;
  for (int k = 0; k < ng_; ++k) {
    poly(poly_[k], x[pg(k)] * c_.base_mva, f0, d1, d2);
    grad[pg(k)] = d1 * c_.base_mva;
  }
  for (int y = 2 * nb_ + 2 * ng_; y < n_; ++y) grad[y] = 1;
}

Complex AcOpfModel::sf(const double* x, int l) const {
  const int f = c_.branch_from_idx[l], t = c_.branch_to_idx[l];
  const Complex vf = std::polar(x[vm(f)], x[va(f)]), vt = std::polar(x[vm(t)], x[va(t)]);
  const BranchAdmittance& y = net_.branch_y()[l];
  return vf * std::conj(y.yff * vf + y.yft * vt);
}

Complex AcOpfModel::st(const double* x, int l) const {
  const int f = c_.branch_from_idx[l], t = c_.branch_to_idx[l];
  const Complex vf = std::polar(x[vm(f)], x[va(f)]), vt = std::polar(x[vm(t)], x[va(t)]);
  const BranchAdmittance& y = net_.branch_y()[l];
  return vt * std::conj(y.ytf * vf + y.ytt * vt);
}

void AcOpfModel::g(const double* x, double* out) const {
  const auto& rp = net_.row_ptr();
  const auto& ci = net_.col_idx();
  const auto& y = net_.values();
  for (int b = 0; b < nb_; ++b) v_[b] = std::polar(x[vm(b)], x[va(b)]);
  for (int i = 0; i < nb_; ++i) {
    if (bal_row_[i] < 0) continue;
    Complex acc(0, 0);
    for (int k = rp[i]; k < rp[i + 1]; ++k) acc += y[k] * v_[ci[k]];
    const Complex s = v_[i] * std::conj(acc);
    out[p_row(i)] = s.real() + pd_pu_[i];
    out[q_row(i)] = s.imag() + qd_pu_[i];
  }
  for (int k = 0; k < ng_; ++k) {
    const int b = c_.gen_bus_idx[gens_[k]];
    out[p_row(b)] -= x[pg(k)];
    out[q_row(b)] -= x[qg(k)];
  }
  int r = 2 * n_bal_;
  for (int j = 0; j < n_lim_; ++j) {
    out[r + j] = std::norm(sf(x, rated_[j]));
    out[r + n_lim_ + j] = std::norm(st(x, rated_[j]));
  }
  r += 2 * n_lim_;
  for (int l : angle_br_) out[r++] = x[va(c_.branch_from_idx[l])] - x[va(c_.branch_to_idx[l])];
  for (const Pwl& w : pwl_) {
    const int yv = 2 * nb_ + 2 * ng_ + static_cast<int>(&w - pwl_.data());
    for (double s : w.slope) out[r++] = s * c_.base_mva * x[pg(w.k)] - x[yv];
  }
}

void AcOpfModel::build_jacobian() {
  const auto& rp = net_.row_ptr();
  const auto& ci = net_.col_idx();
  auto add = [&](int r, int col) {
    jac_row_.push_back(r);
    jac_col_.push_back(col);
  };
  for (int i = 0; i < nb_; ++i)  // slot 4k + {0,1,2,3}: (P,Va) (P,Vm) (Q,Va) (Q,Vm)
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
      add(p_row(i), va(ci[k]));
      add(p_row(i), vm(ci[k]));
      add(q_row(i), va(ci[k]));
      add(q_row(i), vm(ci[k]));
    }
  for (int k = 0; k < ng_; ++k) {
    const int b = c_.gen_bus_idx[gens_[k]];
    add(p_row(b), pg(k));
    add(q_row(b), qg(k));
  }
  for (int j = 0; j < n_lim_; ++j) {
    const int f = c_.branch_from_idx[rated_[j]], t = c_.branch_to_idx[rated_[j]];
    for (int e : {sf_row(j), st_row(j)}) {
      const bool from = e == sf_row(j);
      add(e, va(from ? f : t));
      add(e, va(from ? t : f));
      add(e, vm(from ? f : t));
      add(e, vm(from ? t : f));
    }
  }
  int r = 2 * n_bal_ + 2 * n_lim_;
  for (int l : angle_br_) {
    add(r, va(c_.branch_from_idx[l]));
    add(r, va(c_.branch_to_idx[l]));
    ++r;
  }
  for (const Pwl& w : pwl_) {
    const int yv = 2 * nb_ + 2 * ng_ + static_cast<int>(&w - pwl_.data());
    for (size_t s = 0; s < w.slope.size(); ++s, ++r) {
      add(r, pg(w.k));
      add(r, yv);
    }
  }
}

}  // namespace pz::grid
