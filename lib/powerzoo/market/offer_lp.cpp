// The offer SCED's own primal simplex (OfferLp): a few rows, dense, no allocation per solve.
#include "powerzoo/market/offer_lp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "powerzoo/market/clearing.hpp"

namespace pz::market {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kUnlimited = 1e10;  // RATE_A at or above this is unlimited (MATPOWER, DcOpf)
// Price of an elastic flow column ($/MWh): above any line's shadow price in these markets, so
// at an optimum the elastics are 0 whenever the ratings can be met (exact penalty). An optimum
// that still uses one goes to CLP, which relaxes the lines by its own rule.
constexpr double kElastic = 1e7;
constexpr double kDualTol = 1e-9;    // $/MWh: a reduced cost beyond this improves
constexpr double kPrimalTol = 1e-9;  // MW (relative to 1 + |bound|)
constexpr double kPivotTol = 1e-11;  // a direction entry below this does not block

}  // namespace

OfferLp::OfferLp(const OfferMarket& m) {
  const grid::Case& c = m.offer_case();
  nu_ = m.n_units();
  k_ = m.segments();
  nb_ = c.n_bus();
  nl_ = c.n_branch();
  std::vector<char> is_unit(c.n_gen(), 0);
  for (const OfferUnit& u : m.units()) is_unit[u.gen_row] = 1;
  usable_ = true;
  for (int g = 0; g < c.n_gen(); ++g) usable_ = usable_ && (is_unit[g] || c.gen[g].status <= 0);
  branch_on_.assign(nl_, 0);
  for (int l = 0; l < nl_; ++l) {
    const grid::Branch& br = c.branch[l];
    if (br.status <= 0) continue;
    branch_on_[l] = 1;
    if (br.shift_deg != 0.0) usable_ = false;  // phase shifters: CLP's model has their offsets
    const double rate = br.rate_a_mva;
    if (rate > 0 && rate < kUnlimited) {
      lim_.push_back(l);
      rate_.push_back(rate);
    }
  }
  m_ = 1 + static_cast<int>(lim_.size());
  if (m_ > kMaxRows) usable_ = false;
  if (!usable_) return;
  ptdf_ = grid::PtdfFlow(c, c.ref_bus_idx);  // DcOpf's PTDF (same slack, same construction)
  gs_.resize(nb_);
  for (int b = 0; b < nb_; ++b) gs_[b] = c.bus[b].gs_mw;
  unit_bus_.resize(nu_);
  xk_.resize(static_cast<size_t>(nu_) * (k_ + 1));
  for (int u = 0; u < nu_; ++u) {
    const int g = m.units()[u].gen_row;
    unit_bus_[u] = c.gen_bus_idx[g];
    const auto& q = c.gencost[g].coeffs;  // the curve CLP's epigraph rows are built from
    for (int s = 0; s <= k_; ++s) xk_[static_cast<size_t>(u) * (k_ + 1) + s] = q[2 * s];
  }
  unit_order_.resize(nu_);
  std::iota(unit_order_.begin(), unit_order_.end(), 0);
  std::sort(unit_order_.begin(), unit_order_.end(),
            [&](int a, int b) { return m.units()[a].gen_row < m.units()[b].gen_row; });
  const int nlim = m_ - 1;
  ns_ = nu_ * k_;
  shed_ = ns_;
  elastic_ = ns_ + 2;
  logical_ = elastic_ + 2 * nlim;
  n_ = logical_ + m_;
  a_.assign(static_cast<size_t>(n_) * m_, 0.0);
  auto at = [&](int j, int i) -> double& { return a_[static_cast<size_t>(j) * m_ + i]; };
  for (int u = 0; u < nu_; ++u)
    for (int s = 0; s < k_; ++s) {
      const int j = u * k_ + s;
      at(j, 0) = 1.0;
      for (int r = 0; r < nlim; ++r) at(j, 1 + r) = ptdf_.at(lim_[r], unit_bus_[u]);
    }
  at(shed_, 0) = 1.0;  // shed and spill sit at the reference bus: no flow (zero PTDF column)
  at(shed_ + 1, 0) = -1.0;
  for (int r = 0; r < nlim; ++r) {
    at(elastic_ + 2 * r, 1 + r) = 1.0;
    at(elastic_ + 2 * r + 1, 1 + r) = -1.0;
  }
  for (int i = 0; i < m_; ++i) at(logical_ + i, i) = -1.0;
  lb_.resize(n_);
  ub_.resize(n_);
  cost_.resize(n_);
  x_.resize(n_);
  st_.resize(n_);
  basis_.resize(m_);
  binv_.resize(static_cast<size_t>(m_) * m_);
  bwork_.resize(static_cast<size_t>(m_) * m_);
  pi_.resize(m_);
  w_.resize(m_);
  rhs_.resize(m_);
  inj_.resize(nb_);
  seg_order_.resize(ns_);
}

