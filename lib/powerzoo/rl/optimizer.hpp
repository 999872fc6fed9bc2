// Optimizer of the learners: Adam/AdamW on flat parameter arrays with global-norm clipping.
#pragma once

#include <cstdint>
#include <vector>

namespace pz::rl {

/// Adam/AdamW step on flat arrays (exposed for tests): global-norm clipping of g at max_norm
/// (0 = off) happens before. Bias-corrected, eps outside the sqrt (optax convention).
/// step is the 1-based step count after increment. Returns the pre-clip global norm.
double adam_step(std::vector<float>& params, std::vector<float>& grad, std::vector<float>& m,
                 std::vector<float>& v, int64_t step, double lr, double b1, double b2, double eps,
                 double weight_decay, double max_norm);

}  // namespace pz::rl
