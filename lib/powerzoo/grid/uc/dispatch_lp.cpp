// DispatchLp: dense dual simplex for the dispatch with soft line limits (see dispatch_lp.hpp).
#include "powerzoo/grid/uc/dispatch_lp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/dc/column_axpy.hpp"

namespace pz::grid {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// Primal feasibility (MW, relative to 1 + the bound) and the flow screen's tolerance: those of the
// lazy DC-OPF (dcopf_lazy.cpp), well inside CLP's primal tolerance (1e-7).
constexpr double kPrimalTol = 1e-9;
constexpr double kDualTol = 1e-9;    // reduced costs, relative to 1 + Σ|terms|
constexpr double kPivotTol = 1e-9;   // smallest |α_rj| a ratio test accepts
constexpr int kMaxIterations = 200;  // a warm-started row takes one or two; cycling goes to CLP

// Σ_i v_i·A[i, j] over rows i < m of DispatchLp's layout (see DispatchLp::entry): a unit column's
// m entries (ucol [nu x kMaxRows], unit-major), the other columns' one ±1.
double col_dot(const double* ucol, int nu, int m, int j, const double* v) {
  if (j < nu) {
    const double* a = ucol + static_cast<size_t>(j) * DispatchLp::kMaxRows;
    double s = 0;
    for (int i = 0; i < m; ++i) s += a[i] * v[i];
    return s;
  }
  if (j < nu + 2) return j == nu ? v[0] : -v[0];
  const int k = j - nu - 2;
  return k % 3 == 2 ? v[k / 3] : -v[k / 3];
}
}  // namespace

DispatchLp::DispatchLp(const PtdfFlow& ptdf, std::vector<int> unit_bus,
                       std::vector<double> base_load, std::vector<double> rating, double voll,
                       double overload_price)
    : nu_(static_cast<int>(unit_bus.size())),
      nl_(ptdf.n_branch()),
      voll_(voll),
      price_(overload_price) {
  auto net = std::make_shared<Net>();
  net->rating = std::move(rating);
  if (static_cast<int>(base_load.size()) != ptdf.n_bus() ||
      static_cast<int>(net->rating.size()) != nl_)
    throw core::ConfigError("DispatchLp: expected " + std::to_string(ptdf.n_bus()) +
                            " bus loads and " + std::to_string(nl_) + " ratings, found " +
                            std::to_string(base_load.size()) + " and " +
                            std::to_string(net->rating.size()));
  for (int b : unit_bus)
    if (b < 0 || b >= ptdf.n_bus())
      throw core::ConfigError("DispatchLp: unit bus index " + std::to_string(b) + " outside 0.." +
                              std::to_string(ptdf.n_bus() - 1));
  // The same unit-major PTDF and base flows as MeritOrder, so the screens' flows are its bits.
  const std::vector<double> rows = ptdf.columns(unit_bus);
  net->g.resize(static_cast<size_t>(nu_) * nl_);
  for (int l = 0; l < nl_; ++l)
    for (int u = 0; u < nu_; ++u)
      net->g[static_cast<size_t>(u) * nl_ + l] = rows[static_cast<size_t>(l) * nu_ + u];
  net->flow_base.assign(nl_, 0.0);
  ptdf.flows(base_load, net->flow_base);
  net_ = std::move(net);
  for (double v : base_load) sum_base_ += v;
  ucol_.assign(static_cast<size_t>(nu_) * kMaxRows, 0.0);
  for (int u = 0; u < nu_; ++u) ucol_[static_cast<size_t>(u) * kMaxRows] = 1.0;
  in_rows_.assign(nl_, 0);
}

DispatchLp::DispatchLp(const DispatchLp& intact, int k, const double* lodf_col)
    : DispatchLp(intact) {
  auto net = std::make_shared<Net>(*intact.net_);
  lodf_update(net->g, net->flow_base, nu_, nl_, k, lodf_col);
  net_ = std::move(net);
}

