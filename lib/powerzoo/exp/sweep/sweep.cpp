// Sweep expansion, sweep.json manifest and SLURM job-array script.
#include "powerzoo/exp/sweep/sweep.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/stop_signal.hpp"
#include "powerzoo/core/utc_time.hpp"
#include "powerzoo/io/toml_format.hpp"

namespace fs = std::filesystem;

namespace pz::exp {
namespace {

using core::ConfigError;

std::string fmt_double(double v) { return io::toml_double(v); }

std::string quote_toml(const std::string& s) { return io::toml_quote(s); }

/// A TOML value as override text (what follows `key=`).
std::string value_text(const toml::node& n) {
  if (auto* t = n.as_table()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : *t) {
      out += (first ? " " : ", ") + quote_toml(std::string(k.str())) + " = " + value_text(v);
      first = false;
    }
    return out + " }";
  }
  if (auto* a = n.as_array()) {
    std::string out = "[";
    for (size_t i = 0; i < a->size(); ++i) out += (i ? ", " : "") + value_text((*a)[i]);
    return out + "]";
  }
  if (auto* s = n.as_string()) return quote_toml(s->get());
  if (auto* i = n.as_integer()) return std::to_string(i->get());
  if (auto* f = n.as_floating_point()) return fmt_double(f->get());
  if (auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  std::ostringstream os;
  n.visit([&](auto&& v) { os << v; });
  return os.str();
}

/// A TOML value as text for comparison: numbers by value (1, 1.0 and 1e0 are one value), arrays
/// element by element ([8,8] and [8, 8] are one value), the rest as TOML writes it.
std::string canonical_node(const toml::node& n, bool top = true) {
  if (n.is_integer() || n.is_floating_point()) return io::toml_double(*n.value<double>());
  if (const auto* a = n.as_array()) {
    std::string out = "[";
    for (const auto& e : *a) out += canonical_node(e, false) + ",";
    return out + "]";
  }
  if (const auto* str = n.as_string(); str && top) return str->get();  // "case5" is case5
  std::ostringstream os;
  n.visit([&](auto&& v) { os << v; });
  return os.str();
}

std::string canonical_value(const std::string& text) {
  try {
    const toml::table t = toml::parse(std::string_view("v = " + text), std::string_view("value"));
    return canonical_node(*t.get("v"));
  } catch (const toml::parse_error&) {
  }
  return text;
}

/// A value listed twice ran the same trial twice under two trial ids.
void check_distinct(const std::string& where, const std::vector<std::string>& values) {
  for (size_t i = 0; i < values.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (canonical_value(values[i]) == canonical_value(values[j]))
        throw ConfigError(where + ": expected distinct values, found " + core::echo(values[i]) +
                          " twice");
}

struct Axis {
  std::string key;
  std::vector<std::string> values;  ///< override value texts
};

struct RandomDim {
  std::string key;
  double low = 0, high = 0;
  bool log = false, integer = false;
  std::vector<std::string> choices;  ///< non-empty: uniform choice
};

/// Flattens the [sweep] table into axes (arrays), fixed overrides (scalars) and the random part.
void flatten(const toml::table& t, const std::string& prefix, std::vector<Axis>& axes,
             std::vector<std::string>& fixed, const toml::table** random) {
  for (const auto& [k, v] : t) {
    const std::string key =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (prefix.empty() && k.str() == "random") {
      if (!v.is_table()) throw ConfigError("[sweep] random: expected a table, found another value");
      *random = v.as_table();
      continue;
    }
    if (auto* sub = v.as_table()) {
      flatten(*sub, key, axes, fixed, random);
    } else if (auto* a = v.as_array()) {
      if (a->empty())
        throw ConfigError("[sweep] " + core::echo(key) +
                          ": expected a non-empty list of values, found []");
      Axis ax{key, {}};
      for (const auto& e : *a) ax.values.push_back(value_text(e));
      check_distinct("[sweep] " + core::echo(key), ax.values);
      axes.push_back(std::move(ax));
    } else {
      fixed.push_back(key + "=" + value_text(v));
    }
  }
}

std::vector<RandomDim> read_random(const toml::table& r, int64_t* n) {
  *n = 0;
  std::vector<RandomDim> dims;
  for (const auto& [k, v] : r) {
    const std::string key(k.str());
    const std::string ctx = "[sweep.random] " + core::echo(key) + ": ";
    if (key == "n") {
      auto x = v.value<int64_t>();
      if (!v.is_integer() || !x || *x < 1 || *x > 100000)
        throw ConfigError(ctx + "expected an integer sample count in [1, 100000]");
      *n = *x;
      continue;
    }
    RandomDim d;
    d.key = key;
    if (auto* a = v.as_array()) {
      if (a->empty()) throw ConfigError(ctx + "expected a non-empty list of choices, found []");
      for (const auto& e : *a) d.choices.push_back(value_text(e));
    } else if (auto* t = v.as_table()) {
      for (const auto& [tk, tv] : *t)
        if (tk.str() != "low" && tk.str() != "high" && tk.str() != "log")
          throw ConfigError(ctx + "unknown range key '" + core::echo(tk.str()) +
                            "' (expected low, high, log)");
      auto lo = (*t)["low"].value<double>(), hi = (*t)["high"].value<double>();
      if (!lo || !hi) throw ConfigError(ctx + "expected { low = number, high = number }");
      d.low = *lo;
      d.high = *hi;
      d.log = (*t)["log"].value_or(false);
      d.integer = (*t)["low"].is_integer() && (*t)["high"].is_integer() && !d.log;
      if (!(d.low <= d.high) || !std::isfinite(d.low) || !std::isfinite(d.high))
        throw ConfigError(ctx + "expected finite low <= high, found low = " + fmt_double(d.low) +
                          ", high = " + fmt_double(d.high));
      if (d.log && d.low <= 0)
        throw ConfigError(ctx + "log = true needs low > 0, found " + fmt_double(d.low));
    } else {
      throw ConfigError(ctx + "expected { low, high, log } or a list of choices");
    }
    dims.push_back(std::move(d));
  }
  if (*n == 0 && !dims.empty())
    throw ConfigError("[sweep.random]: expected n = <number of samples>, found none");
  return dims;
}

/// RAII exclusive flock on a lock file.
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw core::RunError(path + ": cannot open lock file");
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) break;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

nlohmann::json to_json(const Manifest& m) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["spec"] = m.spec_file;
  j["args"] = m.args;
  j["n_trials"] = m.trials.size();
  j["trials"] = nlohmann::json::array();
  for (const auto& t : m.trials) {
    j["trials"].push_back({{"index", t.trial.index},
                           {"id", t.trial.id},
                           {"overrides", t.trial.overrides},
                           {"run_dir", t.run_dir},
                           {"status", t.status},
                           {"message", t.message},
                           {"attempts", t.attempts},
                           {"updated_utc", t.updated_utc}});
  }
  return j;
}

}  // namespace

