// Echo of user input in error messages.
#include "powerzoo/core/echo.hpp"

#include <cstdio>

namespace pz::core {
namespace {

// Length of the valid UTF-8 sequence at s[i] (1-4), or 0 if the bytes there are not UTF-8.
size_t utf8_len(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  if (n == 2 && b < 0xC2) return 0;  // overlong
  return n;
}

bool is_control(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7F; }

}  // namespace

std::string echo(std::string_view s, size_t max) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && out.size() < max) {
    const size_t n = utf8_len(s, i);
    const auto b = static_cast<unsigned char>(s[i]);
    if (n == 0 || (n == 1 && is_control(b))) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", b);
      out += buf;
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  if (i < s.size()) out += "... (" + std::to_string(s.size()) + " characters)";
  return out;
}

bool printable_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_len(s, i);
    if (n == 0 || (n == 1 && is_control(static_cast<unsigned char>(s[i])))) return false;
    i += n;
  }
  return true;
}

}  // namespace pz::core
