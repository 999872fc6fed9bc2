// Tests for the MLP's backward pass: its delta buffers are scratch of the calling thread
// (rl/nn/mlp.cpp), shared by every network and workspace that thread runs.
#include <doctest/doctest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/rl/nn/mlp.hpp"
#include "same_bits.hpp"

using pz::core::Rng;
using pz::rl::detail::Mlp;
using pz::rl::detail::MlpWorkspace;
using pz::test::same_bits;

namespace {

struct Net {
  Mlp mlp;
  std::vector<float> params, x, dout;
  int B = 0;
};

Net make_net(int in, std::vector<int> hidden, int out, int B, uint64_t seed) {
  Net n{Mlp(in, hidden, out, 0), {}, {}, {}, B};
  Rng rng(seed, 0);
  n.params.resize(static_cast<size_t>(n.mlp.n_params()));
  n.mlp.init(n.params.data(), rng, 1.0f);
  for (auto& p : n.params) p += static_cast<float>(0.1 * rng.normal());  // non-zero biases
  n.x.resize(static_cast<size_t>(B) * in);
  n.dout.resize(static_cast<size_t>(B) * out);
  for (auto& v : n.x) v = static_cast<float>(rng.normal());
  for (auto& v : n.dout) v = static_cast<float>(rng.normal());
  return n;
}

/// dLoss/dParams followed by dLoss/dx, from a forward and backward on a fresh workspace.
std::vector<float> grads(const Net& n) {
  MlpWorkspace ws;
  n.mlp.forward(n.params.data(), n.x.data(), n.B, ws);
  std::vector<float> g(static_cast<size_t>(n.mlp.n_params()));
  std::vector<float> dx(static_cast<size_t>(n.B) * n.mlp.in_dim());
  n.mlp.backward(n.params.data(), n.x.data(), n.B, n.dout.data(), ws, g.data(), dx.data());
  g.insert(g.end(), dx.begin(), dx.end());
  return g;
}

}  // namespace

TEST_SUITE("rl") {
  TEST_CASE("Mlp::backward on a rank-one head: dx and the first bias gradient by hand") {
    // 1 → [2] → 1, tanh, one row: y = v·tanh(w·x + b) + c with w = (0.5, −1), b = (0.1, 0.2),
    // v = (2, 3), c = 0; dout = 1. h = tanh(w·x + b); dL/db_j = v_j (1 − h_j²); dL/dx = Σ_j w_j ·
    // v_j (1 − h_j²).
    Mlp m(1, {2}, 1, 0);
    // Layout: W0 [1, 2], b0 [2], W1 [2, 1], b1 [1].
    std::vector<float> p = {0.5f, -1.0f, 0.1f, 0.2f, 2.0f, 3.0f, 0.0f};
    const float x = 0.7f, dout = 1.0f;
    MlpWorkspace ws;
    m.forward(p.data(), &x, 1, ws);
    std::vector<float> g(p.size());
    float dx = 0;
    m.backward(p.data(), &x, 1, &dout, ws, g.data(), &dx);
    const double h0 = std::tanh(0.5 * 0.7 + 0.1), h1 = std::tanh(-1.0 * 0.7 + 0.2);
    CHECK(g[2] == doctest::Approx(2.0 * (1 - h0 * h0)).epsilon(1e-6));
    CHECK(g[3] == doctest::Approx(3.0 * (1 - h1 * h1)).epsilon(1e-6));
    CHECK(g[0] == doctest::Approx(0.7 * 2.0 * (1 - h0 * h0)).epsilon(1e-6));
    CHECK(g[4] == doctest::Approx(h0).epsilon(1e-6));
    CHECK(g[6] == doctest::Approx(1.0).epsilon(1e-6));
    CHECK(dx ==
          doctest::Approx(0.5 * 2.0 * (1 - h0 * h0) - 1.0 * 3.0 * (1 - h1 * h1)).epsilon(1e-6));
  }

  // Guards the per-thread delta scratch: a network's gradients are the same bits whether its
  // thread last ran a wider network (scratch grown, stale values left in it), a narrower one, or
  // nothing, and on any thread.
  TEST_CASE("Mlp backward is independent of what its thread's scratch last held") {
    const Net small = make_net(5, {8, 6}, 3, 17, 1);
    const Net wide = make_net(12, {40, 33}, 1, 64, 2);
    std::vector<float> small_fresh, wide_fresh;
    std::thread([&] { small_fresh = grads(small); }).join();
    std::thread([&] { wide_fresh = grads(wide); }).join();
    // This thread: small, wide (grows the scratch), small again, wide again.
    CHECK(same_bits(grads(small), small_fresh));
    CHECK(same_bits(grads(wide), wide_fresh));
    CHECK(same_bits(grads(small), small_fresh));
    CHECK(same_bits(grads(wide), wide_fresh));
    // Two threads at once, each alternating the networks.
    bool ok_a = true, ok_b = true;
    std::thread a([&] {
      for (int k = 0; k < 20; ++k)
        ok_a = ok_a && same_bits(grads(k % 2 ? wide : small), k % 2 ? wide_fresh : small_fresh);
    });
    std::thread b([&] {
      for (int k = 0; k < 20; ++k)
        ok_b = ok_b && same_bits(grads(k % 2 ? small : wide), k % 2 ? small_fresh : wide_fresh);
    });
    a.join();
    b.join();
    CHECK(ok_a);
    CHECK(ok_b);
  }
}
