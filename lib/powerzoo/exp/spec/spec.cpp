// Experiment spec: the key table and the env registry composed into one schema; parse and write.
#include "powerzoo/exp/spec/spec.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/params.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/envs/outages.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/spec/spec_fields.hpp"
#include "powerzoo/io/toml_schema.hpp"
#include "powerzoo/rl/learner_registry.hpp"

namespace pz::exp {
namespace {

using core::ConfigError;
using detail::spec_fields;

const envs::EnvEntry& default_entry() {
  return envs::resolve_entry(envs::default_env_id(), "", false, "", "");
}

/// Checks that involve more than one key (the reader checks each key on its own).
void check_cross(const Spec& s, const io::SectionValues& v) {
  const auto& sf = s.safety;
  const size_t k = sf.constraints.size();
  if (!sf.thresholds.empty() && sf.thresholds.size() != k)
    throw ConfigError(v.at("safety.thresholds") + "[safety] thresholds: expected " +
                      std::to_string(k) + " values (one per constraint), found " +
                      std::to_string(sf.thresholds.size()));
  if (sf.cost_scale.size() > 1 && sf.cost_scale.size() != k)
    throw ConfigError(v.at("safety.cost_scale") + "[safety] cost_scale: expected a number or " +
                      std::to_string(k) + " values (one per constraint), found " +
                      std::to_string(sf.cost_scale.size()));
  const rl::LearnerEntry& le = rl::learner_entry(s.learner.algo);
  if (le.uses_constraints && k == 0)
    throw ConfigError(v.at("learner.algo") + "[learner] algo = \"" + le.name +
                      "\" needs [safety] constraints (a non-empty list of cost channels)");
  if (le.check) le.check(spec_learner_context(s));
  if (s.eval.render_every_steps > 0 && s.output.trajectories != "eval")
    throw ConfigError(v.at("eval.render_every_steps") +
                      "[eval] render_every_steps: draws the recorded evaluation episodes; "
                      "expected [output] trajectories = \"eval\", found \"" +
                      s.output.trajectories + "\"");
  if (s.eval.render_every_steps > 0 && s.eval.every_steps == 0)
    throw ConfigError(v.at("eval.render_every_steps") +
                      "[eval] render_every_steps: draws evaluation episodes; expected [eval] "
                      "every_steps > 0, found 0 (no evaluations)");
}

bool looks_like_path(const std::string& value) {
  return value.find('/') != std::string::npos || value.ends_with(".m") || value.ends_with(".csv");
}

/// A relative file path set in the spec file `file` names a file next to the spec, wherever
/// powerzoo is started from: returns it as an absolute path (ConfigError at `where` if there is
/// no such file; `file_only`: the key has no bundled names to offer). Bundled names, absolute paths
/// and text that is not a spec file pass unchanged.
std::string relative_to_spec(const std::string& value, const std::string& file,
                             const std::string& where, const std::string& key, bool file_only) {
  namespace fs = std::filesystem;
  if (!looks_like_path(value) || fs::path(value).is_absolute() || !fs::is_regular_file(file))
    return value;
  std::error_code ec;
  const std::string path =
      fs::absolute(fs::path(file).parent_path() / value, ec).lexically_normal().string();
  if (!fs::exists(path, ec))
    throw ConfigError(where + "[env] " + key + ": expected " +
                      (file_only ? "an existing file " : "a bundled name or an existing file ") +
                      "(a relative path in a spec is resolved against the spec's folder), found " +
                      "no file '" + core::echo(path, 400) + "'");
  return path;
}

/// A relative file path given on the command line names a file in the working directory: made
/// absolute when it exists there, so the resolved spec (and a SLURM task) finds it from anywhere.
std::string relative_to_cwd(const std::string& value) {
  namespace fs = std::filesystem;
  if (!looks_like_path(value) || fs::path(value).is_absolute()) return value;
  std::error_code ec;
  if (!fs::exists(value, ec)) return value;
  return fs::absolute(value, ec).lexically_normal().string();
}

/// [experiment] name becomes one directory level below out_dir: a name that is not a plain
/// directory name would write elsewhere ('..') or fail late (control characters, too long).
void check_run_name(const std::string& name, const io::SectionValues& v) {
  const bool ok = name != "." && name != ".." && name.size() <= 255 && core::printable_utf8(name);
  if (!ok)
    throw ConfigError(v.at("experiment.name") +
                      "[experiment] name: expected a directory name (not '.' or '..', no '/' or "
                      "control characters, at most 255 bytes), found \"" +
                      core::echo(name) + "\"" +
                      (core::printable_utf8(name) ? "" : " (with a control character)"));
}

/// [env] split and [eval] splits against the splits the env or task declares.
void check_splits(const Spec& s, const envs::EnvEntry& entry) {
  if (entry.splits.empty()) return;
  auto known = [&](const std::string& x) {
    return std::find(entry.splits.begin(), entry.splits.end(), x) != entry.splits.end();
  };
  auto expected = [&](const std::string& found) {
    std::string list;
    for (const auto& n : entry.splits) list += (list.empty() ? "" : ", ") + n;
    const std::string dym = core::did_you_mean(found, entry.splits);
    return "expected one of " + list + " (the splits of " + entry.name() + "), found '" +
           core::echo(found) + "'" + (dym.empty() ? "" : " (did you mean '" + dym + "'?)");
  };
  if (!known(s.env.split))
    throw ConfigError(s.at("env.split") + "[env] split: " + expected(s.env.split));
  for (const auto& x : s.eval.splits)
    if (!known(x)) throw ConfigError(s.at("eval.splits") + "[eval] splits: " + expected(x));
  // A split listed twice was evaluated twice and its metrics written over each other.
  for (size_t i = 0; i < s.eval.splits.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (s.eval.splits[i] == s.eval.splits[j])
        throw ConfigError(s.at("eval.splits") + "[eval] splits: expected distinct splits, found '" +
                          core::echo(s.eval.splits[i]) + "' twice");
}

/// The schema of a spec with [env] `entry`: the fixed sections, with the learner sections after
/// [learner]: those of `learner`, or every registered one (nullptr: for reading and the docs).
std::vector<io::SectionSchema> schema_for(const envs::EnvEntry& entry,
                                          const rl::LearnerEntry* learner = nullptr) {
  std::vector<io::SectionSchema> out;
  for (const auto& name : detail::section_order()) {
    io::SectionSchema sec;
    sec.name = name;
    sec.free_form = name == "sweep";
    for (const auto& f : spec_fields())
      if (f.section == name) sec.keys.push_back(f.def);
    if (name == "env")
      for (const auto& p : entry.params) sec.keys.push_back(p);
    out.push_back(std::move(sec));
    if (name != "learner") continue;
    std::vector<const rl::LearnerSection*> secs;
    if (learner)
      for (const auto& n : learner->sections) secs.push_back(rl::find_learner_section(n));
    else
      secs = rl::registered_learner_sections();
    for (const rl::LearnerSection* ls : secs) {
      io::SectionSchema l;
      l.name = ls->name;
      l.keys = ls->keys;
      l.moved = ls->moved;
      out.push_back(std::move(l));
    }
  }
  return out;
}

/// Every section's values by name, defaults filled in: the fixed sections, [env] (its selection
/// keys and the entry's), the sections the learner reads.
std::map<std::string, core::ParamTable> section_values(const Spec& s) {
  std::map<std::string, core::ParamTable> values;
  for (const auto& f : spec_fields()) values[f.section].set(f.def.key, f.get(s));
  for (const auto& [key, val] : s.env.params.items()) values["env"].set(key, val);
  for (const auto& [name, table] : s.learner_sections) values[name] = table;
  return values;
}

/// Why key `d` of `section` has no effect given `values` (section_values), or "".
std::string why_no_effect(const core::ParamDef& d, const std::string& section,
                          const std::map<std::string, core::ParamTable>& values) {
  if (auto it = values.find(section); d.inapplicable && it != values.end())
    if (std::string why = d.inapplicable(it->second); !why.empty()) return why;
  return d.inapplicable_in_spec ? d.inapplicable_in_spec(values) : "";
}

/// Sets key `d` of `section` back to its default (a sweep trial drops a key without effect).
void reset_key(Spec& s, const std::string& section, const core::ParamDef& d) {
  if (section == "env" && s.env.params.has(d.key)) return s.env.params.set(d.key, d.def);
  if (auto it = s.learner_sections.find(section); it != s.learner_sections.end())
    return it->second.set(d.key, d.def);
  for (const auto& f : spec_fields())
    if (f.section == section && f.def.key == d.key) f.set(s, d.def);
}

/// The overrides that leave key `sec`.`key` of the spec file without effect: the single
/// overrides with which it has none, else all of them; empty when the file alone leaves it
/// without effect (then the file's line is to blame). `parse` parses the file with some
/// overrides, dropping keys without effect.
std::vector<std::string> blamed_overrides(
    const std::string& sec, const std::string& key, const std::vector<std::string>& overrides,
    const std::function<Spec(const std::vector<std::string>&)>& parse) {
  const auto inert = [&](const std::vector<std::string>& ov) {
    try {
      return !no_effect_reason(parse(ov), sec, key).empty();
    } catch (const ConfigError&) {
      return false;  // fails on its own for another reason: not this override's doing alone
    }
  };
  if (inert({})) return {};
  std::vector<std::string> blamed;
  for (const std::string& o : overrides)
    if (inert({o})) blamed.push_back(o);
  return blamed.empty() ? overrides : blamed;
}

/// A key that has no effect given the other values of the spec, when the spec sets it, is bad
/// input (its ParamDef::inapplicable or inapplicable_in_spec says why); a sweep trial drops it.
/// A key of the file that the command-line overrides made inert is blamed on them, not on the
/// file's line. `parse` parses the file with some of the overrides, as a sweep trial.
void check_applicable(Spec& s, const io::SectionValues& v, const envs::EnvEntry& entry,
                      bool sweep_trial, const std::vector<std::string>& overrides,
                      const std::function<Spec(const std::vector<std::string>&)>& parse) {
  auto values = section_values(s);
  for (const auto& sec : schema_for(entry, &rl::learner_entry(s.learner.algo))) {
    auto it = v.sections.find(sec.name);
    if (it == v.sections.end()) continue;
    for (const auto& [key, _] : it->second.items()) {
      const core::ParamDef* d = core::find_param(sec.keys, key);
      if (!d) continue;
      const std::string why = why_no_effect(*d, sec.name, values);
      if (why.empty()) continue;
      const std::string dotted = sec.name + "." + key;
      if (!sweep_trial) {
        const auto blamed = v.from_override.count(dotted) || overrides.empty()
                                ? std::vector<std::string>{}
                                : blamed_overrides(sec.name, key, overrides, parse);
        if (blamed.empty())
          throw ConfigError(v.at(dotted) + "[" + sec.name + "] " + key +
                            ": has no effect here: " + why + " (remove the key)");
        std::string list, line = v.at(dotted);
        for (const auto& o : blamed) list += (list.empty() ? "`" : "`, `") + core::echo(o);
        line.resize(line.size() >= 2 ? line.size() - 2 : 0);  // "spec.toml:9: " -> "spec.toml:9"
        throw ConfigError("command-line override" + std::string(blamed.size() > 1 ? "s " : " ") +
                          list + "`: leaves [" + sec.name + "] " + key + " (set at " + line +
                          ") without effect: " + why +
                          " (remove the key from the spec, or change the override)");
      }
      s.dropped.push_back("[" + sec.name + "] " + key + " has no effect in some trials (" + why +
                          "); dropped there");
      reset_key(s, sec.name, *d);
      values = section_values(s);
    }
  }
}

/// A learner section the spec sets but its learner does not read is bad input (its keys would
/// do nothing). Names the learners that read it and, for a key the learner has elsewhere, where.
void check_unread_sections(Spec& s, const io::SectionValues& v, bool sweep_trial) {
  const rl::LearnerEntry& le = rl::learner_entry(s.learner.algo);
  for (const auto& [name, table] : v.sections) {
    if (!rl::find_learner_section(name) || table.items().empty()) continue;
    if (std::find(le.sections.begin(), le.sections.end(), name) != le.sections.end()) continue;
    if (sweep_trial) {
      s.dropped.push_back("[" + name + "] is not read by [learner] algo = \"" + le.name +
                          "\" (read by " + rl::learners_reading(name) + "); dropped there");
      continue;
    }
    const std::string first = table.items().front().first;
    std::string hint;
    for (const auto& own : le.sections)
      if (core::find_param(rl::find_learner_section(own)->keys, first))
        hint = " (" + le.name + "'s " + first + " is [" + own + "] " + first + ")";
    throw ConfigError(v.at(name + "." + first) + "[" + name + "] is read by " +
                      rl::learners_reading(name) + "; [learner] algo = \"" + le.name +
                      "\" does not read it" + hint);
  }
}

// outage_status_obs = "auto" is recorded decided on the spec as read (before a split adds an
// outage), so /config/resolved says what the policy saw; a stored spec without it resolves so.
void resolve_auto_keys(core::ParamTable& env) {
  if (env.has("outage_status_obs"))
    env.set("outage_status_obs",
            std::string(envs::outage_status_obs_resolved(env) ? "true" : "false"));
}

}  // namespace

Spec::Spec() {
  env.id = envs::default_env_id();
  env.params = core::ParamTable::defaults(default_entry().params);
  resolve_auto_keys(env.params);  // a default spec is a resolved one
  set_learner(rl::default_learner());
}

void Spec::set_learner(const std::string& algo) {
  const rl::LearnerEntry& e = rl::learner_entry(algo);
  learner.algo = e.name;
  learner_sections.clear();
  for (const auto& n : e.sections)
    learner_sections[n] = core::ParamTable::defaults(rl::find_learner_section(n)->keys);
}

void Spec::set_learner_key(const std::string& section, const std::string& key, core::ParamValue v) {
  auto it = learner_sections.find(section);
  if (it == learner_sections.end())
    throw ConfigError("[" + section + "]: not read by [learner] algo = \"" + learner.algo + "\"");
  if (!it->second.has(key)) throw ConfigError("[" + section + "] has no key " + key);
  it->second.set(key, std::move(v));
}

rl::LearnerContext spec_learner_context(const Spec& s) {
  rl::LearnerContext ctx;
  ctx.algo = s.learner.algo;
  ctx.total_steps = s.learner.total_steps;
  ctx.rollout_length = s.learner.rollout_length;
  ctx.sections = s.learner_sections;
  ctx.n_envs = s.vec.n_envs;
  ctx.constraint_names = s.safety.constraints;
  ctx.thresholds = s.safety.thresholds;
  ctx.spec_where = s.where;
  ctx.spec_file = s.source_path.empty() ? std::string("spec") : s.source_path;
  return ctx;
}

std::string Spec::at(const std::string& dotted) const {
  if (auto it = where.find(dotted); it != where.end()) return it->second;
  return (source_path.empty() ? std::string("spec") : source_path) + ": ";
}

std::vector<io::SectionSchema> spec_schema(const std::string& env_entry_id) {
  if (env_entry_id.empty()) return schema_for(default_entry());
  const envs::EnvEntry* e = envs::find_task(env_entry_id);
  if (!e) e = &envs::resolve_entry(env_entry_id, "", true, "", "");
  return schema_for(*e);
}

Spec parse_spec(const std::string& toml_text, const std::string& file,
                const std::vector<std::string>& overrides, bool sweep_trial) {
  const envs::EnvEntry* entry = nullptr;
  io::SectionValues v = io::read_toml(
      toml_text, file, overrides, [&](const io::PeekFn& peek, const io::WhereFn& where) {
        const auto id = peek("env", "id");
        const auto task = peek("env", "task");
        entry = &envs::resolve_entry(id.value_or(envs::default_env_id()), task.value_or(""),
                                     id.has_value(), where("env", "id"), where("env", "task"));
        // Every learner section is read (one the learner does not read is refused after, with
        // a message naming its readers); the selected learner's come first, for did-you-mean.
        auto schema = schema_for(*entry);
        const rl::LearnerEntry* le = rl::find_learner(peek("learner", "algo").value_or(""));
        if (!le) le = rl::find_learner(rl::default_learner());
        if (le) {
          auto first = std::find_if(schema.begin(), schema.end(), [](const io::SectionSchema& x) {
            return rl::find_learner_section(x.name) != nullptr;
          });
          std::stable_partition(first, schema.end(), [&](const io::SectionSchema& x) {
            return std::find(le->sections.begin(), le->sections.end(), x.name) !=
                   le->sections.end();
          });
        }
        return schema;
      });
  Spec s;
  s.source_path = file;
  s.env.params = core::ParamTable::defaults(entry->params);
  for (const auto& f : spec_fields())
    if (const core::ParamValue* val = v.find(f.section, f.def.key)) f.set(s, *val);
  s.set_learner(s.learner.algo);
  for (auto& [name, table] : s.learner_sections)
    if (auto it = v.sections.find(name); it != v.sections.end())
      for (const auto& [key, val] : it->second.items()) table.set(key, val);
  if (auto it = v.sections.find("env"); it != v.sections.end())
    for (const auto& [key, val] : it->second.items())
      if (const core::ParamDef* d = core::find_param(entry->params, key))
        s.env.params.set(
            key, !d->is_path ? val
                 : v.from_override.count("env." + key)
                     ? core::ParamValue(relative_to_cwd(std::get<std::string>(val)))
                     : core::ParamValue(relative_to_spec(std::get<std::string>(val), file,
                                                         v.at("env." + key), key, d->file_only)));
  resolve_auto_keys(s.env.params);
  if (auto it = v.free_form.find("sweep"); it != v.free_form.end()) s.sweep_toml = it->second;
  if (!v.find("env", "id")) s.env.id = entry->id;  // a task preset names its env
  if (entry->is_task()) s.env.task = entry->task;  // `id` alone may select a preset: record it
  s.where = v.where;
  check_run_name(s.experiment.name, v);
  check_unread_sections(s, v, sweep_trial);
  check_applicable(s, v, *entry, sweep_trial, overrides, [&](const std::vector<std::string>& ov) {
    return parse_spec(toml_text, file, ov, true);
  });
  check_cross(s, v);
  check_splits(s, *entry);
  return s;
}

Spec load_spec(const std::string& path, const std::vector<std::string>& overrides) {
  if (std::filesystem::is_directory(path)) {
    throw ConfigError(path + ": expected a spec file (TOML), found a directory");
  }
  core::expect_regular_file(path, "a spec file (TOML)");
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
  // A spec of comments alone would silently train the default configuration.
  bool any_code = false;
  std::istringstream lines(ss.str());
  for (std::string line; !any_code && std::getline(lines, line);) {
    const size_t b = line.find_first_not_of(" \t\r");
    any_code = b != std::string::npos && line[b] != '#';
  }
  if (!any_code)
    throw ConfigError(path +
                      ": expected an experiment spec (TOML with at least an [env] or "
                      "[experiment] section), found only comments");
  return parse_spec(ss.str(), path, overrides);
}

std::string to_toml(const Spec& s) {
  const envs::EnvEntry& entry =
      envs::resolve_entry(s.env.id, s.env.task, true, "to_toml: ", "to_toml: ");
  const auto values = section_values(s);
  // Keys without effect in this configuration are left out, so the resolved spec reads back.
  auto schema = schema_for(entry, &rl::learner_entry(s.learner.algo));
  for (auto& sec : schema)
    std::erase_if(sec.keys, [&](const core::ParamDef& d) {
      return !why_no_effect(d, sec.name, values).empty();
    });
  return io::write_toml(schema, values, {{"sweep", s.sweep_toml}});
}

std::string no_effect_reason(const Spec& s, const std::string& section, const std::string& key) {
  const envs::EnvEntry& entry =
      envs::resolve_entry(s.env.id, s.env.task, true, "no_effect_reason: ", "no_effect_reason: ");
  for (const auto& sec : schema_for(entry, &rl::learner_entry(s.learner.algo)))
    if (sec.name == section)
      if (const core::ParamDef* d = core::find_param(sec.keys, key))
        return why_no_effect(*d, section, section_values(s));
  return "";
}

std::string spec_reference(const std::string& env_entry_id) {
  std::ostringstream o;
  auto schema = spec_schema(env_entry_id);
  const envs::EnvEntry* task = envs::find_task(env_entry_id);
  for (auto& sec : schema)  // show the id and task that select this entry
    for (auto& d : sec.keys)
      if (sec.name == "env" && !env_entry_id.empty() && (d.key == "id" || d.key == "task"))
        d.def = d.key == "task" ? (task ? env_entry_id : "") : (task ? task->id : env_entry_id);
  for (const auto& sec : schema) {
    o << "[" << sec.name << "]"
      << (sec.free_form ? "  (free-form: see `powerzoo sweep --help`)" : "") << "\n";
    for (const auto& d : sec.keys) {
      std::string line = "  " + d.key + " = " + io::toml_value(d.kind, d.def);
      if (line.size() < 34) line.resize(34, ' ');
      o << line << "  " << d.doc;
      if (d.kind != core::ParamKind::kStr || !d.expected.empty())
        o << " (" << d.expected_text() << ")";
      o << "\n";
    }
  }
  return o.str();
}

}  // namespace pz::exp
