// TOML formatting shared by the reader and the writer: round-trip doubles, quoting, keys.
#include "powerzoo/io/toml_format.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace pz::io::detail {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

/// Shortest round-trip decimal form of a double that TOML reads back as a float.
std::string format_double(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  // Shortest round-trip text; plain decimal notation unless scientific is clearly shorter.
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  std::string s(buf, res.ptr);
  auto fixed = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::fixed);
  if (fixed.ec == std::errc() && static_cast<size_t>(fixed.ptr - buf) <= s.size() + 3) {
    s.assign(buf, fixed.ptr);
  }
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

/// TOML basic string with escapes (UTF-8 passes through unchanged).
std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04X", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

/// A key as written in TOML: bare if possible, quoted otherwise.
std::string toml_key(std::string_view k) {
  bool bare = !k.empty() && std::all_of(k.begin(), k.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-';
  });
  return bare ? std::string(k) : quote(k);
}

}  // namespace pz::io::detail

namespace pz::io {

std::string toml_double(double x) { return detail::format_double(x); }

std::string toml_quote(std::string_view s) { return detail::quote(s); }

}  // namespace pz::io
