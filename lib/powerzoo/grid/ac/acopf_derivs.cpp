// AcOpfModel derivatives: constraint Jacobian values and the exact Hessian of the Lagrangian
// (power balance through Ybus pair terms, squared branch flows through the chain rule).
#include <algorithm>
#include <cmath>

#include "powerzoo/grid/ac/acopf_model.hpp"

namespace pz::grid {

namespace {

/// T = w·vi² + vi·vk·(a·cos δ + b·sin δ), δ = θi − θk, over the variables (θi, θk, vi, vk):
/// value, gradient and the lower-triangle Hessian (00, 10, 11, 20, 21, 22, 30, 31, 32, 33).
struct Pair {
  double val = 0, grad[4] = {}, hess[10] = {};
};

Pair pair(double w, double a, double b, double th_i, double th_k, double v_i, double v_k) {
  const double c = std::cos(th_i - th_k), s = std::sin(th_i - th_k);
  const double f = a * c + b * s, fp = -a * s + b * c, vv = v_i * v_k;
  Pair p;
  p.val = w * v_i * v_i + vv * f;
  p.grad[0] = vv * fp;
  p.grad[1] = -vv * fp;
  p.grad[2] = 2 * w * v_i + v_k * f;
  p.grad[3] = v_i * f;
  const double h[10] = {-vv * f, vv * f,   -vv * f,   v_k * fp, -v_k * fp,
                        2 * w,   v_i * fp, -v_i * fp, f,        0.0};
  std::copy(h, h + 10, p.hess);
  return p;
}

constexpr int kTri[4][4] = {{0, 1, 3, 6}, {1, 2, 4, 7}, {3, 4, 5, 8}, {6, 7, 8, 9}};

/// ∇(P² + Q²) and the lower-triangle ∇²(P² + Q²) of a branch end's flow.
void squared(const Pair& p, const Pair& q, double grad[4], double hess[10]) {
  for (int a = 0; a < 4; ++a) grad[a] = 2 * (p.val * p.grad[a] + q.val * q.grad[a]);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b <= a; ++b)
      hess[kTri[a][b]] = 2 * (p.grad[a] * p.grad[b] + p.val * p.hess[kTri[a][b]] +
                              q.grad[a] * q.grad[b] + q.val * q.hess[kTri[a][b]]);
}

/// From-end (from = true) or to-end flow of branch y as (P, Q) pairs over (θi, θk, vi, vk),
/// i the end's own bus.
void end_flow(const BranchAdmittance& y, bool from, double th_i, double th_k, double v_i,
              double v_k, Pair& p, Pair& q) {
  const Complex yii = from ? y.yff : y.ytt, yik = from ? y.yft : y.ytf;
  p = pair(yii.real(), yik.real(), yik.imag(), th_i, th_k, v_i, v_k);
  q = pair(-yii.imag(), -yik.imag(), yik.real(), th_i, th_k, v_i, v_k);
}

int ypos(const AcNetwork& net, int i, int k) {
  const auto first = net.col_idx().begin() + net.row_ptr()[i];
  const auto last = net.col_idx().begin() + net.row_ptr()[i + 1];
  return static_cast<int>(std::lower_bound(first, last, k) - net.col_idx().begin());
}

}  // namespace

void AcOpfModel::jac_values(const double* x, double* val) const {
  const auto& rp = net_.row_ptr();
  const auto& ci = net_.col_idx();
  const auto& y = net_.values();
  for (int b = 0; b < nb_; ++b) v_[b] = std::polar(x[vm(b)], x[va(b)]);
  const Complex jj(0, 1);
  for (int i = 0; i < nb_; ++i) {
    if (bal_row_[i] < 0) continue;
    Complex acc(0, 0);
    for (int k = rp[i]; k < rp[i + 1]; ++k) acc += y[k] * v_[ci[k]];
    cur_[i] = acc;
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
      const int j = ci[k];
      const Complex vn = std::polar(1.0, x[va(j)]);
      Complex ds_dth, ds_dvm;
      if (j == i) {
        ds_dth = jj * v_[i] * std::conj(acc - y[k] * v_[i]);
        ds_dvm = v_[i] * std::conj(y[k] * vn) + std::conj(acc) * vn;
      } else {
        ds_dth = -jj * v_[i] * std::conj(y[k] * v_[j]);
        ds_dvm = v_[i] * std::conj(y[k] * vn);
      }
      val[4 * k + 0] = ds_dth.real();
      val[4 * k + 1] = ds_dvm.real();
      val[4 * k + 2] = ds_dth.imag();
      val[4 * k + 3] = ds_dvm.imag();
    }
  }
  int e = 4 * rp[nb_];
  for (int k = 0; k < 2 * ng_; ++k) val[e++] = -1.0;
  for (int j = 0; j < n_lim_; ++j) {
    const int l = rated_[j], f = c_.branch_from_idx[l], t = c_.branch_to_idx[l];
    for (bool from : {true, false}) {
      const int i = from ? f : t, k = from ? t : f;
      Pair p, q;
      end_flow(net_.branch_y()[l], from, x[va(i)], x[va(k)], x[vm(i)], x[vm(k)], p, q);
      double grad[4], hess[10];
      squared(p, q, grad, hess);
      for (int a = 0; a < 4; ++a) val[e++] = grad[a];
    }
  }
  for (size_t a = 0; a < angle_br_.size(); ++a) {
    val[e++] = 1.0;
    val[e++] = -1.0;
  }
  for (const Pwl& w : pwl_)
    for (double s : w.slope) {
      val[e++] = s * c_.base_mva;
      val[e++] = -1.0;
    }
}