// Columns: units [0, nu), unserved nu, spilled nu + 1, then per row i the block nu + 2 + 3i of
// its logical (−e_i), overload (−e_i) and underload (+e_i); row 0's pair is fixed at 0.
double DispatchLp::entry(int j, int i) const {
  if (j < nu_) return ucol_[static_cast<size_t>(j) * kMaxRows + i];
  if (j < nu_ + 2) return i == 0 ? (j == nu_ ? 1.0 : -1.0) : 0.0;
  const int k = j - nu_ - 2;
  if (k / 3 != i) return 0.0;
  return k % 3 == 2 ? 1.0 : -1.0;
}

// The merit-order basis (MeritOrder::solve's order: cost, then index): units below the marginal
// one at their ceilings, above it at their floors, the marginal unit basic in the balance row —
// or the unserved (spilled) column when the ceilings cannot reach (the floors exceed) the load.
bool DispatchLp::start(double load_factor, std::span<const double> lo, std::span<const double> hi,
                       std::span<const double> cost) {
  cols_.clear();
  order_.clear();
  const double demand = sum_base_ * load_factor;
  double rest = demand;
  for (int u = 0; u < nu_; ++u) {
    if (!(std::abs(cost[u]) < voll_)) return false;
    if (hi[u] - lo[u] > 0.0) {
      cols_.push_back({lo[u], hi[u], cost[u], lo[u], At::kLower});
      order_.push_back(u);
    } else {
      const double p = std::min(lo[u], hi[u]);  // an inverted window is pinned to hi
      cols_.push_back({p, p, cost[u], p, At::kFixed});
    }
    rest -= cols_.back().x;
  }
  cols_.push_back({0.0, kInf, voll_, 0.0, At::kLower});  // unserved
  cols_.push_back({0.0, kInf, voll_, 0.0, At::kLower});  // spilled
  cols_.push_back({demand, demand, 0.0, demand, At::kFixed});
  cols_.push_back({0.0, 0.0, 0.0, 0.0, At::kFixed});
  cols_.push_back({0.0, 0.0, 0.0, 0.0, At::kFixed});
  std::sort(order_.begin(), order_.end(),
            [&](int a, int b) { return cost[a] < cost[b] || (cost[a] == cost[b] && a < b); });
  int basic = rest > 0 ? nu_ : nu_ + 1;
  for (int u : order_) {
    if (!(rest > 0)) break;
    const double room = cols_[u].hi - cols_[u].lo;
    if (room < rest) {
      cols_[u].at = At::kUpper;
      cols_[u].x = cols_[u].hi;
      rest -= room;
    } else {
      basic = u;
      rest = 0;
    }
  }
  if (basic == nu_ && !(rest > 0)) basic = nu_ + 1;  // no headroom and no load left
  cols_[basic].at = At::kBasic;
  for (int l : line_)
    if (l >= 0) in_rows_[l] = 0;
  line_.assign(1, -1);
  basis_.assign(1, basic);
  m_ = 1;
  return true;
}

void DispatchLp::add_row(int line) {
  const int i = m_++;
  line_.push_back(line);
  in_rows_[line] = 1;
  for (int u = 0; u < nu_; ++u)
    ucol_[static_cast<size_t>(u) * kMaxRows + i] = net_->g[static_cast<size_t>(u) * nl_ + line];
  const double mid = flow_load_ * net_->flow_base[line];  // G·p − mid is the flow
  const double r = net_->rating[line];
  cols_.push_back({mid - r, mid + r, 0.0, 0.0, At::kBasic});  // logical, basic: dual 0
  cols_.push_back({0.0, kInf, price_, 0.0, At::kLower});
  cols_.push_back({0.0, kInf, price_, 0.0, At::kLower});
  basis_.push_back(nu_ + 2 + 3 * i);
}

// B[i, k] = A[i, basis_k], written column by column: a unit column's m entries, the others'
// one ±1 (the values entry() gives, without its per-entry dispatch).
bool DispatchLp::factor() {
  const int m = m_;
  bmat_.assign(static_cast<size_t>(m) * m, 0.0);
  for (int k = 0; k < m; ++k) {
    const int j = basis_[k];
    if (j < nu_) {
      const double* a = &ucol_[static_cast<size_t>(j) * kMaxRows];
      for (int i = 0; i < m; ++i) bmat_[i * m + k] = a[i];
    } else {
      const int i = j < nu_ + 2 ? 0 : (j - nu_ - 2) / 3;
      bmat_[i * m + k] = entry(j, i);
    }
  }
  return lu_.factor(bmat_.data(), m);
}