std::vector<std::string> split_grid_values(const std::string& raw) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  char q = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (q) {
      if (c == '\\' && q == '"' && i + 1 < raw.size()) {
        cur += c;
        cur += raw[++i];
        continue;
      }
      if (c == q) q = 0;
    } else if (c == '"' || c == '\'') {
      q = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

std::string trial_id(int index, const std::vector<std::string>& overrides) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& o : overrides) {
    for (unsigned char c : o) h = (h ^ c) * 0x100000001b3ull;
    h = (h ^ 0xffu) * 0x100000001b3ull;  // separator
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "t%d-%08x", index, static_cast<unsigned>(h ^ (h >> 32)));
  return buf;
}

std::vector<Trial> expand_sweep(const std::string& spec_text, const std::string& spec_file,
                                const std::vector<std::string>& args, size_t max_trials) {
  // Command-line arguments: one value = fixed override, several = grid axis.
  std::vector<std::string> cli_fixed;
  std::vector<Axis> cli_axes;
  std::set<std::string> cli_keys;
  for (const auto& a : args) {
    const size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError("command line argument '" + core::echo(a) +
                        "': expected key=value or key=v1,v2,...");
    std::string key = a.substr(0, eq);
    if (key == "experiment.seed") key = "seed";
    const auto vals = split_grid_values(a.substr(eq + 1));
    for (const auto& v : vals)
      if (v.find_first_not_of(" \t") == std::string::npos)
        throw ConfigError("command line argument '" + core::echo(a) +
                          "': empty value in the list (no spaces around commas)");
    // The last of two values used to win silently (seed=1 seed=2 ran one seed).
    if (!cli_keys.insert(key).second)
      throw ConfigError("command line argument '" + core::echo(a) + "': key '" + core::echo(key) +
                        "' given twice (give its values once, as key=v1,v2,...)");
    check_distinct("command line argument '" + core::echo(a) + "'", vals);
    if (vals.size() == 1) {
      cli_fixed.push_back(key + "=" + vals[0]);
    } else {
      cli_axes.push_back({key, vals});
    }
  }
  // The base spec: file + fixed command-line overrides (validates them, gives seed and [sweep]).
  const Spec base = parse_spec(spec_text, spec_file, cli_fixed, true);
  toml::table sweep;
  try {
    sweep = toml::parse(std::string_view(base.sweep_toml), std::string_view(spec_file));
  } catch (const toml::parse_error& e) {
    throw ConfigError(spec_file + ": [sweep]: " + core::echo(e.description(), 200));
  }
  std::vector<Axis> axes;
  std::vector<std::string> fixed;
  const toml::table* random = nullptr;
  flatten(sweep, "", axes, fixed, &random);
  for (auto& ax : axes)
    if (ax.key == "experiment.seed") ax.key = "seed";
  // Fixed command-line overrides beat [sweep] axes/fixed entries of the same key.
  auto key_of = [](const std::string& ov) { return ov.substr(0, ov.find('=')); };
  for (const auto& f : cli_fixed) {
    const std::string k = key_of(f);
    axes.erase(std::remove_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.key == k; }),
               axes.end());
    fixed.erase(std::remove_if(fixed.begin(), fixed.end(),
                               [&](const std::string& x) { return key_of(x) == k; }),
                fixed.end());
  }
  for (auto& ca : cli_axes) {
    fixed.erase(std::remove_if(fixed.begin(), fixed.end(),
                               [&](const std::string& x) { return key_of(x) == ca.key; }),
                fixed.end());
    auto it =
        std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.key == ca.key; });
    if (it != axes.end())
      *it = ca;
    else
      axes.push_back(ca);
  }
  for (const auto& f : cli_fixed) fixed.push_back(f);

  // Random samples.
  int64_t n_random = 0;
  std::vector<RandomDim> dims;
  if (random) dims = read_random(*random, &n_random);
  std::vector<std::vector<std::string>> samples;  // [sample][dim] override texts
  if (n_random > 0) {
    core::Rng rng(static_cast<uint64_t>(base.experiment.seed), kSweepRngStream);
    for (int64_t s = 0; s < n_random; ++s) {
      std::vector<std::string> row;
      for (const auto& d : dims) {
        std::string v;
        if (!d.choices.empty()) {
          v = d.choices[rng.below(d.choices.size())];
        } else if (d.integer) {
          const auto lo = static_cast<int64_t>(d.low), hi = static_cast<int64_t>(d.high);
          v = std::to_string(lo +
                             static_cast<int64_t>(rng.below(static_cast<uint64_t>(hi - lo) + 1)));
        } else if (d.log) {
          const double u = rng.uniform();
          v = fmt_double(std::exp(std::log(d.low) + u * (std::log(d.high) - std::log(d.low))));
        } else {
          v = fmt_double(d.low + rng.uniform() * (d.high - d.low));
        }
        row.push_back(d.key + "=" + v);
      }
      samples.push_back(std::move(row));
    }
  } else {
    samples.push_back({});
  }

  // Cartesian product, first axis slowest, then random samples fastest.
  size_t n_grid = 1;
  auto check_count = [&] {
    if (n_grid * samples.size() > max_trials)
      throw ConfigError(spec_file + ": [sweep]: expected at most " + std::to_string(max_trials) +
                        " trials, found more");
  };
  check_count();  // random samples alone
  for (const auto& a : axes) {
    n_grid *= a.values.size();
    check_count();
  }
  std::vector<Trial> trials;
  for (size_t g = 0; g < n_grid; ++g) {
    std::vector<std::string> grid_ov;
    size_t rem = g;
    std::vector<size_t> idx(axes.size());
    for (size_t a = axes.size(); a-- > 0;) {
      idx[a] = rem % axes[a].values.size();
      rem /= axes[a].values.size();
    }
    for (size_t a = 0; a < axes.size(); ++a)
      grid_ov.push_back(axes[a].key + "=" + axes[a].values[idx[a]]);
    for (const auto& s : samples) {
      Trial t;
      t.index = static_cast<int>(trials.size());
      t.overrides = fixed;
      t.overrides.insert(t.overrides.end(), grid_ov.begin(), grid_ov.end());
      t.overrides.insert(t.overrides.end(), s.begin(), s.end());
      t.id = trial_id(t.index, t.overrides);
      trials.push_back(std::move(t));
    }
  }
  for (const auto& t : trials) {
    try {
      parse_spec(spec_text, spec_file, t.overrides, true);
    } catch (const ConfigError& e) {
      throw ConfigError("sweep trial " + std::to_string(t.index) + ": " + e.what());
    }
  }
  return trials;
}

