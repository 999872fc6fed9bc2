// Strict TOML reading against declared sections and keys (toml++), with command-line overrides.
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/io/toml_format.hpp"
#include "powerzoo/io/toml_numbers.hpp"
#include "powerzoo/io/toml_schema.hpp"

namespace pz::io {
namespace {

using core::ConfigError;
using core::did_you_mean;
using core::ParamDef;
using core::ParamKind;
using core::ParamValue;
using namespace detail;

// ---------------------------------------------------------------------------------------------
// Error-message and [sweep] formatting (toml++ nodes)

/// A string as shown in an error message: quoted, cut after core::kEchoMax bytes, and bytes that
/// are not UTF-8 (an unquoted override value may hold any) as \xHH.
std::string shown(std::string_view s) {
  const auto printable = [](const std::string& q) { return core::echo(q, std::string::npos); };
  if (s.size() <= core::kEchoMax) return printable(quote(s));
  size_t cut = core::kEchoMax;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 start
  return printable(quote(s.substr(0, cut))) + "... (" + std::to_string(s.size()) + " characters)";
}

/// How a found value is shown in error messages.
std::string describe(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return shown(*n.value<std::string>());
    case toml::node_type::integer:
      return std::to_string(*n.value<int64_t>());
    case toml::node_type::floating_point:
      return format_double(*n.value<double>());
    case toml::node_type::boolean:
      return *n.value<bool>() ? "true" : "false";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

/// A TOML value on one line: arrays and tables inline, doubles shortest round-trip.
std::string inline_value(const toml::node& n) {
  if (auto* t = n.as_table()) {
    if (t->empty()) return "{}";
    std::string out = "{ ";
    bool first = true;
    for (const auto& [k, v] : *t) {
      out += (first ? "" : ", ") + toml_key(k.str()) + " = " + inline_value(v);
      first = false;
    }
    return out + " }";
  }
  if (auto* a = n.as_array()) {
    std::string out = "[";
    for (size_t i = 0; i < a->size(); ++i) out += (i ? ", " : "") + inline_value((*a)[i]);
    return out + "]";
  }
  if (auto* s = n.as_string()) return quote(s->get());
  if (auto* i = n.as_integer()) return std::to_string(i->get());
  if (auto* f = n.as_floating_point()) return format_double(f->get());
  if (auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  std::ostringstream os;  // dates and times: toml++ prints them in TOML syntax
  n.visit([&](auto&& v) { os << v; });
  return os.str();
}

/// The free-form [sweep] table as a standalone TOML document: one `key = value` line per entry
/// (sub-tables inline), so it parses both on its own and when appended after a [sweep] header.
std::string sweep_body(const toml::table& t) {
  std::string out;
  for (const auto& [k, v] : t) out += toml_key(k.str()) + " = " + inline_value(v) + "\n";
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reader: converts the (override-patched) TOML document into values with precise errors.

using Schema = std::vector<SectionSchema>;

const SectionSchema* find_section(const Schema& schema, std::string_view name) {
  for (const auto& s : schema)
    if (name == s.name) return &s;
  return nullptr;
}

std::vector<std::string> section_names(const Schema& schema) {
  std::vector<std::string> out;
  for (const auto& s : schema) out.push_back(s.name);
  return out;
}

class Reader {
 public:
  Reader(const Schema& schema, std::string file, std::map<std::string, std::string> overridden)
      : schema_(schema), file_(std::move(file)), overridden_(std::move(overridden)) {}

  /// "spec.toml:12: ", "command line override 'x=1': " or "spec.toml: ".
  std::string where(const std::string& dotted, const toml::source_region& src) const {
    if (auto it = overridden_.find(dotted); it != overridden_.end()) {
      return "command line override '" + core::echo(it->second) + "': ";
    }
    if (src.begin.line > 0) return file_ + ":" + std::to_string(src.begin.line) + ": ";
    return file_ + ": ";
  }

  SectionValues read(const toml::table& doc) {
    SectionValues out;
    out.file = file_;
    for (const auto& [k, node] : sorted(doc)) {
      std::string name(k->str());
      const SectionSchema* sec = find_section(schema_, name);
      if (!sec) unknown_section(name, *k, *node);
      const toml::table* tbl = node->as_table();
      if (!tbl) {
        throw ConfigError(where(name, node->source()) + "[" + name + "] must be a table, found " +
                          describe(*node));
      }
      if (sec->free_form) {
        out.free_form[name] = sweep_body(*tbl);
        continue;
      }
      auto& values = out.sections[name];
      for (const auto& [kk, vn] : sorted(*tbl)) {
        std::string key(kk->str());
        const ParamDef* def = core::find_param(sec->keys, key);
        if (!def && sec->moved.count(key))
          throw ConfigError(where(name + "." + key, kk->source()) + "[" + name + "] " + key +
                            " moved to " + sec->moved.at(key) + " (see docs/spec-reference.md)");
        if (!def) {
          std::string msg = where(name + "." + key, kk->source()) + "unknown key [" + name + "] " +
                            core::echo(key);
          const auto keys = core::param_keys(sec->keys);
          std::string dym = did_you_mean(key, keys);
          msg += dym.empty() ? " (valid keys: " + join(keys, ", ") + ")"
                             : " (did you mean '" + core::echo(dym) + "'?)";
          throw ConfigError(msg);
        }
        out.where[name + "." + key] = where(name + "." + key, vn->source());
        if (overridden_.count(name + "." + key)) out.from_override.insert(name + "." + key);
        values.set(key, value(name, *def, *vn));
      }
    }
    return out;
  }

 private:
  using Entry = std::pair<const toml::key*, const toml::node*>;

  /// Table entries in source order (so the first error reported is the first in the file).
  static std::vector<Entry> sorted(const toml::table& t) {
    std::vector<Entry> out;
    for (const auto& [k, v] : t) out.emplace_back(&k, &v);
    std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
      return a.first->source().begin.line < b.first->source().begin.line;
    });
    return out;
  }

  [[noreturn]] void unknown_section(const std::string& name, const toml::key& k,
                                    const toml::node& node) const {
    std::string msg = where(name, k.source());
    if (!node.is_table()) {
      // A top-level key such as `seed = 3`: point at the section it belongs to.
      std::string home;
      for (const auto& sd : schema_)
        if (core::find_param(sd.keys, name)) home = sd.name;
      msg += "top-level key '" + core::echo(name) + "' is not allowed; keys belong in a section";
      if (!home.empty()) msg += " (did you mean [" + home + "] " + name + "?)";
      throw ConfigError(msg);
    }
    msg += "unknown section [" + core::echo(name) + "]";
    const auto names = section_names(schema_);
    std::string dym = did_you_mean(name, names);
    msg += dym.empty() ? " (valid sections: " + join(names, ", ") + ")"
                       : " (did you mean '" + core::echo(dym) + "'?)";
    throw ConfigError(msg);
  }

  [[noreturn]] void fail(const std::string& sec, const std::string& key, const toml::node& n,
                         const std::string& expected, const std::string& note = "") const {
    throw ConfigError(where(sec + "." + key, n.source()) + "[" + sec + "] " + key + ": expected " +
                      expected + ", found " + describe(n) + note);
  }
  [[noreturn]] void fail_element(const std::string& sec, const std::string& key,
                                 const toml::node& e, const std::string& expected,
                                 const std::string& note = "") const {
    throw ConfigError(where(sec + "." + key, e.source()) + "[" + sec + "] " + key + ": expected " +
                      expected + ", found element " + describe(e) + note);
  }
  static std::string float_for_int(const toml::node& n) {
    return n.is_floating_point() ? detail::float_for_integer(*n.value<double>()) : "";
  }

  /// A TOML integer (1000, 1_000); nullopt otherwise: a float (8.0, 1e1) is refused even when
  /// integral, as a value that is not what its key reads.
  static std::optional<int64_t> as_int(const toml::node& n) {
    if (auto* i = n.as_integer()) return i->get();
    return std::nullopt;
  }
  static std::optional<double> as_number(const toml::node& n, const ParamDef& d) {
    double v = NAN;
    if (auto* i = n.as_integer()) v = static_cast<double>(i->get());
    if (auto* f = n.as_floating_point()) v = f->get();
    if (!std::isfinite(v) || (d.ok && !d.ok(v))) return std::nullopt;
    return v;
  }

  ParamValue value(const std::string& sec, const ParamDef& d, const toml::node& n) const {
    const std::string expected = d.expected_text();
    const std::string& key = d.key;
    switch (d.kind) {
      case ParamKind::kStr: {
        auto* s = n.as_string();
        if (!s) fail(sec, key, n, "a string");
        if ((d.non_empty && s->get().empty()) ||
            (d.no_slash && s->get().find('/') != std::string::npos))
          fail(sec, key, n, expected);
        return s->get();
      }
      case ParamKind::kChoice: {
        // A choice among "true"/"false" (and others, e.g. "auto") takes a TOML boolean too.
        if (auto* b = n.as_boolean()) {
          const std::string bs = b->get() ? "true" : "false";
          if (std::find(d.choices.begin(), d.choices.end(), bs) != d.choices.end()) return bs;
        }
        auto* s = n.as_string();
        if (!s || std::find(d.choices.begin(), d.choices.end(), s->get()) == d.choices.end()) {
          const std::string dym = s ? did_you_mean(s->get(), d.choices) : std::string();
          fail(sec, key, n,
               expected + (dym.empty() ? "" : " (did you mean '" + core::echo(dym) + "'?)"));
        }
        return s->get();
      }
      case ParamKind::kInt: {
        auto v = as_int(n);
        if (!v || *v < d.int_lo || *v > d.int_hi) fail(sec, key, n, expected, float_for_int(n));
        return *v;
      }
      case ParamKind::kFloat: {
        if (!n.is_integer() && !n.is_floating_point()) fail(sec, key, n, expected);
        auto v = as_number(n, d);
        if (!v) fail(sec, key, n, expected);
        return *v;
      }
      case ParamKind::kBool:
        if (auto* b = n.as_boolean()) return b->get();
        fail(sec, key, n, "true or false");
      case ParamKind::kIntArray: {
        auto* arr = n.as_array();
        if (!arr || (d.non_empty && arr->empty())) fail(sec, key, n, expected);
        std::vector<int64_t> out;
        for (const auto& e : *arr) {
          auto v = as_int(e);
          if (!v || *v < d.int_lo || *v > d.int_hi)
            fail_element(sec, key, e, expected, float_for_int(e));
          out.push_back(*v);
        }
        return out;
      }
      case ParamKind::kStrArray: {
        auto* arr = n.as_array();
        if (!arr || (d.non_empty && arr->empty())) fail(sec, key, n, expected);
        std::vector<std::string> out;
        for (const auto& e : *arr) {
          auto* s = e.as_string();
          if (!s || s->get().empty() ||
              (d.distinct && std::find(out.begin(), out.end(), s->get()) != out.end()))
            fail_element(sec, key, e, expected);
          if (!d.choices.empty() &&
              std::find(d.choices.begin(), d.choices.end(), s->get()) == d.choices.end()) {
            const std::string dym = did_you_mean(s->get(), d.choices);
            fail_element(
                sec, key, e,
                expected + (dym.empty() ? "" : " (did you mean '" + core::echo(dym) + "'?)"));
          }
          out.push_back(s->get());
        }
        return out;
      }
      case ParamKind::kFloatArray: {
        std::vector<double> out;
        if (d.scalar_ok && (n.is_integer() || n.is_floating_point())) {
          auto v = as_number(n, d);
          if (!v) fail(sec, key, n, expected);
          out.push_back(*v);
          return out;
        }
        auto* arr = n.as_array();
        if (!arr) fail(sec, key, n, expected);
        for (const auto& e : *arr) {
          auto v = as_number(e, d);
          if (!v) fail_element(sec, key, e, expected);
          out.push_back(*v);
        }
        return out;
      }
      case ParamKind::kFloatTable: {
        auto* tbl = n.as_table();
        if (!tbl) fail(sec, key, n, expected);
        std::map<std::string, double> out;
        for (const auto& [ck, cv] : *tbl) {
          std::string ch(ck.str());
          auto v = as_number(cv, d);
          if (!v) {
            throw ConfigError(where(sec + "." + key + "." + ch, cv.source()) + "[" + sec + "] " +
                              key + "." + ch + ": expected " + d.elem_expected + ", found " +
                              describe(cv));
          }
          out[ch] = *v;
        }
        return out;
      }
    }
    fail(sec, key, n, expected);
  }

  const Schema& schema_;
  std::string file_;
  std::map<std::string, std::string> overridden_;  ///< "sec.key" -> override text
};

// ---------------------------------------------------------------------------------------------
// Overrides

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find('.', start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

/// Parses an override value as a TOML value; bare words (and any value for a string key that is
/// not itself a quoted string) become strings. Returns a one-entry table {v = value}.
toml::table parse_value(const std::string& raw, bool string_key, const std::string& ctx) {
  bool structured =
      !raw.empty() && (raw[0] == '[' || raw[0] == '{' || raw[0] == '"' || raw[0] == '\'');
  toml::table t;
  std::string error;
  try {
    t = toml::parse(std::string_view("v = " + raw), std::string_view("override"));
    if (t.size() != 1) error = "expected a single value";
  } catch (const toml::parse_error& e) {
    error = core::echo(e.description(), 200);
  }
  if (!error.empty()) {
    if (structured) throw ConfigError(ctx + "value is not valid TOML: " + error);
    if (const std::string why = string_key ? "" : detail::overflowing(raw); !why.empty())
      throw ConfigError(ctx + "expected a number a double can hold, found " + why);
    toml::table s;
    s.insert_or_assign("v", raw);
    return s;
  }
  if (string_key && !t["v"].is_string()) {
    toml::table s;
    s.insert_or_assign("v", raw);
    return s;
  }
  detail::refuse_underflow("v = " + raw, [&](uint32_t, const std::string&) { return ctx; });
  return t;
}

/// Applies one "dotted.key=value" override to the document; records it in `overridden`.
// "[learner] total_steps" -> "learner.total_steps".
std::string moved_dotted(const std::string& place) {
  const size_t close = place.find("] ");
  if (place.empty() || place[0] != '[' || close == std::string::npos) return place;
  return place.substr(1, close - 1) + "." + place.substr(close + 2);
}

void apply_override(const Schema& schema, toml::table& doc, const std::string& ov,
                    std::map<std::string, std::string>& overridden) {
  const std::string ctx = "command line override '" + core::echo(ov) + "': ";
  size_t eq = ov.find('=');
  if (eq == std::string::npos) throw ConfigError(ctx + "expected key=value");
  std::string key = trim(std::string_view(ov).substr(0, eq));
  std::string raw = trim(std::string_view(ov).substr(eq + 1));
  if (key == "seed") key = "experiment.seed";
  std::vector<std::string> parts = split_dots(key);

  if (key.empty()) throw ConfigError(ctx + "expected key=value, found no key");
  auto unknown = [&](const std::string& suggestion, const SectionSchema* in = nullptr) {
    std::string msg = ctx + "unknown key " + core::echo(key);
    if (!suggestion.empty())
      msg += " (did you mean '" + core::echo(suggestion) + "'?)";
    else if (in && !in->keys.empty())
      msg += " (valid keys of [" + in->name + "]: " + join(core::param_keys(in->keys), ", ") + ")";
    throw ConfigError(msg);
  };
  const SectionSchema* sec = find_section(schema, parts[0]);
  if (!sec) {
    // Unknown section: suggest a section.key with a similar section or the key's real home.
    std::vector<std::string> all;
    for (const auto& sd : schema)
      for (const auto& kd : sd.keys) all.push_back(sd.name + "." + kd.key);
    std::string dym;
    if (parts.size() == 1) {         // a bare key: its home section, else the closest key name
      for (const auto& sd : schema)  // the first section that has it
        if (dym.empty() && core::find_param(sd.keys, parts[0])) dym = sd.name + "." + parts[0];
      std::vector<std::string> names = {"seed"};
      for (const auto& sd : schema)
        for (const auto& kd : sd.keys) names.push_back(kd.key);
      if (dym.empty()) {
        const std::string near = did_you_mean(parts[0], names);
        if (near == "seed") dym = "seed";
        for (const auto& sd : schema)
          if (dym.empty() && !near.empty() && core::find_param(sd.keys, near))
            dym = sd.name + "." + near;
      }
    }
    if (dym.empty()) dym = did_you_mean(key, all);
    if (dym.empty() && parts.size() >= 2) {
      std::string s2 = did_you_mean(parts[0], section_names(schema));
      if (!s2.empty()) {
        const SectionSchema* sd = find_section(schema, s2);
        if (sd->free_form || core::find_param(sd->keys, parts[1]))
          dym = s2 + key.substr(parts[0].size());
      }
    }
    unknown(dym);
  }
  if (parts.size() < 2 || parts[1].empty()) unknown("");

  toml::table* sec_tbl = nullptr;
  if (auto* node = doc.get(parts[0])) {
    sec_tbl = node->as_table();
    if (!sec_tbl) throw ConfigError(ctx + "[" + parts[0] + "] in the spec is not a table");
  } else {
    sec_tbl = doc.insert_or_assign(parts[0], toml::table{}).first->second.as_table();
  }

  if (sec->free_form) {
    // Free-form: create intermediate tables along the dotted path.
    toml::table* t = sec_tbl;
    for (size_t i = 1; i + 1 < parts.size(); ++i) {
      auto* child = t->get(parts[i]);
      if (!child) child = &t->insert_or_assign(parts[i], toml::table{}).first->second;
      t = child->as_table();
      if (!t) throw ConfigError(ctx + parts[0] + "." + parts[i] + " is not a table");
    }
    toml::table v = parse_value(raw, false, ctx);
    v["v"].node()->visit([&](auto&& n) { t->insert_or_assign(parts.back(), n); });
    return;
  }

  const ParamDef* kd = core::find_param(sec->keys, parts[1]);
  if (!kd && parts.size() == 2 && sec->moved.count(parts[1]))
    throw ConfigError(ctx + key + " moved to " + sec->moved.at(parts[1]) + " (override " +
                      moved_dotted(sec->moved.at(parts[1])) + "=...)");
  if (!kd) {
    std::string dym = did_you_mean(parts[1], core::param_keys(sec->keys));
    unknown(dym.empty() ? "" : parts[0] + "." + dym, sec);
  }
  if (kd->kind == ParamKind::kFloatTable && parts.size() == 3) {
    // reward.penalty.<channel>=w sets one channel.
    toml::node* pn = sec_tbl->get(parts[1]);
    if (!pn) pn = &sec_tbl->insert_or_assign(parts[1], toml::table{}).first->second;
    toml::table* pt = pn->as_table();
    if (!pt) throw ConfigError(ctx + "[" + parts[0] + "] " + parts[1] + " is not a table");
    toml::table v = parse_value(raw, false, ctx);
    v["v"].node()->visit([&](auto&& n) { pt->insert_or_assign(parts[2], n); });
    overridden[key] = ov;
    return;
  }
  if (parts.size() != 2) unknown(parts[0] + "." + parts[1]);
  const bool string_key = kd->kind == ParamKind::kStr || kd->kind == ParamKind::kChoice;
  toml::table v = parse_value(raw, string_key, ctx);
  v["v"].node()->visit([&](auto&& n) { sec_tbl->insert_or_assign(parts[1], n); });
  overridden[key] = ov;
}

/// The override text of sec.key (last one wins) as a string value, if any.
std::optional<std::string> override_string(const std::vector<std::string>& overrides,
                                           const std::string& dotted) {
  std::optional<std::string> out;
  for (const auto& ov : overrides) {
    size_t eq = ov.find('=');
    if (eq == std::string::npos || trim(std::string_view(ov).substr(0, eq)) != dotted) continue;
    toml::table v = parse_value(trim(std::string_view(ov).substr(eq + 1)), true,
                                "command line override '" + core::echo(ov) + "': ");
    if (auto* s = v["v"].as_string()) out = s->get();
  }
  return out;
}

}  // namespace

std::string SectionValues::at(const std::string& dotted) const {
  auto it = where.find(dotted);
  return it != where.end() ? it->second : file + ": ";
}

const core::ParamValue* SectionValues::find(const std::string& sec, const std::string& key) const {
  auto s = sections.find(sec);
  if (s == sections.end() || !s->second.has(key)) return nullptr;
  return &s->second.at(key);
}

SectionValues read_toml(
    const std::string& text, const std::string& file, const std::vector<std::string>& overrides,
    const std::function<std::vector<SectionSchema>(const PeekFn&, const WhereFn&)>& schema_for) {
  toml::table doc;
  try {
    doc = toml::parse(std::string_view(text), std::string_view(file));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    std::string what(e.description());
    // toml++ garbles the key of this one ('"lelearning_rate" ' for "learning_rate" after
    // learning_rate): say it in our words, with the line as written.
    if (what.find("cannot redefine existing") != std::string::npos) {
      std::istringstream in(text);
      std::string line;
      for (uint32_t i = 0; i < b.line && std::getline(in, line);) ++i;
      if (!trim(line).starts_with("["))  // table headers come out right
        what = "expected each key once in its table, found one defined again: '" +
               core::echo(trim(line), 120) + "'";
    }
    throw ConfigError(file + ": TOML syntax error at line " + std::to_string(b.line) + ", column " +
                      std::to_string(b.column) + ": " + core::echo(what, 200));
  }
  detail::refuse_underflow(text, [&](uint32_t line, const std::string& dotted) {
    const size_t dot = dotted.find('.');  // "env.outage_rate" -> "[env] outage_rate: "
    return file + ":" + std::to_string(line) + ": " +
           (dot == std::string::npos
                ? "[" + dotted + "]"
                : "[" + dotted.substr(0, dot) + "] " + dotted.substr(dot + 1)) +
           ": ";
  });
  auto peek = [&](const std::string& sec, const std::string& key) -> std::optional<std::string> {
    if (auto ov = override_string(overrides, sec + "." + key)) return ov;
    if (auto* s = doc[sec][key].as_string()) return s->get();
    return std::nullopt;
  };
  auto where = [&](const std::string& sec, const std::string& key) -> std::string {
    for (const auto& ov : overrides) {
      size_t eq = ov.find('=');
      if (eq != std::string::npos && trim(std::string_view(ov).substr(0, eq)) == sec + "." + key)
        return "command line override '" + core::echo(ov) + "': ";
    }
    if (auto* n = doc[sec][key].node(); n && n->source().begin.line > 0)
      return file + ":" + std::to_string(n->source().begin.line) + ": ";
    return file + ": ";
  };
  // Two overrides of one key: the last used to win silently (seed=1 ... seed=2).
  std::map<std::string, std::string> first_of;
  for (const auto& ov : overrides) {
    const size_t eq = ov.find('=');
    if (eq == std::string::npos) continue;
    std::string key = trim(std::string_view(ov).substr(0, eq));
    if (key == "seed") key = "experiment.seed";
    if (const auto [it, fresh] = first_of.emplace(key, ov); !fresh)
      throw ConfigError("command line override '" + core::echo(ov) + "': key '" + core::echo(key) +
                        "' given twice (first as '" + core::echo(it->second) + "')");
  }
  const Schema schema = schema_for(peek, where);
  std::map<std::string, std::string> overridden;
  for (const auto& ov : overrides) apply_override(schema, doc, ov, overridden);
  Reader reader(schema, file, std::move(overridden));
  return reader.read(doc);
}

}  // namespace pz::io
