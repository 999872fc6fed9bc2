// Rng: small, fast, serializable random stream (xoshiro256**, seeded by splitmix64).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace pz::core {

/// Deterministic random stream. Each consumer owns one stream derived from (seed, stream id), so
/// results never depend on thread scheduling. State is four 64-bit words (save/restore exactly).
/// Source: Blackman & Vigna, "Scrambled linear pseudorandom number generators" (xoshiro256**).
class Rng {
 public:
  Rng() : Rng(0, 0) {}
  /// Stream `stream` of master seed `seed`; distinct (seed, stream) pairs give independent streams.
  Rng(uint64_t seed, uint64_t stream) {
    uint64_t x =
        seed * 0x9E3779B97F4A7C15ull ^ (stream + 0x632BE59BD9B4E019ull) * 0xD1B54A32D192ED03ull;
    for (auto& w : s_) w = splitmix64(x);
  }

  uint64_t next_u64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  /// Uniform integer in [0, n) (n > 0), by Lemire's multiply-shift (bias < 2^-64 * n, negligible).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next_u64()) * n) >> 64);
  }

  /// Standard normal by Box-Muller; consumes exactly two uniforms (no cached spare, so the state
  /// is just the four words).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  std::array<uint64_t, 4> state() const { return s_; }
  void set_state(const std::array<uint64_t, 4>& s) { s_ = s; }

  bool operator==(const Rng& o) const { return s_ == o.s_; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::array<uint64_t, 4> s_{};
};

}  // namespace pz::core
