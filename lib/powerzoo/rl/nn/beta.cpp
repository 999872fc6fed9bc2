// Beta policy math: log-gamma, digamma and trigamma from Boost.Math; gamma variates by
// Marsaglia–Tsang squeeze-and-reject.
#include "powerzoo/rl/nn/beta.hpp"

#include <algorithm>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>

namespace pz::rl {
namespace {

// Double precision throughout: Boost's default promotes double to long double (x87), which is
// several times slower and buys nothing at α, β ∈ [1, 20].
using Policy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
double lgamma(double x) { return boost::math::lgamma(x, Policy()); }
double digamma(double x) { return boost::math::digamma(x, Policy()); }
double trigamma(double x) { return boost::math::trigamma(x, Policy()); }

double clip_unit(double u) { return std::clamp(u, kBetaUnitEps, 1.0 - kBetaUnitEps); }

double log_beta_fn(double a, double b) { return lgamma(a) + lgamma(b) - lgamma(a + b); }

// Gamma(k, 1) for k ≥ 1 (Marsaglia & Tsang 2000, "A simple method for generating gamma
// variables"): d = k − 1/3, c = 1/sqrt(9d); accept d·v, v = (1 + c·x)³, x normal, when
// log U < x²/2 + d − d·v + d·log v.
double sample_gamma(double k, core::Rng& rng) {
  const double d = k - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = rng.normal();
    const double t = 1.0 + c * x;
    if (t <= 0.0) continue;
    const double v = t * t * t;
    const double u = rng.uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

}  // namespace

double beta_concentration(double x, double* dc) {
  const double softplus = x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  const double c = 1.0 + softplus;
  const bool inside = c > kBetaMinConcentration && c < kBetaMaxConcentration;
  if (dc != nullptr) *dc = inside ? 1.0 / (1.0 + std::exp(-x)) : 0.0;
  return std::clamp(c, kBetaMinConcentration, kBetaMaxConcentration);
}

double beta_log_prob(double a, double b, double u, double* da, double* db) {
  const double lu = std::log(u), l1u = std::log1p(-u);
  if (da != nullptr || db != nullptr) {
    const double psi_ab = digamma(a + b);
    if (da != nullptr) *da = lu - digamma(a) + psi_ab;
    if (db != nullptr) *db = l1u - digamma(b) + psi_ab;
  }
  return (a - 1.0) * lu + (b - 1.0) * l1u - log_beta_fn(a, b);
}

double beta_entropy(double a, double b, double* da, double* db) {
  const double s = a + b;
  if (da != nullptr || db != nullptr) {
    const double t_ab = trigamma(s);
    if (da != nullptr) *da = -(a - 1.0) * trigamma(a) + (s - 2.0) * t_ab;
    if (db != nullptr) *db = -(b - 1.0) * trigamma(b) + (s - 2.0) * t_ab;
  }
  return log_beta_fn(a, b) - (a - 1.0) * digamma(a) - (b - 1.0) * digamma(b) +
         (s - 2.0) * digamma(s);
}

BetaTerms beta_terms(double a, double b, double u, bool grad) {
  BetaTerms t;
  const double s = a + b, lu = std::log(u), l1u = std::log1p(-u), log_b = log_beta_fn(a, b);
  const double pa = digamma(a), pb = digamma(b), ps = digamma(s);
  t.log_prob = (a - 1.0) * lu + (b - 1.0) * l1u - log_b;
  t.entropy = log_b - (a - 1.0) * pa - (b - 1.0) * pb + (s - 2.0) * ps;
  if (grad) {
    const double ts = trigamma(s);
    t.dlp_da = lu - pa + ps, t.dlp_db = l1u - pb + ps;
    t.dh_da = -(a - 1.0) * trigamma(a) + (s - 2.0) * ts;
    t.dh_db = -(b - 1.0) * trigamma(b) + (s - 2.0) * ts;
  }
  return t;
}

double sample_beta(double a, double b, core::Rng& rng) {
  const double x = sample_gamma(a, rng);
  const double y = sample_gamma(b, rng);
  return clip_unit(x / (x + y));
}

double beta_mode(double a, double b) { return clip_unit((a - 1.0) / std::max(a + b - 2.0, 1e-6)); }

}  // namespace pz::rl
