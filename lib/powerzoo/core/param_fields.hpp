// A struct field's value as a ParamValue and back, for tables of keys bound to struct fields (the
// spec's fields and each learner's section).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "powerzoo/core/params.hpp"

namespace pz::core {

inline ParamValue to_param_value(const std::string& v) { return v; }
inline ParamValue to_param_value(int v) { return static_cast<int64_t>(v); }
inline ParamValue to_param_value(int64_t v) { return v; }
inline ParamValue to_param_value(double v) { return v; }
inline ParamValue to_param_value(bool v) { return v; }
inline ParamValue to_param_value(const std::vector<std::string>& v) { return v; }
inline ParamValue to_param_value(const std::vector<double>& v) { return v; }
inline ParamValue to_param_value(const std::map<std::string, double>& v) { return v; }
inline ParamValue to_param_value(const std::vector<int>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

inline void from_param_value(const ParamValue& p, std::string& v) { v = std::get<std::string>(p); }
inline void from_param_value(const ParamValue& p, int& v) {
  v = static_cast<int>(std::get<int64_t>(p));
}
inline void from_param_value(const ParamValue& p, int64_t& v) { v = std::get<int64_t>(p); }
inline void from_param_value(const ParamValue& p, double& v) { v = std::get<double>(p); }
inline void from_param_value(const ParamValue& p, bool& v) { v = std::get<bool>(p); }
inline void from_param_value(const ParamValue& p, std::vector<std::string>& v) {
  v = std::get<std::vector<std::string>>(p);
}
inline void from_param_value(const ParamValue& p, std::vector<double>& v) {
  v = std::get<std::vector<double>>(p);
}
inline void from_param_value(const ParamValue& p, std::map<std::string, double>& v) {
  v = std::get<std::map<std::string, double>>(p);
}
inline void from_param_value(const ParamValue& p, std::vector<int>& v) {
  const auto& x = std::get<std::vector<int64_t>>(p);
  v.assign(x.begin(), x.end());
}

/// Enum fields: TOML choice names in declaration order, paired with their values.
template <class E>
using ChoiceNames = std::vector<std::pair<const char*, E>>;

/// The names of `names`, in order (the choices of the key).
template <class E>
std::vector<std::string> choice_list(const ChoiceNames<E>& names) {
  std::vector<std::string> out;
  for (const auto& [n, e] : names) out.emplace_back(n);
  return out;
}

}  // namespace pz::core
