// Input echoed in error messages: cut to a readable length and made printable, whatever it held.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pz::core {

/// Longest echo of user input in a message, in bytes (before the "... (N characters)" note).
inline constexpr size_t kEchoMax = 80;

/// `s` as shown in an error message: valid UTF-8 passes through, control characters and bytes
/// that are not UTF-8 become \xHH (so a binary file cannot break the terminal or a log parser);
/// text longer than `max` bytes is cut at a character boundary and ends "... (N characters)",
/// N being the length of the input in bytes.
std::string echo(std::string_view s, size_t max = kEchoMax);

/// True if `s` is valid UTF-8 without control characters (tab excepted).
bool printable_utf8(std::string_view s);

}  // namespace pz::core
