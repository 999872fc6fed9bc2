// SAC's fused optimizer pass: the row blocks' gradients added, the pre-clip norm, the
// element-wise clamp and the Adam step over one chunk of the parameters at a time, on the pool.
#include <algorithm>
#include <cmath>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/rl/nn/tensor_impl.hpp"
#include "powerzoo/rl/sac/sac_impl.hpp"

namespace pz::rl {
namespace {

/// detail::sum_squares reduces pieces of this many entries in float lanes and adds them in double;
/// chunks start at multiples of it, so each piece's partial sum is the one sum_squares forms.
constexpr size_t kNormPiece = 1024;
/// Parameters from which the pass is split over the pool (the reduction's threshold).
constexpr size_t kMinParallelPass = 4096;

}  // namespace

// The same bytes as reduce() then optimize() (clamp, then adam_step without global clipping):
//  - each entry's sum over blocks is taken in block order, whatever chunk holds it;
//  - the norm: sum_squares(g, P) adds, in order, the float-lane sum of each 1024-entry piece and
//    then, one by one, the squares of the last P mod W entries (W the SIMD width). Here each piece
//    is summed by sum_squares itself on its whole batches of W (exactly that float-lane sum), the
//    last entries are kept before the clamp, and both are added in the same order afterwards;
//  - the clamp and the Adam update are element-wise, with adam_step's expressions and constants
//    (optax scale_by_adam, eps outside the square root, no weight decay).
double SacLearner::Impl::reduce_optimize(int nb, std::vector<float> SacBlock::*which,
                                         std::vector<float>& p, std::vector<float>& g,
                                         std::vector<float>& m, std::vector<float>& v,
                                         int64_t& step) {
  constexpr size_t W = xsimd::batch<float>::size;
  const size_t P = p.size(), n_pieces = (P + kNormPiece - 1) / kNormPiece;
  const size_t tail_begin = P - P % W;
  norm_parts.assign(n_pieces, 0.0);
  norm_tail.assign(P - tail_begin, 0.0f);
  ++step;
  const double b1 = 0.9, b2 = 0.999;  // adam_step's β as optimize() passes them
  const float c1 = static_cast<float>(1.0 - std::pow(b1, double(step)));
  const float c2 = static_cast<float>(1.0 - std::pow(b2, double(step)));
  const float fb1 = static_cast<float>(b1), fb2 = static_cast<float>(b2);
  const float feps = static_cast<float>(ppo.adam_eps), flr = static_cast<float>(ppo.learning_rate);
  const float wd = 0.0f;
  const float clip = static_cast<float>(ppo.max_grad_norm);
  const int nc = pool != nullptr && P >= kMinParallelPass ? static_cast<int>(pool->size()) : 1;
  run(nc, [&](size_t c) {
    // Chunk bounds on piece boundaries: a piece (and its norm part) belongs to one chunk.
    const size_t k0 = n_pieces * c / nc, k1 = n_pieces * (c + 1) / nc;
    const size_t lo = k0 * kNormPiece, hi = std::min(P, k1 * kNormPiece);
    if (hi <= lo) return;
    const size_t len = hi - lo;
    auto gv = detail::vec(g.data() + lo, len);
    for (int b = 1; b < nb; ++b) gv += detail::vec((blocks[b].*which).data() + lo, len);
    for (size_t k = k0; k < k1; ++k) {
      const size_t a = k * kNormPiece, e = std::min(P, a + kNormPiece);
      norm_parts[k] = detail::sum_squares(g.data() + a, std::min(e, tail_begin) - std::min(a, e));
      if (e > tail_begin) std::copy(g.data() + tail_begin, g.data() + e, norm_tail.data());
    }
    if (clip > 0) xt::noalias(gv) = xt::clip(gv, -clip, clip);
    auto pv = detail::vec(p.data() + lo, len);
    auto mv = detail::vec(m.data() + lo, len);
    auto vv = detail::vec(v.data() + lo, len);
    xt::noalias(mv) = fb1 * mv + (1.0f - fb1) * gv;
    xt::noalias(vv) = fb2 * vv + (1.0f - fb2) * gv * gv;
    xt::noalias(pv) = pv - flr * ((mv / c1) / (xt::sqrt(vv / c2) + feps) + wd * pv);
  });
  double total = 0.0;
  for (double part : norm_parts) total += part;
  for (float x : norm_tail) total += static_cast<double>(x) * x;
  return std::sqrt(total);
}

}  // namespace pz::rl
