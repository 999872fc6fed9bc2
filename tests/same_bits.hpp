// Bitwise equality of two vectors, for the tests that claim "no number moves" (same bits, not
// a tolerance).
#pragma once

#include <cstring>
#include <vector>

namespace pz::test {

/// True when a and b have the same length and every element has the same bytes (so −0 ≠ +0 and a
/// NaN equals only the same NaN).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace pz::test