void DispatchLp::primal_values() {
  const int m = m_;
  xb_.assign(m, 0.0);
  for (int j = 0; j < static_cast<int>(cols_.size()); ++j) {
    const Col& c = cols_[j];
    if (c.at == At::kBasic || c.x == 0.0) continue;
    if (j < nu_) {
      const double* a = &ucol_[static_cast<size_t>(j) * kMaxRows];
      for (int i = 0; i < m; ++i) xb_[i] -= a[i] * c.x;
    } else {
      const int i = j < nu_ + 2 ? 0 : (j - nu_ - 2) / 3;
      xb_[i] -= entry(j, i) * c.x;  // the column's one entry
    }
  }
  lu_.solve(xb_.data());
}

void DispatchLp::prices() {
  const int m = m_;
  pi_.resize(m);
  for (int i = 0; i < m; ++i) pi_[i] = cols_[basis_[i]].c;
  lu_.solve_transposed(pi_.data());
}

void DispatchLp::duals() {
  prices();
  d_.resize(cols_.size());
  for (int j = 0; j < static_cast<int>(cols_.size()); ++j) {
    const At at = cols_[j].at;
    d_[j] = at == At::kBasic || at == At::kFixed
                ? 0.0
                : cols_[j].c - col_dot(ucol_.data(), nu_, m_, j, pi_.data());
  }
}

int DispatchLp::leaving() const {
  int r = -1;
  double worst = 0;
  for (int k = 0; k < m_; ++k) {
    const Col& c = cols_[basis_[k]];
    const double v = xb_[k];
    const double below = (c.lo - v) / (1.0 + std::abs(c.lo));
    const double above = (v - c.hi) / (1.0 + std::abs(c.hi));
    const double e = std::max(below, above);
    if (e > kPrimalTol && e > worst) {
      worst = e;
      r = k;
    }
  }
  return r;
}

// Bounded dual ratio test with Harris' two passes: the leaving variable of row r goes to the
// bound it violates; a candidate j must move it there (α̃_rj > 0 at a lower bound, < 0 at an
// upper one, α̃ = ±α_r by the direction), and among the ratios |d_j / α_rj| within the relaxed
// minimum the largest |α_rj| enters (a stable pivot).
int DispatchLp::entering(int r) {
  const int m = m_;
  rho_.resize(m);
  double* rho = rho_.data();
  for (int i = 0; i < m; ++i) rho[i] = i == r ? 1.0 : 0.0;
  lu_.solve_transposed(rho);
  const double dir = xb_[r] < cols_[basis_[r]].lo ? -1.0 : 1.0;
  const int n = static_cast<int>(cols_.size());
  alpha_.resize(n);
  d_.resize(n);
  double* alpha = alpha_.data();
  double bound = kInf;
  for (int j = 0; j < n; ++j) {
    const Col& c = cols_[j];
    alpha[j] = 0.0;
    if (c.at == At::kBasic || c.at == At::kFixed) continue;
    const double a = dir * col_dot(ucol_.data(), nu_, m_, j, rho);
    alpha[j] = a;
    const bool ok = c.at == At::kLower ? a > kPivotTol : a < -kPivotTol;
    if (!ok) continue;
    // The reduced cost of a candidate only (the others' are never read): as duals() computes it.
    d_[j] = c.c - col_dot(ucol_.data(), nu_, m_, j, pi_.data());
    const double dj = c.at == At::kLower ? d_[j] : -d_[j];
    bound = std::min(bound, (std::max(dj, 0.0) + kDualTol * (1.0 + std::abs(c.c))) / std::abs(a));
  }
  int q = -1;
  double best = 0;
  for (int j = 0; j < n; ++j) {
    const Col& c = cols_[j];
    const double a = alpha[j];
    if (a == 0.0 || !(c.at == At::kLower ? a > kPivotTol : a < -kPivotTol)) continue;
    const double dj = c.at == At::kLower ? d_[j] : -d_[j];
    if (std::max(dj, 0.0) / std::abs(a) <= bound && std::abs(a) > best) {
      best = std::abs(a);
      q = j;
    }
  }
  return q;
}

