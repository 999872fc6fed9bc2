// Declared parameters: builders, error texts and the value table.
#include "powerzoo/core/params.hpp"

#include <charconv>
#include <climits>

#include "powerzoo/core/error.hpp"

namespace pz::core {

std::string ParamDef::expected_text() const {
  if (!expected.empty()) return expected;
  switch (kind) {
    case ParamKind::kInt:
      if (int_hi == std::numeric_limits<int64_t>::max() || int_hi == INT_MAX)
        return "an integer >= " + std::to_string(int_lo);
      return "an integer in [" + std::to_string(int_lo) + ", " + std::to_string(int_hi) + "]";
    case ParamKind::kChoice: {
      std::string out = "one of ";
      for (size_t i = 0; i < choices.size(); ++i) out += (i ? ", \"" : "\"") + choices[i] + "\"";
      return out;
    }
    case ParamKind::kBool:
      return "true or false";
    case ParamKind::kStr:
      if (non_empty && no_slash) return "a non-empty string without '/'";
      return non_empty ? "a non-empty string" : "a string";
    default:
      return "a value";
  }
}

ParamDef int_param(std::string key, int64_t def, int64_t lo, int64_t hi, std::string doc) {
  ParamDef d;
  d.key = std::move(key);
  d.kind = ParamKind::kInt;
  d.def = def;
  d.int_lo = lo;
  d.int_hi = hi;
  d.doc = std::move(doc);
  return d;
}

ParamDef float_param(std::string key, double def, std::function<bool(double)> ok,
                     std::string expected, std::string doc) {
  ParamDef d;
  d.key = std::move(key);
  d.kind = ParamKind::kFloat;
  d.def = def;
  d.ok = std::move(ok);
  d.expected = std::move(expected);
  d.doc = std::move(doc);
  return d;
}

ParamDef str_param(std::string key, std::string def, std::string doc) {
  ParamDef d;
  d.key = std::move(key);
  d.kind = ParamKind::kStr;
  d.def = std::move(def);
  d.doc = std::move(doc);
  return d;
}

ParamDef choice_param(std::string key, std::string def, std::vector<std::string> choices,
                      std::string doc) {
  ParamDef d;
  d.key = std::move(key);
  d.kind = ParamKind::kChoice;
  d.def = std::move(def);
  d.choices = std::move(choices);
  d.doc = std::move(doc);
  return d;
}

ParamDef bool_param(std::string key, bool def, std::string doc) {
  ParamDef d;
  d.key = std::move(key);
  d.kind = ParamKind::kBool;
  d.def = def;
  d.doc = std::move(doc);
  return d;
}

void ParamTable::set(const std::string& key, ParamValue v) {
  for (auto& [k, val] : items_) {
    if (k == key) {
      val = std::move(v);
      return;
    }
  }
  items_.emplace_back(key, std::move(v));
}

bool ParamTable::has(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return true;
  return false;
}

const ParamValue& ParamTable::at(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return v;
  throw ConfigError("parameter '" + key + "' is not declared by this environment");
}

namespace {
template <class T>
const T& typed(const ParamTable& t, const std::string& key, const char* kind) {
  const T* p = std::get_if<T>(&t.at(key));
  if (!p) throw ConfigError("parameter '" + key + "' is not " + kind);
  return *p;
}
}  // namespace

const std::string& ParamTable::str(const std::string& key) const {
  return typed<std::string>(*this, key, "a string");
}
int64_t ParamTable::integer(const std::string& key) const {
  return typed<int64_t>(*this, key, "an integer");
}
double ParamTable::number(const std::string& key) const {
  return typed<double>(*this, key, "a number");
}
bool ParamTable::boolean(const std::string& key) const {
  return typed<bool>(*this, key, "a boolean");
}

ParamTable ParamTable::defaults(const std::vector<ParamDef>& defs) {
  ParamTable t;
  for (const auto& d : defs) t.set(d.key, d.def);
  return t;
}

const ParamDef* find_param(const std::vector<ParamDef>& defs, const std::string& key) {
  for (const auto& d : defs)
    if (d.key == key) return &d;
  return nullptr;
}

std::vector<std::string> param_keys(const std::vector<ParamDef>& defs) {
  std::vector<std::string> out;
  for (const auto& d : defs) out.push_back(d.key);
  return out;
}

}  // namespace pz::core
