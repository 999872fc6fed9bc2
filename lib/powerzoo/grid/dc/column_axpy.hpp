// Dense column sums out += Σ_j cols[j]·x[j] for the flow kernels of the merit order and the
// DC-OPF (header-only: it takes the SIMD flags of the file that includes it).
#pragma once

#include <cstddef>

namespace pz::grid {

/// out[l] += cols[j·ld + l]·x[j] for l < nl, over the j < n with x[j] ≠ 0 in increasing j. Every
/// out[l] receives the same products in the same order (one multiply and one add each, no fused
/// multiply-add) as the column-by-column loop `for j: if (x[j] != 0) for l: out[l] +=
/// col_j[l]·x[j]`, so the sums are bitwise that loop's; rows are processed in blocks of 16 kept in
/// registers across the columns instead of being loaded and stored once per column.
inline void add_columns(const double* cols, size_t ld, const double* x, int n, double* out,
                        int nl) {
  // GCC vector extensions: four lanes per operation, each lane an ordinary IEEE multiply or add
  // (the same value as the scalar operation; -ffp-contract=off keeps them unfused).
  typedef double V4 __attribute__((vector_size(32)));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // inlined; without AVX (the tests) a V4 is two halves
  auto load = [](const double* p) {
    V4 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  };
  constexpr int kChunk = 64, kBlock = 16;
  const double* col[kChunk];
  double val[kChunk];
  int j0 = 0;
  while (j0 < n) {
    int m = 0;
    for (; j0 < n && m < kChunk; ++j0) {
      if (x[j0] == 0.0) continue;
      col[m] = cols + static_cast<size_t>(j0) * ld;
      val[m++] = x[j0];
    }
    int l = 0;
    for (; l + kBlock <= nl; l += kBlock) {
      V4 a0 = load(out + l), a1 = load(out + l + 4), a2 = load(out + l + 8),
         a3 = load(out + l + 12);
      for (int k = 0; k < m; ++k) {
        const double* c = col[k] + l;
        const V4 p = {val[k], val[k], val[k], val[k]};
        a0 += load(c) * p;
        a1 += load(c + 4) * p;
        a2 += load(c + 8) * p;
        a3 += load(c + 12) * p;
      }
      __builtin_memcpy(out + l, &a0, sizeof a0);
      __builtin_memcpy(out + l + 4, &a1, sizeof a1);
      __builtin_memcpy(out + l + 8, &a2, sizeof a2);
      __builtin_memcpy(out + l + 12, &a3, sizeof a3);
    }
    for (; l + 4 <= nl; l += 4) {
      V4 a0 = load(out + l);
      for (int k = 0; k < m; ++k) a0 += load(col[k] + l) * V4{val[k], val[k], val[k], val[k]};
      __builtin_memcpy(out + l, &a0, sizeof a0);
    }
#pragma GCC diagnostic pop
    for (; l < nl; ++l) {
      double a = out[l];
      for (int k = 0; k < m; ++k) a += col[k][l] * val[k];
      out[l] = a;
    }
  }
}

}  // namespace pz::grid
