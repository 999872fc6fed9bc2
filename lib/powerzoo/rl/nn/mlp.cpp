// Internal: tanh / ReLU MLP forward/backward; matrix products through xtensor-blas (one sgemm per
// product on the contiguous buffers), elementwise work as xsimd-vectorized xtensor expressions.
#include "powerzoo/rl/nn/mlp.hpp"

#include <algorithm>
#include <cmath>

#include "powerzoo/rl/nn/tensor_impl.hpp"

namespace pz::rl::detail {

namespace {

/// Row r of dX through the activation, fused with the bias gradient of the layer below, in xsimd
/// batches: the backward visits every row once, and an xtensor expression per row of 64 values
/// cost more in its setup than in its arithmetic. With w (rank one, out = 1) the row is d_r·w^T
/// first. tanh: dr ← dr·(1 − h²); ReLU: dr ← [h > 0]·dr. Then gb += dr (add) or gb = dr (init).
/// Elementwise in float, the same operations in the same order as the expressions they replace,
/// so a lane or the scalar tail gives the same bits.
void activation_grad_row(float* dr, const float* h, size_t n, const float* w, float d_r, bool tanh,
                         float* add, float* init) {
  using batch = xsimd::batch<float>;
  constexpr size_t W = batch::size;
  const batch zero(0.0f), one(1.0f), db(d_r);
  size_t i = 0;
  for (; i + W <= n; i += W) {
    const batch hb = batch::load_unaligned(h + i);
    const batch x =
        w != nullptr ? db * batch::load_unaligned(w + i) : batch::load_unaligned(dr + i);
    const batch y = tanh ? x * (one - hb * hb) : xsimd::select(hb > zero, x, zero);
    y.store_unaligned(dr + i);
    if (add != nullptr) (batch::load_unaligned(add + i) + y).store_unaligned(add + i);
    if (init != nullptr) y.store_unaligned(init + i);
  }
  for (; i < n; ++i) {
    const float x = w != nullptr ? d_r * w[i] : dr[i];
    const float y = tanh ? x * (1.0f - h[i] * h[i]) : (h[i] > 0.0f ? x : 0.0f);
    dr[i] = y;
    if (add != nullptr) add[i] += y;
    if (init != nullptr) init[i] = y;
  }
}

/// backward's ping-pong deltas [B, max width]: scratch of the calling thread, fully written before
/// it is read, so no result depends on it. One pair per thread rather than one per workspace: a
/// learner keeps a workspace per row block (60 blocks of 1,024 rows on GenCos IPPO), and deltas
/// of their own were cold in cache at every backward; OpenBLAS's β = 0 zeroing of the dX product
/// then ran at memory speed (3.4 % of the GenCos IPPO update in a steady-state profile).
float* delta_scratch(int which, size_t n) {
  thread_local std::vector<float> buf[2];
  if (buf[which].size() < n) buf[which].resize(n);
  return buf[which].data();
}

}  // namespace

Mlp::Mlp(int in, const std::vector<int>& hidden, int out, int64_t offset, Activation activation)
    : activation_(activation), in_(in), out_(out), offset_(offset) {
  int prev = in;
  int64_t off = offset;
  max_width_ = in;
  auto add = [&](int width) {
    Layer l;
    l.in = prev;
    l.out = width;
    l.w_off = off;
    off += static_cast<int64_t>(prev) * width;
    l.b_off = off;
    off += width;
    layers_.push_back(l);
    max_width_ = std::max(max_width_, width);
    prev = width;
  };
  for (int h : hidden) add(h);
  add(out);
  n_params_ = off - offset;
}

void Mlp::init(float* params, core::Rng& rng, float out_scale) const {
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& l = layers_[i];
    const double limit = std::sqrt(3.0 / l.in);
    const double scale = (i + 1 == layers_.size()) ? out_scale : 1.0;
    float* w = params + l.w_off;
    for (int64_t k = 0; k < static_cast<int64_t>(l.in) * l.out; ++k) {
      w[k] = static_cast<float>((2.0 * rng.uniform() - 1.0) * limit * scale);
    }
    std::fill(params + l.b_off, params + l.b_off + l.out, 0.0f);
  }
}

void Mlp::ensure(int B, MlpWorkspace& ws) const {
  ws.act.resize(layers_.size());
  for (size_t i = 0; i < layers_.size(); ++i) {
    const size_t need = static_cast<size_t>(B) * layers_[i].out;
    if (ws.act[i].size() < need) ws.act[i].resize(need);
  }
}

