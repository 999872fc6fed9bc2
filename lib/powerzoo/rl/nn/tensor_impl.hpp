// Internal to rl: xtensor adaptors over the learner's flat float buffers, the GEMM entry point
// (xtensor-blas, one BLAS call) and the vectorized tanh. Included only by the .cpp files of rl that
// do tensor work, so xtensor stays out of every public header.
#pragma once

#include <array>
#include <cstddef>
#include <xtensor-blas/xblas.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xview.hpp>

namespace pz::rl::detail {

/// Row-major [rows, cols] view of rows·cols values at p (no ownership, no copy). The pointer is
/// passed as a prvalue so that the adaptor holds it by value, not a reference to this argument.
template <class T>
inline auto mat(T* p, std::size_t rows, std::size_t cols) {
  return xt::adapt(static_cast<T*>(p), rows * cols, xt::no_ownership(),
                   std::array<std::size_t, 2>{rows, cols});
}
/// [n] view of n values at p.
template <class T>
inline auto vec(T* p, std::size_t n) {
  return xt::adapt(static_cast<T*>(p), n, xt::no_ownership(), std::array<std::size_t, 1>{n});
}

/// C = alpha·op(A)·op(B) + beta·C on row-major views: one sgemm (single-threaded OpenBLAS).
template <class EA, class EB, class EC>
inline void gemm(const EA& a, const EB& b, EC& c, bool trans_a, bool trans_b, float beta) {
  xt::blas::gemm(a, b, c, trans_a, trans_b, 1.0f, beta);
}

/// a·b + c: one fused multiply-add where the build targets FMA (the default PZ_SIMD_FLAGS), for
/// xsimd batches and for the scalar float xtensor runs on the elements before the first aligned
/// address alike (std::fma rounds as the FMA instruction does), so both give the same bits;
/// without FMA a multiply and an add in both (-ffp-contract=off keeps them apart).
template <class T>
inline T mul_add(T a, T b, T c) {
#ifdef __FMA__
  return xsimd::fma(a, b, c);
#else
  return a * b + c;
#endif
}

/// tanh in float32 as a branch-free rational minimax approximation (the [13/6] form Eigen uses,
/// input clamped to ±kTanhClamp where it rounds to ±1): max abs error 4e-7 against double tanh
/// over [−12, 12]. Generic in T (float or an xsimd batch) so that xtensor vectorizes it. The Horner
/// steps are fused multiply-adds (mul_add): half the operations of a multiply and an add each, and
/// a shorter dependency chain (the tanh was a tenth of the IPPO update's time with separate ones).
inline constexpr float kTanhClamp = 7.90531110763549805f;
struct RationalTanh {
  template <class T>
  T operator()(T x) const {
    const T xc = xsimd::min(xsimd::max(x, T(-kTanhClamp)), T(kTanhClamp));
    const T x2 = xc * xc;
    T p = mul_add(x2, T(-2.76076847742355e-16f), T(2.00018790482477e-13f));
    p = mul_add(p, x2, T(-8.60467152213735e-11f));
    p = mul_add(p, x2, T(5.12229709037114e-08f));
    p = mul_add(p, x2, T(1.48572235717979e-05f));
    p = mul_add(p, x2, T(6.37261928875436e-04f));
    p = mul_add(p, x2, T(4.89352455891786e-03f));
    T q = mul_add(x2, T(1.19825839466702e-06f), T(1.18534705686654e-04f));
    q = mul_add(q, x2, T(2.26843463243900e-03f));
    q = mul_add(q, x2, T(4.89352518554385e-03f));
    return xc * p / q;
  }
};

/// Lazy elementwise tanh of an xtensor expression. The clamp is inside the functor: a clip()
/// sub-expression would make xtensor fall back to its scalar loop.
template <class E>
inline auto tanh_expr(E&& e) {
  return xt::make_lambda_xfunction([](auto x) { return RationalTanh{}(x); }, std::forward<E>(e));
}

/// Copies n floats from src to dst (non-overlapping) in xsimd batches: a learner copies many short
/// rows (a layer's bias into each row of its output, an agent's 12-float observation into a
/// minibatch), where a memcpy call per row costs more than the copy itself.
inline void copy_row(const float* src, std::size_t n, float* dst) {
  using batch = xsimd::batch<float>;
  constexpr std::size_t W = batch::size;
  std::size_t i = 0;
  for (; i + W <= n; i += W) batch::load_unaligned(src + i).store_unaligned(dst + i);
  for (; i < n; ++i) dst[i] = src[i];
}

/// Σ x² of n floats in double, deterministic whatever the address of x: xsimd batches loaded
/// unaligned at fixed offsets 0, W, 2W, … (so the lane of x[i] is i mod W, unlike xt::sum, whose
/// split depends on the alignment of x), each 1024-element chunk reduced in float lanes and
/// added in double.
inline double sum_squares(const float* x, std::size_t n) {
  using batch = xsimd::batch<float>;
  constexpr std::size_t W = batch::size;
  double total = 0.0;
  for (std::size_t k = 0; k < n; k += 1024) {
    const std::size_t end = k + 1024 < n ? k + 1024 : n;
    batch acc(0.0f);
    std::size_t i = k;
    for (; i + W <= end; i += W) {
      const batch b = batch::load_unaligned(x + i);
      acc += b * b;
    }
    total += static_cast<double>(xsimd::hadd(acc));
    for (; i < end; ++i) total += static_cast<double>(x[i]) * x[i];
  }
  return total;
}

}  // namespace pz::rl::detail
