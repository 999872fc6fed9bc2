// AcOpf: Ipopt (TNLP interface) driver of the AC-OPF model: options, warm starts, and results in
// MATPOWER's naming.
#include "powerzoo/grid/ac/acopf.hpp"

#include <IpIpoptApplication.hpp>
#include <IpSolveStatistics.hpp>
#include <IpTNLP.hpp>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>

#include "powerzoo/grid/ac/acopf_model.hpp"

namespace pz::grid {

namespace {

constexpr double kInf = 1e20;  // Ipopt treats |bound| >= 1e19 as infinite
constexpr double kDeg = std::numbers::pi / 180.0;

// Ipopt's default linear solver (MUMPS, sequential) keeps Fortran state that is not safe to enter
// from two threads at once, so solves are serialized; results do not depend on the order.
std::mutex& ipopt_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

const char* to_string(AcOpfStatus s) {
  switch (s) {
    case AcOpfStatus::kOptimal:
      return "optimal";
    case AcOpfStatus::kInfeasible:
      return "infeasible";
    case AcOpfStatus::kMaxIter:
      return "max_iter";
    case AcOpfStatus::kFailed:
      return "failed";
    case AcOpfStatus::kBadInput:
      return "bad_input";
  }
  return "unknown";
}

namespace {

/// The model, its bounds and the last solution (the warm start) that the TNLP reads and writes.
struct OpfState {
  explicit OpfState(const Case& c) : model(c) {
    const int n = model.n(), m = model.m();
    for (auto* v : {&xl, &xu, &x, &zl, &zu}) v->resize(n);
    for (auto* v : {&gl, &gu, &lam}) v->resize(m);
    pd.resize(c.n_bus());
    qd.resize(c.n_bus());
  }
  AcOpfModel model;
  std::vector<double> xl, xu, gl, gu;  // bounds
  std::vector<double> x, zl, zu, lam;  // last solution
  bool have_warm = false, warm_now = false;
  Ipopt::SolverReturn ret = Ipopt::INTERNAL_ERROR;
  std::vector<double> pd, qd;
};

}  // namespace

struct AcOpf::Impl {
  explicit Impl(const Case& c) : s(c) {
    app = IpoptApplicationFactory();
    app->Options()->SetStringValue("sb", "yes");
    app->Options()->SetIntegerValue("print_level", 0);
    app->Initialize();
  }
  OpfState s;
  Ipopt::SmartPtr<Ipopt::IpoptApplication> app;
};

namespace {

/// The AcOpfModel as an Ipopt TNLP; the solution lands in the Impl's x / zl / zu / lam.
class Nlp final : public Ipopt::TNLP {
 public:
  explicit Nlp(OpfState& s) : s_(s) {}
  using Index = Ipopt::Index;
  using Number = Ipopt::Number;

  bool get_nlp_info(Index& n, Index& m, Index& nnz_jac, Index& nnz_h,
                    IndexStyleEnum& style) override {
    n = s_.model.n();
    m = s_.model.m();
    nnz_jac = s_.model.nnz_jac();
    nnz_h = s_.model.nnz_hess();
    style = C_STYLE;
    return true;
  }
  bool get_bounds_info(Index, Number* xl, Number* xu, Index, Number* gl, Number* gu) override {
    std::copy(s_.xl.begin(), s_.xl.end(), xl);
    std::copy(s_.xu.begin(), s_.xu.end(), xu);
    std::copy(s_.gl.begin(), s_.gl.end(), gl);
    std::copy(s_.gu.begin(), s_.gu.end(), gu);
    return true;
  }
  bool get_starting_point(Index n, bool init_x, Number* x, bool init_z, Number* zl, Number* zu,
                          Index m, bool init_l, Number* lam) override {
    if (init_x) {
      if (s_.warm_now) {
        std::copy(s_.x.begin(), s_.x.end(), x);
      } else {
        s_.model.start(x);
      }
    }
    if (init_z) {
      std::copy(s_.zl.begin(), s_.zl.begin() + n, zl);
      std::copy(s_.zu.begin(), s_.zu.begin() + n, zu);
    }
    if (init_l) std::copy(s_.lam.begin(), s_.lam.begin() + m, lam);
    return true;
  }
  bool eval_f(Index, const Number* x, bool, Number& f) override {
    f = s_.model.f(x);
    return std::isfinite(f);
  }
  bool eval_grad_f(Index, const Number* x, bool, Number* g) override {
    s_.model.grad_f(x, g);
    return true;
  }
  bool eval_g(Index, const Number* x, bool, Index, Number* g) override {
    s_.model.g(x, g);
    return true;
  }
  bool eval_jac_g(Index, const Number* x, bool, Index, Index nele, Index* row, Index* col,
                  Number* val) override {
    if (!val) {
      std::copy(s_.model.jac_rows().begin(), s_.model.jac_rows().end(), row);
      std::copy(s_.model.jac_cols().begin(), s_.model.jac_cols().end(), col);
      return nele == s_.model.nnz_jac();
    }
    s_.model.jac_values(x, val);
    return true;
  }
  bool eval_h(Index, const Number* x, bool, Number sigma, Index, const Number* lam, bool,
              Index nele, Index* row, Index* col, Number* val) override {
    if (!val) {
      std::copy(s_.model.hess_rows().begin(), s_.model.hess_rows().end(), row);
      std::copy(s_.model.hess_cols().begin(), s_.model.hess_cols().end(), col);
      return nele == s_.model.nnz_hess();
    }
    s_.model.hess_values(x, sigma, lam, val);
    return true;
  }
  void finalize_solution(Ipopt::SolverReturn status, Index n, const Number* x, const Number* zl,
                         const Number* zu, Index m, const Number*, const Number* lam, Number,
                         const Ipopt::IpoptData*, Ipopt::IpoptCalculatedQuantities*) override {
    s_.ret = status;
    std::copy(x, x + n, s_.x.begin());
    std::copy(zl, zl + n, s_.zl.begin());
    std::copy(zu, zu + n, s_.zu.begin());
    std::copy(lam, lam + m, s_.lam.begin());
  }