// Σ_j A_ij x_j over the structural and elastic columns (row i's activity before its logical).
double OfferLp::row_value(int i) const {
  double s = 0;
  for (int j = 0; j < logical_; ++j) s += a_[static_cast<size_t>(j) * m_ + i] * x_[j];
  return s;
}

// Merit-order start: segments by price (then index) filled up to the balance, the marginal one
// (or shed/spill) basic in the balance row; each flow row's logical basic, or its elastic column
// where the merit order overloads the line (so the start is feasible).
void OfferLp::crash(double demand) {
  for (int j = 0; j < n_; ++j) {
    x_[j] = lb_[j];
    st_[j] = Status::kLower;
  }
  // Insertion sort by (price, column): U·K is small, and std::stable_sort would allocate.
  for (int j = 0; j < ns_; ++j) {
    int i = j;
    for (; i > 0 && cost_[seg_order_[i - 1]] > cost_[j]; --i) seg_order_[i] = seg_order_[i - 1];
    seg_order_[i] = j;
  }
  double rest = demand;
  basis_[0] = -1;
  for (int j : seg_order_) {
    if (!(rest > 0)) break;
    if (!(ub_[j] > 0)) continue;
    if (rest > ub_[j]) {
      x_[j] = ub_[j];
      st_[j] = Status::kUpper;
      rest -= ub_[j];
    } else {
      basis_[0] = j;
      break;
    }
  }
  if (basis_[0] < 0) basis_[0] = rest >= 0 ? shed_ : shed_ + 1;
  st_[basis_[0]] = Status::kBasic;
  x_[basis_[0]] = basis_[0] == shed_ + 1 ? -rest : rest;
  x_[logical_] = demand;  // the balance logical is fixed at the demand above the floors
  for (int i = 1; i < m_; ++i) {
    const int r = logical_ + i;
    const double f = row_value(i);
    if (f > ub_[r]) {
      x_[r] = ub_[r];
      st_[r] = Status::kUpper;
      basis_[i] = elastic_ + 2 * (i - 1) + 1;
    } else if (f < lb_[r]) {
      basis_[i] = elastic_ + 2 * (i - 1);
    } else {
      basis_[i] = r;
    }
    st_[basis_[i]] = Status::kBasic;
  }
}

// B⁻¹ of the current basis by Gauss–Jordan with partial pivoting (m ≤ kMaxRows); false if
// singular.
bool OfferLp::invert_basis() {
  const int m = m_;
  for (int r = 0; r < m; ++r)
    for (int i = 0; i < m; ++i) {
      bwork_[i * m + r] = a_[static_cast<size_t>(basis_[r]) * m + i];
      binv_[i * m + r] = i == r ? 1.0 : 0.0;
    }
  for (int c = 0; c < m; ++c) {
    int p = c;
    for (int i = c + 1; i < m; ++i)
      if (std::abs(bwork_[i * m + c]) > std::abs(bwork_[p * m + c])) p = i;
    if (std::abs(bwork_[p * m + c]) < 1e-12) return false;
    if (p != c)
      for (int j = 0; j < m; ++j) {
        std::swap(bwork_[p * m + j], bwork_[c * m + j]);
        std::swap(binv_[p * m + j], binv_[c * m + j]);
      }
    const double inv = 1.0 / bwork_[c * m + c];
    for (int j = 0; j < m; ++j) {
      bwork_[c * m + j] *= inv;
      binv_[c * m + j] *= inv;
    }
    for (int i = 0; i < m; ++i) {
      if (i == c) continue;
      const double f = bwork_[i * m + c];
      if (f == 0.0) continue;
      for (int j = 0; j < m; ++j) {
        bwork_[i * m + j] -= f * bwork_[c * m + j];
        binv_[i * m + j] -= f * binv_[c * m + j];
      }
    }
  }
  return true;
}

