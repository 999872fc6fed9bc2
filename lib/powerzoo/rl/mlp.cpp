// Internal: tanh MLP forward/backward, one cblas_sgemm per matrix product on contiguous storage.
#include "powerzoo/rl/mlp.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

namespace pz::rl::detail {

namespace {

/// tanh in float32 without glibc's slow tanhf/expm1f path: odd Taylor series to x⁷ for
/// |x| < 0.125 (truncation < 1e-9 relative), else 1 − 2/(e^{2x} + 1) with x clamped to ±9
/// (tanh(9) rounds to 1 in float32); absolute error ≈ 1e-7.
inline float fast_tanh(float x) {
  if (std::abs(x) < 0.125f) {
    const float x2 = x * x;
    return x * (1.0f + x2 * (-1.0f / 3.0f + x2 * (2.0f / 15.0f + x2 * (-17.0f / 315.0f))));
  }
  const float xc = std::clamp(x, -9.0f, 9.0f);
  return 1.0f - 2.0f / (std::exp(2.0f * xc) + 1.0f);
}

}  // namespace

Mlp::Mlp(int in, const std::vector<int>& hidden, int out, int64_t offset)
    : in_(in), out_(out), offset_(offset) {
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
  const size_t need = static_cast<size_t>(B) * max_width_;
  if (ws.delta_a.size() < need) ws.delta_a.resize(need);
  if (ws.delta_b.size() < need) ws.delta_b.resize(need);
}

const float* Mlp::forward(const float* params, const float* x, int B, MlpWorkspace& ws) const {
  ensure(B, ws);
  const float* in = x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& l = layers_[i];
    float* y = ws.act[i].data();
    const float* b = params + l.b_off;
    for (int r = 0; r < B; ++r) std::copy(b, b + l.out, y + static_cast<size_t>(r) * l.out);
    if (B > 0) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, l.out, l.in, 1.0f, in, l.in,
                  params + l.w_off, l.out, 1.0f, y, l.out);
    }
    if (i + 1 < layers_.size()) {
      const size_t n = static_cast<size_t>(B) * l.out;
      for (size_t k = 0; k < n; ++k) y[k] = fast_tanh(y[k]);
    }
    in = y;
  }
  return ws.act.back().data();
}

void Mlp::backward(const float* params, const float* x, int B, const float* dout, MlpWorkspace& ws,
                   float* grad) const {
  const float* d = dout;
  bool use_a = true;
  for (size_t ii = layers_.size(); ii-- > 0;) {
    const Layer& l = layers_[ii];
    const float* xin = (ii == 0) ? x : ws.act[ii - 1].data();
    float* gw = grad + l.w_off;
    float* gb = grad + l.b_off;
    std::fill(gb, gb + l.out, 0.0f);
    if (B == 0) {
      std::fill(gw, gw + static_cast<int64_t>(l.in) * l.out, 0.0f);
      continue;
    }
    // dW [in, out] = X^T [in, B] · D [B, out]
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, l.in, l.out, B, 1.0f, xin, l.in, d, l.out,
                0.0f, gw, l.out);
    for (int r = 0; r < B; ++r) {
      const float* dr = d + static_cast<size_t>(r) * l.out;
      for (int o = 0; o < l.out; ++o) gb[o] += dr[o];
    }
    if (ii == 0) break;
    // dX [B, in] = D [B, out] · W^T [out, in], then through tanh: · (1 − h²)
    float* dn = use_a ? ws.delta_a.data() : ws.delta_b.data();
    use_a = !use_a;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, l.in, l.out, 1.0f, d, l.out,
                params + l.w_off, l.out, 0.0f, dn, l.in);
    const size_t n = static_cast<size_t>(B) * l.in;
    for (size_t k = 0; k < n; ++k) dn[k] *= 1.0f - xin[k] * xin[k];
    d = dn;
  }
}

}  // namespace pz::rl::detail
