// Optimizer of the learners: Adam/AdamW on flat parameter arrays with global-norm clipping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pz::core {
class ThreadPool;
}

namespace pz::rl {

/// Parameters from which adam_step splits its elementwise update over the pool.
inline constexpr std::size_t kMinParallelAdam = 4096;

/// Adam/AdamW step on flat arrays (exposed for tests): global-norm clipping of g at max_norm
/// (0 = off) happens before; with elementwise, each entry of g is clamped to ±max_norm instead
/// (optax.clip, as Rejax's PPO). Bias-corrected, eps outside the sqrt (optax convention).
/// step is the 1-based step count after increment. Returns the pre-clip global norm. With a
/// pool, the elementwise update runs in one chunk per thread (same result for any thread count).
double adam_step(std::vector<float>& params, std::vector<float>& grad, std::vector<float>& m,
                 std::vector<float>& v, int64_t step, double lr, double b1, double b2, double eps,
                 double weight_decay, double max_norm, core::ThreadPool* pool = nullptr,
                 bool elementwise = false);

}  // namespace pz::rl
