// Learner section keys bound to the fields of a learner's own config struct: each key declared
// once (kind, range, doc; the default is the struct field's default), read into the struct and
// written from it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "powerzoo/core/params.hpp"

namespace pz::rl::keys {

/// One key of a section bound to a field of Cfg.
template <class Cfg>
struct Bound {
  core::ParamDef def;
  std::function<core::ParamValue(const Cfg&)> get;
  std::function<void(Cfg&, const core::ParamValue&)> set;
};

inline core::ParamValue to_value(int v) { return static_cast<int64_t>(v); }
inline core::ParamValue to_value(int64_t v) { return v; }
inline core::ParamValue to_value(double v) { return v; }
inline core::ParamValue to_value(bool v) { return v; }
inline core::ParamValue to_value(const std::vector<int>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}
inline void from_value(const core::ParamValue& p, int& v) {
  v = static_cast<int>(std::get<int64_t>(p));
}
inline void from_value(const core::ParamValue& p, int64_t& v) { v = std::get<int64_t>(p); }
inline void from_value(const core::ParamValue& p, double& v) { v = std::get<double>(p); }
inline void from_value(const core::ParamValue& p, bool& v) { v = std::get<bool>(p); }
inline void from_value(const core::ParamValue& p, std::vector<int>& v) {
  const auto& x = std::get<std::vector<int64_t>>(p);
  v.assign(x.begin(), x.end());
}

/// Enum fields: TOML choice names paired with their values.
template <class E>
using Names = std::vector<std::pair<const char*, E>>;

template <class E>
std::vector<std::string> choice_list(const Names<E>& names) {
  std::vector<std::string> out;
  for (const auto& [n, e] : names) out.emplace_back(n);
  return out;
}

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
        [](const CFG& c) -> ::pz::core::ParamValue { return ::pz::rl::keys::to_value(c.MEMBER); }, \
        [](CFG& c, const ::pz::core::ParamValue& v) { ::pz::rl::keys::from_value(v, c.MEMBER); }   \
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
