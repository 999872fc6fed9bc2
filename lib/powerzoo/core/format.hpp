// Numbers as text: one formatter for messages, tables and printf-style reports.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>

namespace pz::core {

/// A number for messages: the shortest text that reads back exactly (0.5, 1e-04 → 0.0001).
std::string format_number(double x);

/// A number to `significant_digits` significant digits, as printf's "%.*g" (and an ostream's
/// default `<< x` with that precision) writes it: 6 digits give 0.333333, 1e+06, nan, inf.
std::string format_number(double x, int significant_digits);

/// printf into a string of whatever length the arguments need (a long label must not be cut, as a
/// fixed buffer did).
template <class... Args>
std::string format_printf(const char* format, Args... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  std::string out(static_cast<size_t>(std::max(n, 0)) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, args...);
  out.pop_back();
  return out;
}

}  // namespace pz::core
