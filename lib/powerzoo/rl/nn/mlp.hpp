// Internal: tanh or ReLU MLP over a flat float32 parameter array, batched forward/backward
// (xtensor-blas products, vectorized elementwise work; see mlp.cpp). No xtensor in this header.
#pragma once

#include <cstdint>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/rl/config.hpp"

namespace pz::rl::detail {

/// One affine layer y = x·W + b; W is [in, out] row-major at params + w_off, b is [out] at b_off.
struct Layer {
  int in = 0, out = 0;
  int64_t w_off = 0, b_off = 0;
};

/// Activation buffers for one Mlp at a given batch size. Buffers only grow, so reusing a
/// workspace at a constant batch size never allocates. (backward's delta buffers are not here:
/// they are scratch of the calling thread, see mlp.cpp.)
struct MlpWorkspace {
  std::vector<std::vector<float>>
      act;  ///< act[i]: output of layer i, [B, out_i] (post-activation if hidden)
};

/// MLP with tanh (or ReLU) hidden layers and a linear output layer. Holds only the layout
/// (offsets into a flat parameter array shared with other networks); parameters and gradients
/// are passed in.
class Mlp {
 public:
  Mlp() = default;
  /// Layout in → hidden… → out starting at flat offset `offset` (W0, b0, W1, b1, …).
  Mlp(int in, const std::vector<int>& hidden, int out, int64_t offset,
      Activation activation = Activation::kTanh);

  int in_dim() const { return in_; }
  int out_dim() const { return out_; }
  int64_t offset() const { return offset_; }
  int64_t n_params() const { return n_params_; }
  const std::vector<Layer>& layers() const { return layers_; }

  /// LeCun-uniform weights U(±sqrt(3/fan_in)) drawn layer by layer, row-major, from rng; zero
  /// biases; the output layer's weights are multiplied by out_scale.
  void init(float* params, core::Rng& rng, float out_scale) const;

  /// Forward pass on x [B, in] → returns a pointer to the output [B, out] inside ws.
  const float* forward(const float* params, const float* x, int B, MlpWorkspace& ws) const;

  /// Backward pass after forward(params, x, B, ws): dout [B, out] is dLoss/dOutput. Writes (does
  /// not accumulate) dLoss/dParams into grad at this network's offsets (grad == nullptr: no
  /// parameter gradient; x is then not read) and, if dx != nullptr, dLoss/dx into dx: the input
  /// columns dx_from … in − 1 only, [B, in − dx_from].
  void backward(const float* params, const float* x, int B, const float* dout, MlpWorkspace& ws,
                float* grad, float* dx = nullptr, int dx_from = 0) const;

  /// Copies rows[0..n) of src's hidden activations (a forward's workspace) into dst, sized for
  /// n rows, so that backward(…, n, …, dst, …) runs on those rows alone.
  void gather_rows(const MlpWorkspace& src, const int* rows, int n, MlpWorkspace& dst) const;

 private:
  void ensure(int B, MlpWorkspace& ws) const;
  Activation activation_ = Activation::kTanh;
  int in_ = 0, out_ = 0, max_width_ = 0;
  int64_t offset_ = 0, n_params_ = 0;
  std::vector<Layer> layers_;
};

}  // namespace pz::rl::detail