// The current point into out (basic values from x_B, nonbasic at their bounds) with its flows,
// summed as MeritOrder sums them; every branch outside the rows that exceeds its rating (by the
// lazy DC-OPF's tolerance) enters as a row with its logical basic.
int DispatchLp::screen(MeritOrderResult& out) {
  out.p_mw.resize(nu_);
  for (int u = 0; u < nu_; ++u) out.p_mw[u] = cols_[u].x;
  for (int k = 0; k < m_; ++k)
    if (basis_[k] < nu_) out.p_mw[basis_[k]] = xb_[k];
  out.flow_mw.resize(nl_);
  double* flow = out.flow_mw.data();
  for (int l = 0; l < nl_; ++l) flow[l] = -flow_load_ * net_->flow_base[l];
  add_columns(net_->g.data(), static_cast<size_t>(nl_), out.p_mw.data(), nu_, flow, nl_);
  int added = 0;
  for (int l = 0; l < nl_; ++l) {
    if (in_rows_[l]) continue;
    const double r = net_->rating[l];
    if (std::abs(flow[l]) <= r + kPrimalTol * (1 + r)) continue;
    if (m_ == kMaxRows) return -1;
    add_row(l);
    ++added;
  }
  return added;
}

// Reduced-cost signs of the final basis (x_B is primal feasible when this is called).
bool DispatchLp::verified() const {
  for (int j = 0; j < static_cast<int>(cols_.size()); ++j) {
    const Col& c = cols_[j];
    if (c.at == At::kBasic || c.at == At::kFixed) continue;
    double scale = 1.0 + std::abs(c.c);
    if (j < nu_) {
      for (int i = 0; i < m_; ++i) scale += std::abs(pi_[i] * entry(j, i));
    } else {
      scale += std::abs(col_dot(ucol_.data(), nu_, m_, j, pi_.data()));  // one term
    }
    const double tol = kDualTol * scale;
    if (c.at == At::kLower ? d_[j] < -tol : d_[j] > tol) return false;
  }
  return true;
}

bool DispatchLp::solve(double load_factor, std::span<const double> lo, std::span<const double> hi,
                       std::span<const double> cost, MeritOrderResult& out) {
  iters_ = 0;
  out.status = MeritOrderStatus::kUnusable;
  if (static_cast<int>(lo.size()) != nu_ || static_cast<int>(hi.size()) != nu_ ||
      static_cast<int>(cost.size()) != nu_ || !std::isfinite(load_factor))
    return false;
  flow_load_ = load_factor;
  if (!start(load_factor, lo, hi, cost)) return false;
  for (;;) {
    for (;;) {  // dual simplex on the rows so far
      if (!factor()) return false;
      primal_values();
      const int r = leaving();
      if (r < 0) break;
      if (++iters_ > kMaxIterations) return false;
      prices();
      const int q = entering(r);
      if (q < 0) return false;  // dual unbounded: cannot happen with the slacks, leave it to CLP
      Col& p = cols_[basis_[r]];
      if (p.lo == p.hi) {
        p.at = At::kFixed;
        p.x = p.lo;
      } else if (xb_[r] < p.lo) {
        p.at = At::kLower;
        p.x = p.lo;
      } else {
        p.at = At::kUpper;
        p.x = p.hi;
      }
      cols_[q].at = At::kBasic;
      basis_[r] = q;
    }
    const int added = screen(out);
    if (added < 0) return false;
    if (added == 0) break;
  }
  duals();
  if (!verified()) return false;
  double x_unserved = cols_[nu_].x, x_spilled = cols_[nu_ + 1].x, overload = 0;
  for (int k = 0; k < m_; ++k) {
    const int j = basis_[k];
    if (j == nu_) x_unserved = xb_[k];
    if (j == nu_ + 1) x_spilled = xb_[k];
    if (j >= nu_ + 2 && (j - nu_ - 2) % 3 != 0) overload += xb_[k];
  }
  out.slack_mw = x_unserved - x_spilled;
  double obj = voll_ * (x_unserved + x_spilled) + price_ * overload;
  for (int u = 0; u < nu_; ++u) obj += cols_[u].c * out.p_mw[u];
  out.cost_usd_per_h = obj;
  out.status = MeritOrderStatus::kOptimal;
  return true;
}

}  // namespace pz::grid
