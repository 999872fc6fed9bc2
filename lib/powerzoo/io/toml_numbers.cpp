// Number literals of TOML text that do not read back as the number they name (see
// toml_numbers.hpp).
#include "powerzoo/io/toml_numbers.hpp"

#include <toml++/toml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "powerzoo/core/error.hpp"

namespace pz::io::detail {
namespace {

// The characters of a TOML number literal (sign, digits, '_', '.', exponent).
bool number_char(char c) {
  return (c >= '0' && c <= '9') || c == '_' || c == '.' || c == 'e' || c == 'E' || c == '+' ||
         c == '-';
}

// The literal starting at `pos` of `s`.
std::string_view literal_from(std::string_view s, size_t pos) {
  size_t end = pos;
  while (end < s.size() && number_char(s[end])) ++end;
  return s.substr(pos, end - pos);
}

using Prefix = std::function<std::string(uint32_t, const std::string&)>;

void walk(const toml::node& n, std::string_view text, const std::string& dotted,
          const Prefix& prefix) {
  if (auto* f = n.as_floating_point()) {
    const auto& b = n.source().begin;
    if (const std::string why = unrepresentable(text, b.line, b.column, f->get()); !why.empty())
      throw core::ConfigError(prefix(b.line, dotted) +
                              "expected a number a double can hold, found " + why);
  }
  if (auto* a = n.as_array())
    for (const auto& e : *a) walk(e, text, dotted, prefix);
  if (auto* t = n.as_table())
    for (const auto& [k, v] : *t)
      walk(v, text, dotted.empty() ? std::string(k.str()) : dotted + "." + std::string(k.str()),
           prefix);
}

}  // namespace

void refuse_underflow(std::string_view text, const Prefix& prefix) {
  toml::table doc;
  try {
    doc = toml::parse(text);
  } catch (const toml::parse_error&) {
    return;
  }
  walk(doc, text, "", prefix);
}

std::string unrepresentable(std::string_view text, uint32_t line, uint32_t column, double value) {
  if (value != 0.0 || line == 0 || column == 0) return "";
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = text.find('\n', pos);
    if (pos == std::string_view::npos) return "";
    ++pos;
  }
  pos += column - 1;
  if (pos >= text.size()) return "";
  const std::string_view lit = literal_from(text, pos);
  // A digit 1-9 before the exponent: the literal names a non-zero number.
  for (char c : lit.substr(0, lit.find_first_of("eE")))
    if (c >= '1' && c <= '9')
      return std::string(lit) + " (below the smallest double, ±4.9e-324: it would be read as 0)";
  return "";
}

std::string overflowing(std::string_view raw) {
  if (raw.empty() || literal_from(raw, 0).size() != raw.size()) return "";
  std::string s;
  for (char c : raw)
    if (c != '_') s += c;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno != ERANGE || !std::isinf(v)) return "";
  return std::string(raw) + " (beyond the largest double, ±1.8e308)";
}

std::string float_for_integer(double value) {
  if (!std::isfinite(value) || value != std::floor(value) || std::fabs(value) >= 9.2e18) return "";
  return " (a float: write the integer without a decimal point or exponent, " +
         std::to_string(static_cast<int64_t>(value)) + ")";
}

}  // namespace pz::io::detail