const float* Mlp::forward(const float* params, const float* x, int B, MlpWorkspace& ws) const {
  ensure(B, ws);
  const size_t nb = static_cast<size_t>(B);
  const float* in = x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& l = layers_[i];
    auto y = mat(ws.act[i].data(), nb, l.out);
    if (B > 0) {
      // Y [B, out] = 1·b^T (rows of the bias), then Y += X [B, in] · W [in, out].
      const float* b = params + l.b_off;
      for (size_t r = 0; r < nb; ++r) copy_row(b, l.out, ws.act[i].data() + r * l.out);
      gemm(mat(in, nb, l.in), mat(params + l.w_off, l.in, l.out), y, false, false, 1.0f);
      if (i + 1 < layers_.size()) {
        if (activation_ == Activation::kTanh) {
          xt::noalias(y) = tanh_expr(y);
        } else {
          xt::noalias(y) = xt::maximum(y, 0.0f);
        }
      }
    }
    in = y.data();
  }
  return ws.act.back().data();
}

void Mlp::gather_rows(const MlpWorkspace& src, const int* rows, int n, MlpWorkspace& dst) const {
  ensure(n, dst);
  for (size_t i = 0; i + 1 < layers_.size(); ++i) {
    const size_t w = static_cast<size_t>(layers_[i].out);
    for (int r = 0; r < n; ++r)
      std::copy_n(src.act[i].data() + static_cast<size_t>(rows[r]) * w, w,
                  dst.act[i].data() + static_cast<size_t>(r) * w);
  }
}

void Mlp::backward(const float* params, const float* x, int B, const float* dout, MlpWorkspace& ws,
                   float* grad, float* dx_out, int dx_from) const {
  const size_t nb = static_cast<size_t>(B);
  if (B == 0) {
    for (const Layer& l : layers_) {
      if (grad == nullptr) break;
      vec(grad + l.w_off, static_cast<size_t>(l.in) * l.out).fill(0.0f);
      vec(grad + l.b_off, l.out).fill(0.0f);
    }
    return;
  }
  const float* d = dout;
  const size_t need = nb * static_cast<size_t>(max_width_);
  float* const delta[2] = {delta_scratch(0, need), delta_scratch(1, need)};
  bool use_a = true;
  bool db_done = false;  // layer ii's bias gradient was summed in the pass that wrote d
  const bool tanh = activation_ == Activation::kTanh;
  for (size_t ii = layers_.size(); ii-- > 0;) {
    const Layer& l = layers_[ii];
    const float* xin = (ii == 0) ? x : ws.act[ii - 1].data();
    if (grad != nullptr) {
      // dW [in, out] = X^T [in, B] · D [B, out]; db [out] = D^T [out, B] · 1 [B].
      auto gw = mat(grad + l.w_off, l.in, l.out);
      gemm(mat(xin, nb, l.in), mat(d, nb, l.out), gw, true, false, 0.0f);
      // db as a sum of rows in row order, each row one vectorized add. (Neither xt::sum, whose
      // lane split follows the alignment of d, nor OpenBLAS sgemv, whose results were seen to
      // vary between runs with a pool of workers, is reproducible bit for bit.)
      if (!db_done) {
        auto gb = vec(grad + l.b_off, l.out);
        xt::noalias(gb) = vec(d, l.out);
        for (size_t r = 1; r < nb; ++r) gb += vec(d + r * l.out, l.out);
      }
    }
    if (ii == 0) {
      if (dx_out != nullptr) {  // dLoss/dx = D · W0^T: the input has no activation
        // Columns dx_from… of dx are D times the rows dx_from… of W0 (row-major [in, out]).
        const size_t cols = static_cast<size_t>(l.in - dx_from);
        auto dx = mat(dx_out, nb, cols);
        gemm(mat(d, nb, l.out),
             mat(params + l.w_off + static_cast<size_t>(dx_from) * l.out, cols, l.out), dx, false,
             true, 0.0f);
      }
      break;
    }
    // dX [B, in] = D [B, out] · W^T [out, in], then through the activation: · (1 − h²) for tanh,
    // · [h > 0] for ReLU. Row by row, each finished row is added at once into the bias gradient
    // of layer ii − 1 (the same row-order sum, one pass over dX instead of two).
    float* dn = use_a ? delta[0] : delta[1];
    use_a = !use_a;
    float* gbn = grad != nullptr ? grad + layers_[ii - 1].b_off : nullptr;
    const bool rank_one = l.out == 1;  // row r of dX is d_r·w^T, fused with the derivative
    if (!rank_one) {
      auto dx = mat(dn, nb, l.in);
      gemm(mat(d, nb, l.out), mat(params + l.w_off, l.in, l.out), dx, false, true, 0.0f);
    }
    const float* w = params + l.w_off;
    const size_t in = static_cast<size_t>(l.in);
    for (size_t r = 0; r < nb; ++r)
      activation_grad_row(dn + r * in, xin + r * in, in, rank_one ? w : nullptr, d[r], tanh,
                          r == 0 ? nullptr : gbn, r == 0 ? gbn : nullptr);
    db_done = gbn != nullptr;
    d = dn;
  }
}

}  // namespace pz::rl::detail