AcOpfModel::Block AcOpfModel::block(int i, int k, int e, int et) const {
  const int di = net_.diag_pos()[i], dk = net_.diag_pos()[k];
  return Block{{hs_aa_[di], hs_aa_[e], hs_aa_[dk], hs_va_[di], hs_va_[e], hs_vv_[di], hs_va_[et],
                hs_va_[dk], hs_vv_[e], hs_vv_[dk]}};
}

void AcOpfModel::build_hessian() {
  const auto& rp = net_.row_ptr();
  const auto& ci = net_.col_idx();
  const int nnz = rp[nb_];
  hs_aa_.assign(nnz, -1);
  hs_vv_.assign(nnz, -1);
  hs_va_.assign(nnz, -1);
  auto add = [&](int r, int col) {
    hess_row_.push_back(r);
    hess_col_.push_back(col);
    return static_cast<int>(hess_row_.size()) - 1;
  };
  for (int i = 0; i < nb_; ++i)
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
      const int j = ci[k];
      if (i >= j) {
        hs_aa_[k] = add(va(i), va(j));
        hs_vv_[k] = add(vm(i), vm(j));
      }
      hs_va_[k] = add(vm(i), va(j));
    }
  for (int i = 0; i < nb_; ++i)  // the upper entries share their transpose's slot
    for (int k = rp[i]; k < rp[i + 1]; ++k)
      if (i < ci[k]) {
        const int kt = ypos(net_, ci[k], i);
        hs_aa_[k] = hs_aa_[kt];
        hs_vv_[k] = hs_vv_[kt];
      }
  hs_pg_.resize(ng_);
  for (int k = 0; k < ng_; ++k) hs_pg_[k] = add(pg(k), pg(k));
}

void AcOpfModel::hess_values(const double* x, double sigma, const double* lambda,
                             double* val) const {
  std::fill(val, val + nnz_hess(), 0.0);
  const auto& rp = net_.row_ptr();
  const auto& ci = net_.col_idx();
  const auto& y = net_.values();
  for (int k = 0; k < ng_; ++k) {
    double f0 = 0, d1 = 0, d2 = 0;
    const double p = x[pg(k)] * c_.base_mva;
    for (double cf : poly_[k]) {
      d2 = d2 * p + 2 * d1;
      d1 = d1 * p + f0;
      f0 = f0 * p + cf;
    }
    val[hs_pg_[k]] += sigma * d2 * c_.base_mva * c_.base_mva;
  }
  // Σ_i λP_i·P_i + λQ_i·Q_i = Σ_(i,k) vi·vk·(a cos θik + b sin θik) with a = λP·G − λQ·B,
  // b = λP·B + λQ·G, plus vi²·(λP·G_ii − λQ·B_ii) on the diagonal.
  for (int i = 0; i < nb_; ++i) {
    if (bal_row_[i] < 0) continue;
    const double lp = lambda[p_row(i)], lq = lambda[q_row(i)];
    for (int e = rp[i]; e < rp[i + 1]; ++e) {
      const int k = ci[e];
      const double gk = y[e].real(), bk = y[e].imag();
      if (k == i) {
        val[hs_vv_[e]] += 2 * (lp * gk - lq * bk);
        continue;
      }
      const Pair t =
          pair(0.0, lp * gk - lq * bk, lp * bk + lq * gk, x[va(i)], x[va(k)], x[vm(i)], x[vm(k)]);
      const Block bl = block(i, k, e, ypos(net_, k, i));
      for (int s = 0; s < 10; ++s) val[bl.s[s]] += t.hess[s];
    }
  }
  for (int j = 0; j < n_lim_; ++j) {
    const int l = rated_[j], f = c_.branch_from_idx[l], t = c_.branch_to_idx[l];
    const int* pos = &net_.branch_pos()[4 * static_cast<size_t>(l)];
    for (bool from : {true, false}) {
      const double mu = lambda[from ? sf_row(j) : st_row(j)];
      if (mu == 0.0) continue;
      const int i = from ? f : t, k = from ? t : f;
      Pair p, q;
      end_flow(net_.branch_y()[l], from, x[va(i)], x[va(k)], x[vm(i)], x[vm(k)], p, q);
      double grad[4], hess[10];
      squared(p, q, grad, hess);
      const Block bl = from ? block(f, t, pos[1], pos[2]) : block(t, f, pos[2], pos[1]);
      for (int s = 0; s < 10; ++s) val[bl.s[s]] += mu * hess[s];
    }
  }
}

}  // namespace pz::grid
