// Experiment spec parsing (toml++): strict schema, range checks, overrides, canonical TOML output.
#include "powerzoo/io/spec.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>

#include "powerzoo/core/error.hpp"
#include "powerzoo/io/spec_schema.hpp"

namespace pz::io {
namespace {

using core::ConfigError;

using namespace detail;

// ---------------------------------------------------------------------------------------------
// Error-message and [sweep] formatting (toml++ nodes)

/// How a found value is shown in error messages.
std::string describe(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return quote(*n.value<std::string>());
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
// Reader: converts the (override-patched) TOML document into a Spec with precise errors.

class Reader {
 public:
  Reader(std::string file, std::map<std::string, std::string> overridden)
      : file_(std::move(file)), overridden_(std::move(overridden)) {}

  /// "spec.toml:12: ", "command line override 'x=1': " or "spec.toml: ".
  std::string where(const std::string& dotted, const toml::source_region& src) const {
    if (auto it = overridden_.find(dotted); it != overridden_.end()) {
      return "command line override '" + it->second + "': ";
    }
    if (src.begin.line > 0) return file_ + ":" + std::to_string(src.begin.line) + ": ";
    return file_ + ": ";
  }

  [[noreturn]] void fail(const std::string& sec, const std::string& key, const toml::node& n,
                         const std::string& expected) const {
    throw ConfigError(where(sec + "." + key, n.source()) + "[" + sec + "] " + key + ": expected " +
                      expected + ", found " + describe(n));
  }

  int64_t get_int(const std::string& sec, const std::string& key, const toml::node& n, int64_t lo,
                  int64_t hi) const {
    std::string expected =
        hi == std::numeric_limits<int64_t>::max() || hi == INT_MAX
            ? "an integer >= " + std::to_string(lo)
            : "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    int64_t v = 0;
    if (auto* i = n.as_integer()) {
      v = i->get();
    } else if (auto* f = n.as_floating_point()) {
      // An integral float (total_steps = 1e6) is accepted silently.
      double d = f->get();
      if (!(std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18))
        fail(sec, key, n, expected);
      v = static_cast<int64_t>(d);
    } else {
      fail(sec, key, n, expected);
    }
    if (v < lo || v > hi) fail(sec, key, n, expected);
    return v;
  }

  double get_float(const std::string& sec, const std::string& key, const toml::node& n,
                   const std::function<bool(double)>& ok, const std::string& expected) const {
    double v = 0;
    if (auto* i = n.as_integer()) {
      v = static_cast<double>(i->get());
    } else if (auto* f = n.as_floating_point()) {
      v = f->get();
    } else {
      fail(sec, key, n, expected);
    }
    if (!std::isfinite(v) || !ok(v)) fail(sec, key, n, expected);
    return v;
  }

  std::string get_str(const std::string& sec, const std::string& key, const toml::node& n) const {
    if (auto* s = n.as_string()) return s->get();
    fail(sec, key, n, "a string");
  }

  std::string get_choice(const std::string& sec, const std::string& key, const toml::node& n,
                         const std::vector<std::string>& choices) const {
    std::string expected = "one of ";
    for (size_t i = 0; i < choices.size(); ++i) expected += (i ? ", " : "") + quote(choices[i]);
    auto* s = n.as_string();
    if (!s || std::find(choices.begin(), choices.end(), s->get()) == choices.end()) {
      fail(sec, key, n, expected);
    }
    return s->get();
  }

  bool get_bool(const std::string& sec, const std::string& key, const toml::node& n) const {
    if (auto* b = n.as_boolean()) return b->get();
    fail(sec, key, n, "true or false");
  }

  void read(const toml::table& doc, Spec& s) {
    for (const auto& [k, node] : sorted(doc)) {
      std::string name(k->str());
      const SectionDef* sec = find_section(name);
      if (!sec) {
        std::string msg = where(name, k->source());
        if (!node->is_table()) {
          // A top-level key such as `seed = 3`: point at the section it belongs to.
          std::string home;
          for (const auto& sd : schema()) {
            if (find_key(sd, name)) home = sd.name;
          }
          msg += "top-level key '" + name + "' is not allowed; keys belong in a section";
          if (!home.empty()) msg += " (did you mean [" + home + "] " + name + "?)";
          throw ConfigError(msg);
        }
        msg += "unknown section [" + name + "]";
        std::string dym = did_you_mean(name, section_names());
        msg += dym.empty() ? " (valid sections: " + join(section_names(), ", ") + ")"
                           : " (did you mean '" + dym + "'?)";
        throw ConfigError(msg);
      }
      const toml::table* tbl = node->as_table();
      if (!tbl) {
        throw ConfigError(where(name, node->source()) + "[" + name + "] must be a table, found " +
                          describe(*node));
      }
      if (name == "sweep") {
        read_sweep(*tbl, s);
        continue;
      }
      for (const auto& [kk, vn] : sorted(*tbl)) {
        std::string key(kk->str());
        if (!find_key(*sec, key)) {
          std::string msg =
              where(name + "." + key, kk->source()) + "unknown key [" + name + "] " + key;
          std::string dym = did_you_mean(key, key_names(*sec));
          msg += dym.empty() ? " (valid keys: " + join(key_names(*sec), ", ") + ")"
                             : " (did you mean '" + dym + "'?)";
          throw ConfigError(msg);
        }
        prefix_[name + "." + key] = where(name + "." + key, vn->source());
        read_key(name, key, *vn, s);
      }
    }
    check_cross(s);
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

  void read_sweep(const toml::table& tbl, Spec& s) const { s.sweep_toml = sweep_body(tbl); }

  void read_key(const std::string& sec, const std::string& key, const toml::node& n, Spec& s) {
    constexpr int64_t kIntMax = INT_MAX;
    constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
    auto pos = [](double x) { return x > 0; };
    auto nonneg = [](double x) { return x >= 0; };
    auto unit = [](double x) { return x >= 0 && x <= 1; };
    auto I = [&](int64_t lo, int64_t hi) { return get_int(sec, key, n, lo, hi); };
    auto F = [&](const std::function<bool(double)>& ok, const char* expected) {
      return get_float(sec, key, n, ok, expected);
    };
    auto S = [&] { return get_str(sec, key, n); };

    if (sec == "experiment") {
      if (key == "name") {
        std::string v = S();
        if (v.empty() || v.find('/') != std::string::npos) {
          fail(sec, key, n, "a non-empty string without '/'");
        }
        s.experiment.name = v;
      } else if (key == "seed") {
        s.experiment.seed = I(0, kI64Max);
      } else if (key == "out_dir") {
        s.experiment.out_dir = S();
      }
    } else if (sec == "env") {
      if (key == "id") {
        s.env.id = S();
      } else if (key == "task") {
        s.env.task = S();
      } else if (key == "case") {
        s.env.case_name = S();
      } else if (key == "profile") {
        s.env.profile = S();
      } else if (key == "split") {
        s.env.split = S();
      } else if (key == "horizon") {
        s.env.horizon = static_cast<int>(I(1, kIntMax));
      } else if (key == "dt_hours") {
        s.env.dt_hours = F([](double x) { return x > 0 && x <= 24; }, "a number in (0, 24]");
      } else if (key == "load_scale") {
        s.env.load_scale = F(pos, "a number > 0");
      } else if (key == "reward_scale") {
        s.env.reward_scale = F(pos, "a number > 0");
      } else if (key == "dispatch") {
        s.env.dispatch = get_choice(sec, key, n, {"agent", "dcopf"});
      } else if (key == "report_opf_gap") {
        s.env.report_opf_gap = get_bool(sec, key, n);
      }
    } else if (sec == "vec") {
      if (key == "n_envs") {
        s.vec.n_envs = static_cast<int>(I(1, 65536));
      } else if (key == "threads") {
        s.vec.threads = static_cast<int>(I(0, 1024));
      }
    } else if (sec == "ppo") {
      auto& p = s.ppo;
      if (key == "total_steps") {
        p.total_steps = I(1, kI64Max);
      } else if (key == "rollout_length") {
        p.rollout_length = static_cast<int>(I(1, kIntMax));
      } else if (key == "n_epochs") {
        p.n_epochs = static_cast<int>(I(1, kIntMax));
      } else if (key == "n_minibatches") {
        p.n_minibatches = static_cast<int>(I(1, kIntMax));
      } else if (key == "learning_rate") {
        p.learning_rate = F(pos, "a number > 0");
      } else if (key == "gamma") {
        p.gamma = F(unit, "a number in [0, 1]");
      } else if (key == "gae_lambda") {
        p.gae_lambda = F(unit, "a number in [0, 1]");
      } else if (key == "clip_range") {
        p.clip_range = F(pos, "a number > 0");
      } else if (key == "entropy_coef") {
        p.entropy_coef = F(nonneg, "a number >= 0");
      } else if (key == "critic_loss_weight") {
        p.critic_loss_weight = F(nonneg, "a number >= 0");
      } else if (key == "max_grad_norm") {
        p.max_grad_norm = F(nonneg, "a number >= 0");
      } else if (key == "weight_decay") {
        p.weight_decay = F(nonneg, "a number >= 0");
      } else if (key == "adam_eps") {
        p.adam_eps = F(pos, "a number > 0");
      } else if (key == "init_log_std") {
        p.init_log_std = F([](double x) { return x >= -10 && x <= 5; }, "a number in [-10, 5]");
      } else if (key == "normalize_obs") {
        p.normalize_obs = get_bool(sec, key, n);
      } else if (key == "normalize_advantages") {
        p.normalize_advantages = get_bool(sec, key, n);
      } else if (key == "normalize_rewards") {
        p.normalize_rewards = get_bool(sec, key, n);
      } else if (key == "truncation") {
        p.truncation = get_choice(sec, key, n, {"bootstrap", "zero_td"}) == "bootstrap"
                           ? rl::Truncation::kBootstrap
                           : rl::Truncation::kZeroTd;
      } else if (key == "squash") {
        p.squash = get_choice(sec, key, n, {"none", "tanh"}) == "tanh" ? rl::Squash::kTanh
                                                                       : rl::Squash::kNone;
      } else if (key == "algo") {
        const std::string a = get_choice(sec, key, n, {"ppo", "ppo_lagrangian", "saute_ppo"});
        p.algo = a == "ppo"              ? rl::Algo::kPpo
                 : a == "ppo_lagrangian" ? rl::Algo::kPpoLagrangian
                                         : rl::Algo::kSautePpo;
      } else if (key == "lambda_lr") {
        p.lambda_lr = F(nonneg, "a number >= 0");
      } else if (key == "lambda_init") {
        p.lambda_init = F(pos, "a number > 0");
      } else if (key == "log_lambda_max") {
        p.log_lambda_max = F(pos, "a number > 0");
      } else if (key == "cost_gamma") {
        p.cost_gamma = F(unit, "a number in [0, 1]");
      } else if (key == "dual") {
        p.dual = get_choice(sec, key, n, {"log_ascent", "pid"}) == "pid" ? rl::DualRule::kPid
                                                                         : rl::DualRule::kLogAscent;
      } else if (key == "pid_kp") {
        p.pid_kp = F(nonneg, "a number >= 0");
      } else if (key == "pid_ki") {
        p.pid_ki = F(nonneg, "a number >= 0");
      } else if (key == "pid_kd") {
        p.pid_kd = F(nonneg, "a number >= 0");
      } else if (key == "saute_unsafe_reward") {
        p.saute_unsafe_reward = F([](double) { return true; }, "a finite number");
      } else if (key == "hidden") {
        const char* expected = "a non-empty array of integers in [1, 4096]";
        auto* arr = n.as_array();
        if (!arr || arr->empty()) fail(sec, key, n, expected);
        std::vector<int> hidden;
        for (const auto& e : *arr) {
          bool ok = false;
          if (auto* i = e.as_integer()) {
            ok = i->get() >= 1 && i->get() <= 4096;
            if (ok) hidden.push_back(static_cast<int>(i->get()));
          } else if (auto* f = e.as_floating_point()) {
            double d = f->get();
            ok = d == std::floor(d) && d >= 1 && d <= 4096;
            if (ok) hidden.push_back(static_cast<int>(d));
          }
          if (!ok) {
            throw ConfigError(where(sec + "." + key, e.source()) + "[ppo] hidden: expected " +
                              expected + ", found element " + describe(e));
          }
        }
        p.hidden = hidden;
      }
    } else if (sec == "reward") {
      if (key == "penalty") {
        auto* tbl = n.as_table();
        if (!tbl) fail(sec, key, n, "a table of channel = weight (weights >= 0)");
        std::map<std::string, double> pen;
        for (const auto& [ck, cv] : *tbl) {
          std::string ch(ck.str());
          std::string dotted = "reward.penalty." + ch;
          const std::optional<double> v = cv.value<double>();  // ints convert to double
          if (!cv.is_number() || !v || !std::isfinite(*v) || *v < 0) {
            throw ConfigError(where(dotted, cv.source()) + "[reward] penalty." + ch +
                              ": expected a number >= 0, found " + describe(cv));
          }
          pen[ch] = *v;
        }
        s.penalty = pen;
      }
    } else if (sec == "safety") {
      // Safe-RL view (rl.md §2.1 SafeRLWrapper): channel names are checked against the env later.
      auto floats = [&](const char* expected, bool scalar_ok, const auto& ok) {
        std::vector<double> out;
        if (scalar_ok && (n.is_integer() || n.is_floating_point())) {
          out.push_back(F(ok, expected));
          return out;
        }
        auto* arr = n.as_array();
        if (!arr) fail(sec, key, n, expected);
        for (const auto& e : *arr) {
          double v = NAN;
          if (auto* i = e.as_integer()) v = static_cast<double>(i->get());
          if (auto* f = e.as_floating_point()) v = f->get();
          if (!std::isfinite(v) || !ok(v)) {
            throw ConfigError(where(sec + "." + key, e.source()) + "[safety] " + key +
                              ": expected " + expected + ", found element " + describe(e));
          }
          out.push_back(v);
        }
        return out;
      };
      if (key == "constraints") {
        const char* expected = "an array of distinct non-empty strings";
        auto* arr = n.as_array();
        if (!arr) fail(sec, key, n, expected);
        std::vector<std::string> names;
        for (const auto& e : *arr) {
          auto* str = e.as_string();
          if (!str || str->get().empty() ||
              std::find(names.begin(), names.end(), str->get()) != names.end()) {
            throw ConfigError(where(sec + "." + key, e.source()) +
                              "[safety] constraints: expected " + expected + ", found element " +
                              describe(e));
          }
          names.push_back(str->get());
        }
        s.safety.constraints = names;
      } else if (key == "thresholds") {
        s.safety.thresholds = floats("an array of numbers >= 0", false, nonneg);
      } else if (key == "cost_scale") {
        s.safety.cost_scale = floats("a number > 0 or an array of numbers > 0", true, pos);
      }
    } else if (sec == "eval") {
      if (key == "every_steps") {
        s.eval.every_steps = I(0, kI64Max);
      } else if (key == "n_episodes") {
        s.eval.n_episodes = static_cast<int>(I(1, kIntMax));
      } else if (key == "splits") {
        const char* expected = "a non-empty array of non-empty strings";
        auto* arr = n.as_array();
        if (!arr || arr->empty()) fail(sec, key, n, expected);
        std::vector<std::string> splits;
        for (const auto& e : *arr) {
          auto* str = e.as_string();
          if (!str || str->get().empty()) {
            throw ConfigError(where(sec + "." + key, e.source()) + "[eval] splits: expected " +
                              expected + ", found element " + describe(e));
          }
          splits.push_back(str->get());
        }
        s.eval.splits = splits;
      }
    } else if (sec == "output") {
      if (key == "trajectories") {
        s.output.trajectories = get_choice(sec, key, n, {"none", "eval", "train-sample"});
      } else if (key == "checkpoint_every_steps") {
        s.output.checkpoint_every_steps = I(0, kI64Max);
      } else if (key == "keep_checkpoints") {
        s.output.keep_checkpoints = static_cast<int>(I(1, kIntMax));
      }
    }
  }

  /// Checks that involve more than one key.
  void check_cross(const Spec& s) const {
    {  // [safety]: per-channel lists agree; the safe algorithms need channels.
      const auto& sf = s.safety;
      auto at = [&](const char* k) {
        auto it = prefix_.find(std::string("safety.") + k);
        return it != prefix_.end() ? it->second : file_ + ": ";
      };
      const size_t k = sf.constraints.size();
      if (!sf.thresholds.empty() && sf.thresholds.size() != k)
        throw ConfigError(at("thresholds") + "[safety] thresholds: expected " + std::to_string(k) +
                          " values (one per constraint), found " +
                          std::to_string(sf.thresholds.size()));
      if (sf.cost_scale.size() > 1 && sf.cost_scale.size() != k)
        throw ConfigError(at("cost_scale") + "[safety] cost_scale: expected a number or " +
                          std::to_string(k) + " values (one per constraint), found " +
                          std::to_string(sf.cost_scale.size()));
      if (s.ppo.algo != rl::Algo::kPpo && k == 0) {
        auto it = prefix_.find("ppo.algo");
        throw ConfigError(
            (it != prefix_.end() ? it->second : file_ + ": ") + "[ppo] algo = " +
            (s.ppo.algo == rl::Algo::kSautePpo ? "\"saute_ppo\"" : "\"ppo_lagrangian\"") +
            " needs [safety] constraints (a non-empty list of cost channels)");
      }
      if (s.ppo.algo == rl::Algo::kSautePpo) {
        bool ok = sf.thresholds.size() == k;
        for (double d : sf.thresholds) ok = ok && d > 0;
        if (!ok)
          throw ConfigError(at("thresholds") +
                            "[safety] thresholds: saute_ppo needs one budget > 0 per constraint "
                            "(a zero budget makes every reward the unsafe reward)");
      }
    }
    if (s.vec.n_envs % s.ppo.n_minibatches != 0) {
      std::string at = file_ + ": ";
      if (auto it = prefix_.find("ppo.n_minibatches"); it != prefix_.end())
        at = it->second;
      else if (auto it2 = prefix_.find("vec.n_envs"); it2 != prefix_.end())
        at = it2->second;
      throw ConfigError(at + "[ppo] n_minibatches = " + std::to_string(s.ppo.n_minibatches) +
                        " must divide [vec] n_envs = " + std::to_string(s.vec.n_envs) +
                        " (minibatches split the env axis)");
    }
  }

  std::string file_;
  std::map<std::string, std::string> overridden_;  ///< "sec.key" -> override text
  std::map<std::string, std::string> prefix_;      ///< "sec.key" -> location prefix
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
toml::table parse_value(const std::string& raw, Kind kind, const std::string& ctx) {
  bool structured =
      !raw.empty() && (raw[0] == '[' || raw[0] == '{' || raw[0] == '"' || raw[0] == '\'');
  toml::table t;
  std::string error;
  try {
    t = toml::parse(std::string_view("v = " + raw), std::string_view("override"));
    if (t.size() != 1) error = "expected a single value";
  } catch (const toml::parse_error& e) {
    error = std::string(e.description());
  }
  if (!error.empty()) {
    if (structured) throw ConfigError(ctx + "value is not valid TOML: " + error);
    toml::table s;
    s.insert_or_assign("v", raw);
    return s;
  }
  if (kind == Kind::kStr && !t["v"].is_string()) {
    toml::table s;
    s.insert_or_assign("v", raw);
    return s;
  }
  return t;
}

/// Applies one "dotted.key=value" override to the document; records it in `overridden`.
void apply_override(toml::table& doc, const std::string& ov,
                    std::map<std::string, std::string>& overridden) {
  const std::string ctx = "command line override '" + ov + "': ";
  size_t eq = ov.find('=');
  if (eq == std::string::npos) throw ConfigError(ctx + "expected key=value");
  std::string key = trim(std::string_view(ov).substr(0, eq));
  std::string raw = trim(std::string_view(ov).substr(eq + 1));
  if (key == "seed") key = "experiment.seed";
  std::vector<std::string> parts = split_dots(key);

  auto unknown = [&](const std::string& suggestion) {
    std::string msg = ctx + "unknown key " + key;
    if (!suggestion.empty()) msg += " (did you mean '" + suggestion + "'?)";
    throw ConfigError(msg);
  };
  const SectionDef* sec = find_section(parts[0]);
  if (!sec) {
    // Unknown section: suggest a section.key with a similar section or the key's real home.
    std::vector<std::string> all;
    for (const auto& sd : schema()) {
      for (const auto& kd : sd.keys) all.push_back(std::string(sd.name) + "." + kd.key);
    }
    std::string dym = did_you_mean(key, all);
    if (dym.empty() && parts.size() == 1) {
      for (const auto& sd : schema()) {
        if (find_key(sd, parts[0])) dym = std::string(sd.name) + "." + parts[0];
      }
    }
    if (dym.empty() && parts.size() >= 2) {
      std::string s2 = did_you_mean(parts[0], section_names());
      if (!s2.empty()) {
        const SectionDef* sd = find_section(s2);
        if (sd->keys.empty() || find_key(*sd, parts[1])) dym = s2 + key.substr(parts[0].size());
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

  if (parts[0] == "sweep") {
    // Free-form: create intermediate tables along the dotted path.
    toml::table* t = sec_tbl;
    for (size_t i = 1; i + 1 < parts.size(); ++i) {
      auto* child = t->get(parts[i]);
      if (!child) child = &t->insert_or_assign(parts[i], toml::table{}).first->second;
      t = child->as_table();
      if (!t) throw ConfigError(ctx + "sweep." + parts[i] + " is not a table");
    }
    toml::table v = parse_value(raw, Kind::kFloat, ctx);
    v["v"].node()->visit([&](auto&& n) { t->insert_or_assign(parts.back(), n); });
    return;
  }

  const KeyDef* kd = find_key(*sec, parts[1]);
  if (!kd) {
    std::string dym = did_you_mean(parts[1], key_names(*sec));
    unknown(dym.empty() ? "" : parts[0] + "." + dym);
  }
  if (kd->kind == Kind::kFloatTable && parts.size() == 3) {
    // reward.penalty.<channel>=w sets one channel.
    toml::node* pn = sec_tbl->get(parts[1]);
    if (!pn) pn = &sec_tbl->insert_or_assign(parts[1], toml::table{}).first->second;
    toml::table* pt = pn->as_table();
    if (!pt) throw ConfigError(ctx + "[" + parts[0] + "] " + parts[1] + " is not a table");
    toml::table v = parse_value(raw, Kind::kFloat, ctx);
    v["v"].node()->visit([&](auto&& n) { pt->insert_or_assign(parts[2], n); });
    overridden[key] = ov;
    return;
  }
  if (parts.size() != 2) unknown(parts[0] + "." + parts[1]);
  toml::table v = parse_value(raw, kd->kind, ctx);
  v["v"].node()->visit([&](auto&& n) { sec_tbl->insert_or_assign(parts[1], n); });
  overridden[key] = ov;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public API

Spec parse_spec(const std::string& toml_text, const std::string& file,
                const std::vector<std::string>& overrides) {
  toml::table doc;
  try {
    doc = toml::parse(std::string_view(toml_text), std::string_view(file));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw ConfigError(file + ": TOML syntax error at line " + std::to_string(b.line) + ", column " +
                      std::to_string(b.column) + ": " + std::string(e.description()));
  }
  std::map<std::string, std::string> overridden;
  for (const auto& ov : overrides) apply_override(doc, ov, overridden);

  Spec s;
  s.source_path = file;
  Reader reader(file, std::move(overridden));
  reader.read(doc, s);
  return s;
}

Spec load_spec(const std::string& path, const std::vector<std::string>& overrides) {
  if (std::filesystem::is_directory(path)) {
    throw ConfigError(path + ": expected a spec file (TOML), found a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ConfigError(path + ": cannot read spec file (" + std::string(std::strerror(errno)) + ")");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ConfigError(path + ": error while reading spec file");
  if (ss.str().find_first_not_of(" \t\r\n") == std::string::npos) {
    throw ConfigError(path +
                      ": expected an experiment spec (TOML with at least an [env] or "
                      "[experiment] section), found an empty file");
  }
  return parse_spec(ss.str(), path, overrides);
}

}  // namespace pz::io