 private:
  OpfState& s_;
};

AcOpfStatus map_status(Ipopt::SolverReturn r) {
  switch (r) {
    case Ipopt::SUCCESS:
    case Ipopt::STOP_AT_ACCEPTABLE_POINT:
      return AcOpfStatus::kOptimal;
    case Ipopt::LOCAL_INFEASIBILITY:
      return AcOpfStatus::kInfeasible;
    case Ipopt::MAXITER_EXCEEDED:
      return AcOpfStatus::kMaxIter;
    default:
      return AcOpfStatus::kFailed;
  }
}

const char* describe(Ipopt::SolverReturn r) {
  switch (r) {
    case Ipopt::SUCCESS:
      return "Ipopt: optimal";
    case Ipopt::STOP_AT_ACCEPTABLE_POINT:
      return "Ipopt: solved to the acceptable level";
    case Ipopt::LOCAL_INFEASIBILITY:
      return "Ipopt: converged to a point of local infeasibility";
    case Ipopt::MAXITER_EXCEEDED:
      return "Ipopt: maximum number of iterations exceeded";
    case Ipopt::RESTORATION_FAILURE:
      return "Ipopt: restoration phase failed";
    case Ipopt::ERROR_IN_STEP_COMPUTATION:
      return "Ipopt: error in step computation";
    case Ipopt::DIVERGING_ITERATES:
      return "Ipopt: diverging iterates";
    case Ipopt::INVALID_NUMBER_DETECTED:
      return "Ipopt: invalid number in a function value";
    default:
      return "Ipopt: failed";
  }
}

}  // namespace

AcOpf::AcOpf(const Case& c) : impl_(std::make_unique<Impl>(c)) {}
AcOpf::~AcOpf() = default;
AcOpf::AcOpf(AcOpf&&) noexcept = default;
AcOpf& AcOpf::operator=(AcOpf&&) noexcept = default;
const Case& AcOpf::case_data() const { return impl_->s.model.case_data(); }
void AcOpf::reset_warm_start() { impl_->s.have_warm = false; }

AcOpfResult AcOpf::solve(const AcOpfOptions& opt) {
  AcOpfResult r;
  solve_into({}, {}, opt, r);
  return r;
}

void AcOpf::solve_into(std::span<const double> pd_mw, std::span<const double> qd_mvar,
                       const AcOpfOptions& opt, AcOpfResult& out) {
  OpfState& s = impl_->s;
  const Case& c = s.model.case_data();
  const size_t nb = c.bus.size();
  out = AcOpfResult{};
  bool ok = (pd_mw.empty() || pd_mw.size() == nb) && (qd_mvar.empty() || qd_mvar.size() == nb);
  for (size_t b = 0; ok && b < nb; ++b) {
    s.pd[b] = pd_mw.empty() ? c.bus[b].pd_mw : pd_mw[b];
    s.qd[b] = qd_mvar.empty() ? c.bus[b].qd_mvar : qd_mvar[b];
    ok = std::isfinite(s.pd[b]) && std::isfinite(s.qd[b]);
  }
  if (!ok) {
    out.status = AcOpfStatus::kBadInput;
    out.message = "loads: expected " + std::to_string(nb) + " finite values per vector";
    return;
  }
  s.model.set_loads(s.pd, s.qd);
  s.model.bounds(s.xl.data(), s.xu.data(), s.gl.data(), s.gu.data(), kInf);
  s.warm_now = opt.warm_start && s.have_warm;
  auto& o = *impl_->app->Options();
  o.SetNumericValue("tol", opt.tol);
  o.SetNumericValue("constr_viol_tol", opt.tol);
  o.SetNumericValue("compl_inf_tol", opt.tol);
  o.SetIntegerValue("max_iter", opt.max_iter);
  o.SetIntegerValue("print_level", opt.print_level);
  o.SetStringValue("warm_start_init_point", s.warm_now ? "yes" : "no");
  if (s.warm_now) {
    o.SetNumericValue("warm_start_bound_push", 1e-9);
    o.SetNumericValue("warm_start_mult_bound_push", 1e-9);
    o.SetNumericValue("mu_init", 1e-6);
  } else {
    o.SetNumericValue("mu_init", 0.1);
  }
  Ipopt::ApplicationReturnStatus app_status;
  {
    std::lock_guard<std::mutex> lock(ipopt_mutex());
    Ipopt::SmartPtr<Ipopt::TNLP> nlp = new Nlp(s);
    s.ret = Ipopt::INTERNAL_ERROR;
    app_status = impl_->app->OptimizeTNLP(nlp);
    if (Ipopt::SmartPtr<Ipopt::SolveStatistics> st = impl_->app->Statistics(); Ipopt::IsValid(st))
      out.iterations = st->IterationCount();
  }
  (void)app_status;
  out.status = map_status(s.ret);
  out.warm_started = s.warm_now;
  if (!out.ok()) {
    out.message = describe(s.ret);
    s.have_warm = false;
    return;
  }
  s.have_warm = true;
  const AcOpfModel& m = s.model;
  const double base = c.base_mva;
  const double* x = s.x.data();
  out.objective = m.f(x);
  out.bus_vm_pu.resize(nb);
  out.bus_va_deg.resize(nb);
  out.bus_lam_p.assign(nb, 0.0);
  out.bus_lam_q.assign(nb, 0.0);
  out.bus_mu_vmax.assign(nb, 0.0);
  out.bus_mu_vmin.assign(nb, 0.0);
  for (size_t b = 0; b < nb; ++b) {
    out.bus_vm_pu[b] = x[m.vm(b)];
    out.bus_va_deg[b] = x[m.va(b)] / kDeg;
    if (m.p_row(b) < 0) continue;
    out.bus_lam_p[b] = s.lam[m.p_row(b)] / base;
    out.bus_lam_q[b] = s.lam[m.q_row(b)] / base;
    out.bus_mu_vmax[b] = s.zu[m.vm(b)];
    out.bus_mu_vmin[b] = s.zl[m.vm(b)];
  }
  const size_t ng = c.gen.size(), nl = c.branch.size();
  for (auto* v : {&out.gen_pg_mw, &out.gen_qg_mvar, &out.gen_mu_pmax, &out.gen_mu_pmin,
                  &out.gen_mu_qmax, &out.gen_mu_qmin})
    v->assign(ng, 0.0);
  for (size_t k = 0; k < m.gens().size(); ++k) {
    const int g = m.gens()[k];
    out.gen_pg_mw[g] = x[m.pg(k)] * base;
    out.gen_qg_mvar[g] = x[m.qg(k)] * base;
    out.gen_mu_pmax[g] = s.zu[m.pg(k)] / base;
    out.gen_mu_pmin[g] = s.zl[m.pg(k)] / base;
    out.gen_mu_qmax[g] = s.zu[m.qg(k)] / base;
    out.gen_mu_qmin[g] = s.zl[m.qg(k)] / base;
  }
  for (auto* v : {&out.branch_pf_mw, &out.branch_qf_mvar, &out.branch_pt_mw, &out.branch_qt_mvar,
                  &out.branch_mu_sf, &out.branch_mu_st})
    v->assign(nl, 0.0);
  for (size_t l = 0; l < nl; ++l) {
    if (!m.net().branch_on()[l]) continue;
    const Complex sf = m.sf(x, l) * base, st = m.st(x, l) * base;
    out.branch_pf_mw[l] = sf.real();
    out.branch_qf_mvar[l] = sf.imag();
    out.branch_pt_mw[l] = st.real();
    out.branch_qt_mvar[l] = st.imag();
    out.total_losses_mw += sf.real() + st.real();
  }
  for (size_t j = 0; j < m.rated().size(); ++j) {
    const int l = m.rated()[j];
    const double k = 2 * c.branch[l].rate_a_mva / (base * base);  // MATPOWER: d|S|²/d|S| → per MVA
    out.branch_mu_sf[l] = k * s.lam[m.sf_row(j)];
    out.branch_mu_st[l] = k * s.lam[m.st_row(j)];
  }
}

}  // namespace pz::grid
