// Internal to the spec reader/writer: the key schema of DESIGN.md §3 and TOML formatting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pz::io::detail {

/// Value kinds of schema keys; decides how an override's bare word is interpreted.
enum class Kind { kStr, kInt, kFloat, kBool, kIntArray, kStrArray, kFloatTable, kFloatArray };

struct KeyDef {
  const char* key;
  Kind kind;
};

struct SectionDef {
  const char* name;
  std::vector<KeyDef> keys;  ///< empty for [sweep] (free-form)
};

/// Every section and key of DESIGN.md §3, in canonical (to_toml) order.
const std::vector<SectionDef>& schema();
const SectionDef* find_section(std::string_view name);                ///< nullptr if unknown
const KeyDef* find_key(const SectionDef& sec, std::string_view key);  ///< nullptr if unknown
std::vector<std::string> section_names();
std::vector<std::string> key_names(const SectionDef& sec);
std::string join(const std::vector<std::string>& v, const char* sep);

/// Shortest round-trip decimal form of a double that TOML reads back as a float.
std::string format_double(double x);
/// TOML basic string with escapes (UTF-8 passes through unchanged).
std::string quote(std::string_view s);
/// A key as written in TOML: bare if possible, quoted otherwise.
std::string toml_key(std::string_view k);

}  // namespace pz::io::detail