// Runs the simplex from the crash basis; true at a verified optimum (x_, pi_ of its basis).
bool OfferLp::iterate() {
  const int m = m_;
  const int max_iter = 4 * (n_ + m) + 20;
  for (int it = 0; it <= max_iter; ++it) {
    if (!invert_basis()) return false;
    // x_B = B⁻¹·(−N·x_N); π = c_Bᵀ·B⁻¹.
    std::fill(rhs_.begin(), rhs_.end(), 0.0);
    for (int j = 0; j < n_; ++j) {
      if (st_[j] == Status::kBasic || x_[j] == 0.0) continue;
      const double* col = &a_[static_cast<size_t>(j) * m];
      for (int i = 0; i < m; ++i) rhs_[i] -= col[i] * x_[j];
    }
    for (int r = 0; r < m; ++r) {
      double v = 0;
      for (int i = 0; i < m; ++i) v += binv_[r * m + i] * rhs_[i];
      x_[basis_[r]] = v;
    }
    for (int i = 0; i < m; ++i) {
      double v = 0;
      for (int r = 0; r < m; ++r) v += cost_[basis_[r]] * binv_[r * m + i];
      pi_[i] = v;
    }
    // Pricing (Dantzig, lowest column on ties).
    int q = -1;
    double best = kDualTol;
    for (int j = 0; j < n_; ++j) {
      if (st_[j] == Status::kBasic || !(ub_[j] > lb_[j])) continue;
      const double* col = &a_[static_cast<size_t>(j) * m];
      double d = cost_[j];
      for (int i = 0; i < m; ++i) d -= pi_[i] * col[i];
      const double gain = st_[j] == Status::kLower ? -d : d;
      if (gain > best) {
        best = gain;
        q = j;
      }
    }
    if (q < 0) return true;
    // Ratio test with bound flips: x_q moves by σ·t, x_B by −σ·t·B⁻¹a_q.
    const double sigma = st_[q] == Status::kLower ? 1.0 : -1.0;
    const double* aq = &a_[static_cast<size_t>(q) * m];
    for (int r = 0; r < m; ++r) {
      double v = 0;
      for (int i = 0; i < m; ++i) v += binv_[r * m + i] * aq[i];
      w_[r] = -sigma * v;
    }
    double t = ub_[q] - lb_[q];
    int leave = -1;
    bool to_upper = false;
    for (int r = 0; r < m; ++r) {
      const int j = basis_[r];
      double lim;
      if (w_[r] < -kPivotTol)
        lim = (x_[j] - lb_[j]) / -w_[r];
      else if (w_[r] > kPivotTol && ub_[j] < kInf)
        lim = (ub_[j] - x_[j]) / w_[r];
      else
        continue;
      lim = std::max(lim, 0.0);
      if (lim < t || (leave >= 0 && lim == t && std::abs(w_[r]) > std::abs(w_[leave]))) {
        t = lim;
        leave = r;
        to_upper = w_[r] > 0;
      }
    }
    if (!(t < kInf)) return false;  // unbounded: not this LP (every cost is bounded below)
    if (leave < 0) {                // bound flip
      st_[q] = st_[q] == Status::kLower ? Status::kUpper : Status::kLower;
      x_[q] = st_[q] == Status::kLower ? lb_[q] : ub_[q];
      continue;
    }
    const int out = basis_[leave];
    st_[out] = to_upper ? Status::kUpper : Status::kLower;
    x_[out] = to_upper ? ub_[out] : lb_[out];
    x_[q] += sigma * t;
    st_[q] = Status::kBasic;
    basis_[leave] = q;
  }
  return false;  // iteration cap (cycling): CLP decides
}

// The final basis's point within every bound.
bool OfferLp::verified() const {
  for (int r = 0; r < m_; ++r) {
    const int j = basis_[r];
    if (x_[j] < lb_[j] - kPrimalTol * (1 + std::abs(lb_[j]))) return false;
    if (ub_[j] < kInf && x_[j] > ub_[j] + kPrimalTol * (1 + std::abs(ub_[j]))) return false;
  }
  return true;
}

bool OfferLp::elastics_zero() const {
  for (int j = elastic_; j < logical_; ++j)
    if (x_[j] > kPrimalTol) return false;
  return true;
}

