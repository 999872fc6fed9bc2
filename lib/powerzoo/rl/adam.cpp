// Adam/AdamW step with optional global-norm clipping on flat float32 arrays (optax conventions).
#include <algorithm>
#include <cmath>

#include "powerzoo/rl/optimizer.hpp"

namespace pz::rl {

// optax chain: clip_by_global_norm(max_norm) → scale_by_adam(b1, b2, eps) → [add_decayed_weights
// (weight_decay)] → scale(−lr). Kingma & Ba 2015; Loshchilov & Hutter 2019 (decoupled decay).
double adam_step(std::vector<float>& params, std::vector<float>& grad, std::vector<float>& m,
                 std::vector<float>& v, int64_t step, double lr, double b1, double b2, double eps,
                 double weight_decay, double max_norm) {
  const size_t n = params.size();
  double sq = 0.0;
  for (size_t i = 0; i < n; ++i) sq += double(grad[i]) * double(grad[i]);
  const double norm = std::sqrt(sq);
  if (max_norm > 0.0 && norm > max_norm) {
    // optax clip_by_global_norm: g · max_norm / max(‖g‖, max_norm)
    const double scale = max_norm / norm;
    for (size_t i = 0; i < n; ++i) grad[i] = static_cast<float>(double(grad[i]) * scale);
  }
  const double c1 = 1.0 - std::pow(b1, double(step));
  const double c2 = 1.0 - std::pow(b2, double(step));
  for (size_t i = 0; i < n; ++i) {
    const double g = grad[i];
    const double mi = b1 * double(m[i]) + (1.0 - b1) * g;
    const double vi = b2 * double(v[i]) + (1.0 - b2) * g * g;
    m[i] = static_cast<float>(mi);
    v[i] = static_cast<float>(vi);
    double u = (mi / c1) / (std::sqrt(vi / c2) + eps);
    if (weight_decay != 0.0) u += weight_decay * double(params[i]);
    params[i] = static_cast<float>(double(params[i]) - lr * u);
  }
  return norm;
}

}  // namespace pz::rl
