// Strict reading and canonical writing of a sectioned TOML document against declared keys.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "powerzoo/core/params.hpp"

namespace pz::io {

/// One [section] with its declared keys (core::ParamDef), or a free-form section kept verbatim.
struct SectionSchema {
  std::string name;
  std::vector<core::ParamDef> keys;
  bool free_form = false;  ///< e.g. [sweep]: any keys, kept as TOML text
  /// Keys an earlier layout had here -> where they are now ("[learner] total_steps"): reading
  /// one is an error saying so.
  std::map<std::string, std::string> moved;
};

/// The values a document sets (defaults are not filled in) and where each came from.
struct SectionValues {
  std::string file;
  std::map<std::string, core::ParamTable> sections;  ///< section -> keys present
  std::map<std::string, std::string> free_form;      ///< free-form section -> TOML body
  /// "sec.key" -> error prefix: "spec.toml:12: " or "command line override 'k=v': ".
  std::map<std::string, std::string> where;
  /// "sec.key" entries set (or changed) by a command-line override rather than the file.
  std::set<std::string> from_override;
  /// The prefix for errors about "sec.key": its location if it was set, else "file: ".
  std::string at(const std::string& dotted) const;
  /// The value of sec.key if the document set it.
  const core::ParamValue* find(const std::string& sec, const std::string& key) const;
};

/// Looks up a string value of the document after the command-line overrides (for keys whose
/// value decides the rest of the schema, such as [env] id): the override text if one sets
/// sec.key, else the document's string; nullopt if neither.
using PeekFn =
    std::function<std::optional<std::string>(const std::string& sec, const std::string& key)>;
/// Location prefix of sec.key for an error raised while choosing the schema ("file:3: ").
using WhereFn = std::function<std::string(const std::string& sec, const std::string& key)>;

/// Parses TOML text, lets `schema_for` choose the schema (it may peek at values), applies the
/// "dotted.key=value" overrides (value parsed as a TOML value; bare words as strings; `seed` is
/// experiment.seed; sec.key.sub=value sets one entry of a table key), and reads every key in
/// source order. Strict: unknown sections, keys and top-level keys are errors with a
/// did-you-mean; wrong types and out-of-range values are errors naming file:line (or the
/// override), section, key, what was expected and what was found. Throws core::ConfigError.
SectionValues read_toml(
    const std::string& text, const std::string& file, const std::vector<std::string>& overrides,
    const std::function<std::vector<SectionSchema>(const PeekFn&, const WhereFn&)>& schema_for);

/// A value as TOML text (strings quoted, doubles round-trip, arrays and tables inline).
std::string toml_value(core::ParamKind kind, const core::ParamValue& v);

/// Canonical TOML of `values` (one entry per declared key, in schema order; free-form sections
/// verbatim). read_toml(write_toml(s, v)) reads back the same values.
std::string write_toml(const std::vector<SectionSchema>& schema,
                       const std::map<std::string, core::ParamTable>& values,
                       const std::map<std::string, std::string>& free_form);

}  // namespace pz::io