// ---- Manifest -------------------------------------------------------------------------------

void write_manifest(const std::string& path, const Manifest& m) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    const std::string text = to_json(m).dump(2) + "\n";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw core::RunError(tmp + ": cannot write (" + std::strerror(errno) + ")");
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() &&
                    std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
    std::fclose(f);
    if (!ok) {
      std::remove(tmp.c_str());
      throw core::RunError(tmp + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw core::RunError(path + ": rename failed (" + std::strerror(errno) + ")");
  }
}

Manifest init_manifest(const std::string& sweep_dir, const std::string& spec_file,
                       const std::vector<std::string>& args, const std::vector<Trial>& trials) {
  const std::string path = (fs::path(sweep_dir) / "sweep.json").string();
  auto check_same = [&](const Manifest& m) {
    bool same = m.trials.size() == trials.size();
    std::string which;
    // The overrides too: an edited list ran trial t0 of seed=1 with seed 9.
    for (size_t i = 0; same && i < trials.size(); ++i) {
      same = m.trials[i].trial.id == trials[i].id &&
             m.trials[i].trial.overrides == trials[i].overrides;
      if (!same) {
        auto join = [](const std::vector<std::string>& v) {
          std::string out;
          for (const auto& o : v) out += (out.empty() ? "" : " ") + o;
          return out;
        };
        which = ": trial " + std::to_string(i) + " is '" + core::echo(m.trials[i].trial.id) +
                "' with overrides '" + core::echo(join(m.trials[i].trial.overrides)) +
                "', expected '" + trials[i].id + "' with '" + join(trials[i].overrides) + "'";
      }
    }
    if (!same)
      throw ConfigError(path + ": expected the manifest of this sweep (" +
                        std::to_string(trials.size()) + " trials), found a different sweep (" +
                        std::to_string(m.trials.size()) + " trials" + which +
                        "); choose another --out");
  };
  // What the sweep writes (manifest, lock, logs, trial directories) must not be a link out of it.
  std::error_code ec;
  auto refuse_link = [&](const fs::path& p) {
    if (fs::is_symlink(fs::symlink_status(p, ec)))
      throw ConfigError(p.string() + ": expected a file or directory of the sweep, found a " +
                        "symbolic link (a sweep never writes through a link out of its " +
                        "directory); remove it");
  };
  for (const auto& e : fs::directory_iterator(sweep_dir, ec)) {
    refuse_link(e.path());
    if (e.path().filename() == "logs" && e.is_directory(ec))
      for (const auto& l : fs::directory_iterator(e.path(), ec)) refuse_link(l.path());
  }
  check_sweep_dir(sweep_dir);
  if (fs::exists(path)) check_same(read_manifest(path));  // bad input: refused, nothing written
  core::create_output_dir(sweep_dir, "sweep directory");
  FileLock lock((fs::path(sweep_dir) / "sweep.json.lock").string());
  if (fs::exists(path)) {
    Manifest m = read_manifest(path);
    check_same(m);
    return m;
  }
  Manifest m;
  m.spec_file = spec_file;
  m.args = args;
  for (const auto& t : trials) {
    TrialStatus s;
    s.trial = t;
    s.run_dir = "trial_" + std::to_string(t.index);
    s.updated_utc = core::utc_now();
    m.trials.push_back(std::move(s));
  }
  write_manifest(path, m);
  return m;
}

void update_trial_status(const std::string& sweep_dir, int index, const std::string& status,
                         const std::string& message) {
  FileLock lock((fs::path(sweep_dir) / "sweep.json.lock").string());
  const std::string path = (fs::path(sweep_dir) / "sweep.json").string();
  Manifest m = read_manifest(path);
  if (index < 0 || static_cast<size_t>(index) >= m.trials.size())
    throw ConfigError(path + ": no trial " + std::to_string(index));
  auto& t = m.trials[index];
  if (status == "running") ++t.attempts;
  t.status = status;
  t.message = message;
  t.updated_utc = core::utc_now();
  write_manifest(path, m);
}

std::string sweep_dir_for(const Spec& base, const std::string& out) {
  if (!out.empty()) return out;
  return (fs::path(base.experiment.out_dir) / (base.experiment.name + "-sweep")).string();
}

// ---- SLURM ----------------------------------------------------------------------------------

}  // namespace pz::exp
