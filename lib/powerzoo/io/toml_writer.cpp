// Canonical TOML output of declared sections (every key, defaults filled in, doubles round-trip).
#include <sstream>

#include "powerzoo/io/toml_format.hpp"
#include "powerzoo/io/toml_schema.hpp"

namespace pz::io {
namespace {

using core::ParamKind;
using detail::format_double;
using detail::quote;
using detail::toml_key;

template <class T, class F>
std::string array(const std::vector<T>& v, F&& fmt) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + fmt(v[i]);
  return out + "]";
}

}  // namespace

std::string toml_value(ParamKind kind, const core::ParamValue& v) {
  switch (kind) {
    case ParamKind::kStr:
    case ParamKind::kChoice:
      return quote(std::get<std::string>(v));
    case ParamKind::kInt:
      return std::to_string(std::get<int64_t>(v));
    case ParamKind::kFloat:
      return format_double(std::get<double>(v));
    case ParamKind::kBool:
      return std::get<bool>(v) ? "true" : "false";
    case ParamKind::kIntArray:
      return array(std::get<std::vector<int64_t>>(v), [](int64_t x) { return std::to_string(x); });
    case ParamKind::kStrArray:
      return array(std::get<std::vector<std::string>>(v),
                   [](const std::string& x) { return quote(x); });
    case ParamKind::kFloatArray:
      return array(std::get<std::vector<double>>(v), [](double x) { return format_double(x); });
    case ParamKind::kFloatTable: {
      const auto& t = std::get<std::map<std::string, double>>(v);
      if (t.empty()) return "{}";
      std::string out = "{";
      bool first = true;
      for (const auto& [k, x] : t) {
        out += (first ? " " : ", ") + toml_key(k) + " = " + format_double(x);
        first = false;
      }
      return out + " }";
    }
  }
  return "";
}

std::string write_toml(const std::vector<SectionSchema>& schema,
                       const std::map<std::string, core::ParamTable>& values,
                       const std::map<std::string, std::string>& free_form) {
  std::ostringstream o;
  bool first = true;
  for (const auto& sec : schema) {
    o << (first ? "" : "\n") << "[" << sec.name << "]\n";
    first = false;
    if (sec.free_form) {
      auto it = free_form.find(sec.name);
      if (it == free_form.end()) continue;
      o << it->second;
      if (!it->second.empty() && it->second.back() != '\n') o << "\n";
      continue;
    }
    auto tbl = values.find(sec.name);
    for (const auto& d : sec.keys) {
      const core::ParamValue& v =
          tbl != values.end() && tbl->second.has(d.key) ? tbl->second.at(d.key) : d.def;
      o << d.key << " = " << toml_value(d.kind, v) << "\n";
    }
  }
  return o.str();
}

}  // namespace pz::io