bool OfferLp::solve(std::span<const double> bus_pd_mw, std::span<const double> prices,
                    ClearingResult& out, bool line_limits) {
  ratings_unmet_ = false;
  if (!usable_) return false;
  const int nlim = m_ - 1;
  // Fixed injections and their flows (DcOpf's fixed_flows, no phase shifters here).
  double demand = 0;
  for (int b = 0; b < nb_; ++b) {
    demand += bus_pd_mw[b] + gs_[b];
    inj_[b] = -bus_pd_mw[b] - gs_[b];
  }
  out.flow_mw.assign(nl_, 0.0);
  for (int l = 0; l < nl_; ++l)
    if (branch_on_[l]) out.flow_mw[l] = ptdf_.branch_flow(l, inj_.data(), 0.0);
  // Segment bounds: the part of each segment inside the window, above the window's floor.
  double floor_sum = 0;
  for (int u = 0; u < nu_; ++u) {
    const double lo = out.window_lo_mw[u], hi = out.window_hi_mw[u];
    const double* x = &xk_[static_cast<size_t>(u) * (k_ + 1)];
    const bool fixed = lo == hi;  // out of service, or a pinned window: no curve needed
    // CLP's epigraph extends the end segments beyond the curve: a window within rounding of the
    // curve's ends (x_K = x_0 + K·w need not be pmax to the last bit) stretches them; a window
    // further out is left to CLP.
    const double tol = 1e-9 * (1 + std::abs(x[0]) + std::abs(x[k_]));
    if (!fixed && (lo < x[0] - tol || hi > x[k_] + tol)) return false;
    floor_sum += lo;
    for (int s = 0; s < k_; ++s) {
      const int j = u * k_ + s;
      lb_[j] = 0;
      const double x0 = s == 0 ? std::min(x[0], lo) : x[s];
      const double x1 = s == k_ - 1 ? std::max(x[k_], hi) : x[s + 1];
      ub_[j] = fixed ? 0.0 : std::max(0.0, std::min(x1, hi) - std::max(x0, lo));
      cost_[j] = prices[j];
    }
  }
  for (int j = shed_; j < elastic_; ++j) {
    lb_[j] = 0;
    ub_[j] = kInf;
    cost_[j] = Clearing::kVoll;
  }
  for (int j = elastic_; j < logical_; ++j) {
    lb_[j] = 0;
    ub_[j] = kInf;
    cost_[j] = kElastic;
  }
  const double net = demand - floor_sum;
  lb_[logical_] = ub_[logical_] = net;
  cost_[logical_] = 0;
  for (int r = 0; r < nlim; ++r) {
    const int l = lim_[r];
    double at_floor = out.flow_mw[l];  // flow with every unit at its floor
    for (int u = 0; u < nu_; ++u)
      at_floor += a_[static_cast<size_t>(u * k_) * m_ + 1 + r] * out.window_lo_mw[u];
    const int j = logical_ + 1 + r;
    lb_[j] = line_limits ? -rate_[r] - at_floor : -kInf;
    ub_[j] = line_limits ? rate_[r] - at_floor : kInf;
    cost_[j] = 0;
  }
  crash(net);
  if (!iterate() || !verified()) return false;
  if (!elastics_zero()) {
    ratings_unmet_ = line_limits;
    return false;
  }
  // Without line limits a balance met by the pinned units alone leaves shed or spill basic at 0:
  // the LMP is then any price within ±VOLL, and CLP's choice is the path of record.
  if (!line_limits && basis_[0] >= shed_ && basis_[0] < elastic_ &&
      std::abs(x_[basis_[0]]) <= kPrimalTol)
    return false;
  // Dispatch, flows (DcOpf's order: base flow, then the units by gen row), LMPs from the duals.
  for (int u = 0; u < nu_; ++u) {
    double p = out.window_lo_mw[u];
    for (int s = 0; s < k_; ++s) p += x_[u * k_ + s];
    out.p_mw[u] = p;
  }
  for (int l = 0; l < nl_; ++l) {
    if (!branch_on_[l]) continue;
    for (int u : unit_order_)
      if (out.p_mw[u] != 0.0) out.flow_mw[l] += ptdf_.at(l, unit_bus_[u]) * out.p_mw[u];
  }
  // A row whose logical is basic has dual 0 exactly (its rounding would leak into the LMPs).
  for (int r = 0; r < m_; ++r)
    if (basis_[r] > logical_) pi_[basis_[r] - logical_] = 0.0;
  out.lmp.assign(nb_, pi_[0]);
  for (int r = 0; r < nlim; ++r)
    if (pi_[1 + r] != 0.0) ptdf_.add_row(lim_[r], pi_[1 + r], out.lmp);
  out.unserved_mw = x_[shed_] - x_[shed_ + 1];
  out.status = grid::DcOpfStatus::kOptimal;
  return true;
}

}  // namespace pz::market
