// Adam/AdamW step with optional global-norm clipping on flat float32 arrays (optax conventions),
// as xsimd-vectorized xtensor expressions over adaptors of the arrays.
#include <cmath>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/rl/nn/optimizer.hpp"
#include "powerzoo/rl/nn/tensor_impl.hpp"

namespace pz::rl {

// optax chain: clip_by_global_norm(max_norm) → scale_by_adam(b1, b2, eps) → [add_decayed_weights
// (weight_decay)] → scale(−lr). Kingma & Ba 2015; Loshchilov & Hutter 2019 (decoupled decay).
// Moments and update in float32; the squared norm accumulates in double.
double adam_step(std::vector<float>& params, std::vector<float>& grad, std::vector<float>& m,
                 std::vector<float>& v, int64_t step, double lr, double b1, double b2, double eps,
                 double weight_decay, double max_norm, core::ThreadPool* pool, bool elementwise) {
  const size_t n = params.size();
  const double norm = std::sqrt(detail::sum_squares(grad.data(), n));
  const float clip = !elementwise && max_norm > 0.0 && norm > max_norm
                         ? static_cast<float>(max_norm / norm)  // optax clip_by_global_norm
                         : 1.0f;
  const float c1 = static_cast<float>(1.0 - std::pow(b1, double(step)));
  const float c2 = static_cast<float>(1.0 - std::pow(b2, double(step)));
  const float fb1 = static_cast<float>(b1), fb2 = static_cast<float>(b2);
  const float feps = static_cast<float>(eps), flr = static_cast<float>(lr);
  const float wd = static_cast<float>(weight_decay);
  const float clamp = elementwise && max_norm > 0.0 ? static_cast<float>(max_norm) : 0.0f;
  // Elementwise from here on, so the chunks (and which thread runs them) do not change a bit.
  const size_t nc = pool != nullptr && n >= kMinParallelAdam ? pool->size() : 1;
  auto chunk = [&](size_t c) {
    const size_t lo = n * c / nc, len = n * (c + 1) / nc - lo;
    auto p = detail::vec(params.data() + lo, len);
    auto g = detail::vec(grad.data() + lo, len);
    auto mv = detail::vec(m.data() + lo, len);
    auto vv = detail::vec(v.data() + lo, len);
    if (clip != 1.0f) g *= clip;
    if (clamp > 0.0f) xt::noalias(g) = xt::clip(g, -clamp, clamp);  // optax.clip
    xt::noalias(mv) = fb1 * mv + (1.0f - fb1) * g;
    xt::noalias(vv) = fb2 * vv + (1.0f - fb2) * g * g;
    xt::noalias(p) = p - flr * ((mv / c1) / (xt::sqrt(vv / c2) + feps) + wd * p);
  };
  if (nc > 1) {
    pool->run_blocks(nc, chunk);
  } else {
    chunk(0);
  }
  return norm;
}

}  // namespace pz::rl
