// Number literals of TOML text that do not read back as the number they name.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace pz::io::detail {

/// Why the float `value` that toml++ read from the literal starting at `line`, `column` (1-based;
/// columns in bytes) of `text` is not the number the literal names, or "" if it is: a non-zero
/// literal below the smallest double reads as 0 ("1e-400 (below the smallest double, ±4.9e-324:
/// it would be read as 0)"). toml++ refuses an overflowing literal (1e400) itself.
std::string unrepresentable(std::string_view text, uint32_t line, uint32_t column, double value);

/// Throws core::ConfigError for the first float of the TOML document `text` (arrays and tables
/// too) that a non-zero literal underflowed to 0, which toml++ reads silently: prefix(line, dotted
/// key) then "expected a number a double can hold, found 1e-400 (...)". A document toml++ refuses
/// is left to the caller's reading of it.
void refuse_underflow(
    std::string_view text,
    const std::function<std::string(uint32_t line, const std::string& dotted)>& prefix);

/// Why the override text `raw` (a whole value) is a number literal no double holds ("1e400
/// (beyond the largest double, ±1.8e308)"), or "": toml++ refuses it as a value, which an
/// override would otherwise read as a string.
std::string overflowing(std::string_view raw);

/// The note after "found 8.0" when an integer key is given a float: " (a float: write the
/// integer without a decimal point or exponent, 8)" for an integral `value`, else "".
std::string float_for_integer(double value);

}  // namespace pz::io::detail
