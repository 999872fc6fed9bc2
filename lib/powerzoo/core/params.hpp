// Declared parameters: a key's kind, default, admissible range and doc, and a table of values.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "powerzoo/core/format.hpp"

namespace pz::core {

/// How a parameter is written in TOML and checked.
enum class ParamKind {
  kStr,         ///< any string (check: non_empty, no_slash)
  kChoice,      ///< one of `choices`
  kInt,         ///< TOML integer in [int_lo, int_hi] (a float, even 8.0 or 1e1, is refused)
  kFloat,       ///< finite number with ok(x); an integer is accepted
  kBool,        ///< true or false
  kIntArray,    ///< array of integers in [int_lo, int_hi] (non_empty)
  kStrArray,    ///< array of strings (non_empty array, non-empty elements, distinct)
  kFloatArray,  ///< array of finite numbers with ok(x) (scalar_ok: a single number is one element)
  kFloatTable,  ///< table name = finite number with ok(x) (e.g. [reward] penalty)
};

/// A parameter's value. kChoice values are strings.
using ParamValue =
    std::variant<std::string, int64_t, double, bool, std::vector<int64_t>, std::vector<std::string>,
                 std::vector<double>, std::map<std::string, double>>;

class ParamTable;

/// One declared key: the single source of its kind, default, check, doc and error texts.
struct ParamDef {
  std::string key;
  ParamKind kind = ParamKind::kStr;
  ParamValue def;   ///< default value
  std::string doc;  ///< one line, with units
  int64_t int_lo = std::numeric_limits<int64_t>::min();
  int64_t int_hi = std::numeric_limits<int64_t>::max();
  std::function<bool(double)> ok;  ///< kFloat*, null = any finite number
  std::string expected;            ///< "a number > 0"; generated for ints, choices, bools
  std::string elem_expected;       ///< kFloatTable: expected text of one entry ("a number >= 0")
  std::vector<std::string> choices;
  bool scalar_ok = false;  ///< kFloatArray: a bare number is accepted as one element
  bool non_empty = false;  ///< kStr: non-empty; arrays: at least one element
  bool distinct = false;   ///< kStrArray: elements distinct
  bool no_slash = false;   ///< kStr: no '/' (names that become directory names)
  /// kStr: a file path (or a bundled name); a relative path is resolved against the directory of
  /// the spec file that sets it.
  bool is_path = false;
  /// With is_path: a file only, no bundled names (messages then do not offer one).
  bool file_only = false;
  /// When the key has no effect given the other values of its section (every key of the
  /// section, defaults filled in): "" (it applies) or why not ("only the AC solvers read it,
  /// found solver = \"dc\""). Setting an inapplicable key is bad input; the resolved spec omits
  /// it. Null: the key always applies.
  std::function<std::string(const ParamTable& section)> inapplicable;
  /// As `inapplicable`, for a key whose effect depends on other sections: `spec` holds every
  /// section of the spec by name ("learner", "ippo", ...; defaults filled in; a learner section
  /// the learner does not read is absent).
  std::function<std::string(const std::map<std::string, ParamTable>& spec)> inapplicable_in_spec;
  /// Where the key applies, for `powerzoo keys` (with `inapplicable` or `inapplicable_in_spec`).
  std::string applies;

  /// The "expected ..." text of error messages (explicit `expected`, else derived from the kind).
  std::string expected_text() const;
};

// Builders for the common cases (the range text becomes the error's "expected").
ParamDef int_param(std::string key, int64_t def, int64_t lo, int64_t hi, std::string doc);
ParamDef float_param(std::string key, double def, std::function<bool(double)> ok,
                     std::string expected, std::string doc);
ParamDef str_param(std::string key, std::string def, std::string doc);
ParamDef choice_param(std::string key, std::string def, std::vector<std::string> choices,
                      std::string doc);
ParamDef bool_param(std::string key, bool def, std::string doc);

/// Values of declared parameters, in declaration order. Getters throw core::ConfigError naming
/// the key for a missing key or a value of another kind (a programming error in an env factory).
class ParamTable {
 public:
  void set(const std::string& key, ParamValue v);
  bool has(const std::string& key) const;
  const ParamValue& at(const std::string& key) const;
  const std::string& str(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;
  bool boolean(const std::string& key) const;
  const std::vector<std::pair<std::string, ParamValue>>& items() const { return items_; }
  bool operator==(const ParamTable& o) const { return items_ == o.items_; }

  /// The defaults of `defs`, in their order.
  static ParamTable defaults(const std::vector<ParamDef>& defs);

 private:
  std::vector<std::pair<std::string, ParamValue>> items_;
};

/// Finds a key in a list of definitions; nullptr if absent.
const ParamDef* find_param(const std::vector<ParamDef>& defs, const std::string& key);
/// The keys of `defs`, in order.
std::vector<std::string> param_keys(const std::vector<ParamDef>& defs);

}  // namespace pz::core
