// Internal: tanh MLP forward/backward, one cblas_sgemm per matrix product on contiguous storage.
#include "powerzoo/rl/mlp.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

namespace pz::rl::detail {

namespace {

/// tanh in float32 as a branch-free rational minimax approximation (the [13/6] form Eigen uses,
/// input clamped to ±7.905 where it rounds to ±1): max abs error 4e-7 against double tanh over
/// [−12, 12]. Branch-free so the activation loop vectorizes; glibc's tanhf/expf were ~30 % of an
/// update.
inline float fast_tanh(float x) {
  const float c = 7.90531110763549805f;
  const float xc = std::min(std::max(x, -c), c);
  const float x2 = xc * xc;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  return xc * p / q;
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
