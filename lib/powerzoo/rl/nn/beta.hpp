// Beta policy math (PowerZooJax's BoundedBetaPolicy): concentrations from head
// outputs, exact log-density and entropy with their derivatives, sampling and the mode.
#pragma once

#include "powerzoo/core/rng.hpp"

namespace pz::rl {

inline constexpr double kBetaMinConcentration = 1.0 + 1e-6;  ///< α, β clamp (reference)
inline constexpr double kBetaMaxConcentration = 20.0;
inline constexpr double kBetaUnitEps = 1e-6;  ///< u kept in [ε, 1 − ε] (log-density finite)

/// Concentration c = clamp(1 + softplus(x), 1 + 1e-6, 20) from a head output x; *dc = dc/dx
/// (sigmoid(x) inside the clamp, 0 where it clamps, as jnp.clip's gradient).
double beta_concentration(double x, double* dc);

/// log Beta(u; a, b) = (a − 1)·log u + (b − 1)·log(1 − u) − log B(a, b) for u ∈ (0, 1), with
/// ∂/∂a = log u − ψ(a) + ψ(a + b) and ∂/∂b = log(1 − u) − ψ(b) + ψ(a + b) into *da, *db when
/// non-null (ψ the digamma function).
double beta_log_prob(double a, double b, double u, double* da, double* db);

/// Differential entropy H = log B(a, b) − (a − 1)ψ(a) − (b − 1)ψ(b) + (a + b − 2)ψ(a + b), with
/// ∂H/∂a = −(a − 1)ψ'(a) + (a + b − 2)ψ'(a + b) (and symmetrically for b) into *da, *db.
double beta_entropy(double a, double b, double* da, double* db);

/// beta_log_prob and beta_entropy at once (shared log B and digammas), derivatives if grad.
struct BetaTerms {
  double log_prob = 0, entropy = 0;
  double dlp_da = 0, dlp_db = 0, dh_da = 0, dh_db = 0;
};
BetaTerms beta_terms(double a, double b, double u, bool grad);

/// u ~ Beta(a, b) for a, b ≥ 1 as X/(X + Y) with X ~ Gamma(a), Y ~ Gamma(b), each drawn by
/// Marsaglia & Tsang (2000) from rng's normals and uniforms; clipped to [ε, 1 − ε].
double sample_beta(double a, double b, core::Rng& rng);

/// The mode (a − 1)/max(a + b − 2, 1e-6), clipped to [ε, 1 − ε] (the deterministic action).
double beta_mode(double a, double b);

}  // namespace pz::rl
