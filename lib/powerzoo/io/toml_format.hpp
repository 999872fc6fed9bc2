// TOML formatting shared by the reader and the writer: round-trip doubles, quoting, keys.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pz::io {

/// A double as TOML text that reads back exactly (shortest round-trip form, ".0" when integral,
/// nan/inf spelled the TOML way).
std::string toml_double(double x);
/// A TOML basic string literal with escapes (UTF-8 passes through unchanged).
std::string toml_quote(std::string_view s);

namespace detail {

std::string join(const std::vector<std::string>& v, const char* sep);
/// Shortest round-trip decimal form of a double that TOML reads back as a float.
std::string format_double(double x);
/// TOML basic string with escapes (UTF-8 passes through unchanged).
std::string quote(std::string_view s);
/// A key as written in TOML: bare if possible, quoted otherwise.
std::string toml_key(std::string_view k);

}  // namespace detail
}  // namespace pz::io
