// Learner section keys bound to the fields of a learner's own config struct: each key declared
// once (kind, range, doc; the default is the struct field's default), read into the struct and
// written from it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "powerzoo/core/param_fields.hpp"
#include "powerzoo/core/params.hpp"

namespace pz::rl::keys {

/// One key of a section bound to a field of Cfg.
template <class Cfg>
struct Bound {
  core::ParamDef def;
  std::function<core::ParamValue(const Cfg&)> get;
  std::function<void(Cfg&, const core::ParamValue&)> set;
};

/// Enum fields: TOML choice names paired with their values.
template <class E>
using Names = core::ChoiceNames<E>;
using core::choice_list;

/// The declarations of `keys` with the defaults of a default-constructed Cfg.
template <class Cfg>
std::vector<core::ParamDef> defs(const std::vector<Bound<Cfg>>& keys) {
  const Cfg d{};
  std::vector<core::ParamDef> out;
  for (const auto& k : keys) {
    out.push_back(k.def);
    out.back().def = k.get(d);
  }
  return out;
}

/// Sets the fields of `cfg` that `table` holds.
template <class Cfg>
void apply(const std::vector<Bound<Cfg>>& keys, const core::ParamTable& table, Cfg& cfg) {
  for (const auto& k : keys)
    if (table.has(k.def.key)) k.set(cfg, table.at(k.def.key));
}

/// The values of `cfg` as a table of `keys` (in order).
template <class Cfg>
core::ParamTable table(const std::vector<Bound<Cfg>>& keys, const Cfg& cfg) {
  core::ParamTable t;
  for (const auto& k : keys) t.set(k.def.key, k.get(cfg));
  return t;
}

}  // namespace pz::rl::keys

// A key bound to a plain member of the config struct.
#define PZ_KEY(CFG, DEF, MEMBER)                                                                   \
  ::pz::rl::keys::Bound<CFG> {                                                                     \
    DEF,                                                                                           \
        [](const CFG& c) -> ::pz::core::ParamValue {                                               \
          return ::pz::core::to_param_value(c.MEMBER);                                             \
        },                                                                                         \
        [](CFG& c, const ::pz::core::ParamValue& v) { ::pz::core::from_param_value(v, c.MEMBER); } \
  }
// A key bound to an enum member through its choice names.
#define PZ_ENUM_KEY(CFG, KEY, DOC, MEMBER, NAMES)                               \
  ::pz::rl::keys::Bound<CFG> {                                                  \
    ::pz::core::choice_param(KEY, "", ::pz::rl::keys::choice_list(NAMES), DOC), \
        [](const CFG& c) -> ::pz::core::ParamValue {                            \
          for (const auto& [n, e] : NAMES)                                      \
            if (e == c.MEMBER) return std::string(n);                           \
          return std::string();                                                 \
        },                                                                      \
        [](CFG& c, const ::pz::core::ParamValue& v) {                           \
          for (const auto& [n, e] : NAMES)                                      \
            if (std::get<std::string>(v) == n) c.MEMBER = e;                    \
        }                                                                       \
  }
