// Env registry: storage, presets applied to their envs, resolution of [env] id/task, baselines.
#include "powerzoo/envs/registry.hpp"

#include <algorithm>
#include <map>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::envs {
namespace {

struct Store {
  std::map<std::string, EnvEntry> envs;       // each env's own entry, by id
  std::map<std::string, TaskPreset> waiting;  // presets whose env has not registered yet
  std::map<std::string, EnvEntry> tasks;      // each preset applied to its env, by preset name
};

Store& store() {
  static Store s;  // constructed on first use, so registration order across files is irrelevant
  return s;
}

std::vector<const EnvEntry*> values(const std::map<std::string, EnvEntry>& m) {
  std::vector<const EnvEntry*> out;
  for (const auto& [id, e] : m) out.push_back(&e);
  return out;
}

std::string names(const std::map<std::string, EnvEntry>& m) {
  std::string out;
  for (const auto& [id, e] : m) out += (out.empty() ? "" : ", ") + id;
  return out;
}

std::string hint(const std::string& word, const std::map<std::string, EnvEntry>& m) {
  std::vector<std::string> ids;
  for (const auto& [id, e] : m) ids.push_back(id);
  const std::string dym = core::did_you_mean(word, ids);
  return dym.empty() ? "" : " (did you mean '" + dym + "'?)";
}

// The env's entry with the preset's fields over it: its keys replace the env's of the same name
// (in place, so the env's key order stays) or follow them.
EnvEntry apply(const EnvEntry& env, const TaskPreset& t) {
  EnvEntry e = env;
  e.task = t.name;
  e.description = t.description;
  for (const auto& d : t.params) {
    auto it = std::find_if(e.params.begin(), e.params.end(),
                           [&](const core::ParamDef& x) { return x.key == d.key; });
    if (it != e.params.end())
      *it = d;
    else
      e.params.push_back(d);
  }
  if (!t.splits.empty()) e.splits = t.splits;
  if (t.make) e.make = t.make;
  e.baselines.insert(e.baselines.end(), t.baselines.begin(), t.baselines.end());
  if (t.describe_data) e.describe_data = t.describe_data;
  e.default_task.clear();
  e.default_env = false;
  e.bench_specs = t.bench_specs;
  e.benchmark_specs = t.benchmark_specs;
  e.reference_rates = t.reference_rates;
  return e;
}

}  // namespace

void rethrow_blamed(const BuildContext& ctx, const std::string& key, const core::ConfigError& err) {
  std::string msg = err.what(), blamed = key;
  // "[env] K: " of a key the env reads: K's own place; the loaders' messages may start with the
  // fallback key's name without "[env] " (cut, so the key is named once).
  const size_t colon = msg.rfind("[env] ", 0) == 0 ? msg.find(": ") : std::string::npos;
  const std::string named = colon == std::string::npos ? "" : msg.substr(6, colon - 6);
  if (!named.empty() && ctx.params.has(named)) {
    blamed = named;
    msg = msg.substr(colon + 2);
  } else if (ctx.params.has("outages")) {
    const std::string& file = ctx.params.str("outages");
    if (!file.empty() && msg.rfind(file + ":", 0) == 0) blamed = "outages";  // a row of the file
  }
  if (!blamed.empty() && blamed == key && msg.rfind(key + ": ", 0) == 0)
    msg = msg.substr(key.size() + 2);
  if (blamed.empty())
    throw core::ConfigError(ctx.source + (msg.rfind("[env]", 0) == 0 ? "" : "[env]: ") + msg);
  throw core::ConfigError(ctx.at(blamed) + "[env] " + blamed + ": " + msg);
}

void register_entry(EnvEntry entry) {
  auto& s = store();
  const std::string id = entry.id;
  if (!entry.task.empty())
    throw core::RunError("registry: env '" + id + "' sets task (register presets as TaskPreset)");
  if (!s.envs.emplace(id, std::move(entry)).second)
    throw core::RunError("registry: env '" + id + "' is registered twice");
  for (auto it = s.waiting.begin(); it != s.waiting.end();) {
    if (it->second.env_id == id) {
      s.tasks.emplace(it->first, apply(s.envs.at(id), it->second));
      it = s.waiting.erase(it);
    } else {
      ++it;
    }
  }
}

void register_task(TaskPreset preset) {
  auto& s = store();
  const std::string name = preset.name;
  if (s.tasks.count(name) || s.waiting.count(name))
    throw core::RunError("registry: task '" + name + "' is registered twice");
  if (auto it = s.envs.find(preset.env_id); it != s.envs.end())
    s.tasks.emplace(name, apply(it->second, preset));
  else
    s.waiting.emplace(name, std::move(preset));
}

std::vector<const EnvEntry*> registered_envs() { return values(store().envs); }
std::vector<const EnvEntry*> registered_tasks() { return values(store().tasks); }

const EnvEntry* find_env(const std::string& id) {
  auto it = store().envs.find(id);
  return it == store().envs.end() ? nullptr : &it->second;
}

const EnvEntry* find_task(const std::string& name) {
  auto it = store().tasks.find(name);
  return it == store().tasks.end() ? nullptr : &it->second;
}

std::vector<std::string> unattached_tasks() {
  std::vector<std::string> out;
  for (const auto& [name, t] : store().waiting) out.push_back(name + " (env " + t.env_id + ")");
  return out;
}

std::string default_env_id() {
  std::string id;
  for (const auto& [k, e] : store().envs) {
    if (!e.default_env) continue;
    if (!id.empty())
      throw core::RunError("registry: envs '" + id + "' and '" + k + "' both set default_env");
    id = k;
  }
  if (id.empty()) throw core::RunError("registry: no env sets default_env");
  return id;
}

const EnvEntry& resolve_entry(const std::string& id, const std::string& task, bool id_given,
                              const std::string& where_id, const std::string& where_task) {
  const auto& s = store();
  if (!task.empty()) {
    const EnvEntry* t = find_task(task);
    if (!t)
      throw core::ConfigError(where_task + "[env] task: expected no task preset or one of " +
                              names(s.tasks) + ", found '" + core::echo(task) + "'" +
                              hint(task, s.tasks));
    if (id_given && id != t->id)
      throw core::ConfigError(where_id + "[env] id: task \"" + task + "\" builds env '" + t->id +
                              "', found '" + core::echo(id) + "' (drop id or set id = \"" + t->id +
                              "\")");
    return *t;
  }
  const EnvEntry* e = find_env(id);
  if (!e)
    throw core::ConfigError(where_id + "[env] id: expected one of " + names(s.envs) + ", found '" +
                            core::echo(id) + "'" + hint(id, s.envs));
  if (!e->make) {
    const EnvEntry* t = find_task(e->default_task);
    if (!t || t->id != id)
      throw core::RunError("registry: env '" + id + "' has no factory and no task '" +
                           e->default_task + "' of its own");
    return *t;
  }
  return *e;
}

std::vector<std::string> baseline_names(const EnvEntry& entry) {
  std::vector<std::string> out = {"zero_action"};
  for (const auto& [name, f] : entry.baselines) out.push_back(name);
  return out;
}

PolicyFn make_baseline(const EnvEntry& entry, const std::string& name,
                       const std::shared_ptr<const Env>& env) {
  if (name == "zero_action") {
    const int act_dim = env->spec().act_dim;
    return [act_dim](const float*, int n, float* a) {
      std::fill(a, a + static_cast<size_t>(n) * act_dim, 0.0f);
    };
  }
  for (const auto& [n, f] : entry.baselines)
    if (n == name) return f(env);
  std::string known, elsewhere;
  for (const auto& n : baseline_names(entry)) known += (known.empty() ? "" : ", ") + n;
  for (const auto& list : {registered_envs(), registered_tasks()})
    for (const EnvEntry* other : list)
      for (const auto& [n, f] : other->baselines)
        if (n == name && other != &entry)
          elsewhere += (elsewhere.empty() ? "" : ", ") + other->name();
  const std::string dym = core::did_you_mean(name, baseline_names(entry));
  throw core::ConfigError("--policy: expected one of " + known + " (the baselines of " +
                          entry.name() + "), found '" + core::echo(name) + "'" +
                          (!elsewhere.empty() ? " (a baseline of " + elsewhere + ")"
                           : dym.empty()      ? ""
                                              : " (did you mean '" + dym + "'?)"));
}

std::vector<std::pair<std::string, BaselineFactory>> named_baselines(
    const std::vector<std::string>& names, const std::string& owner, MaybePolicyFn make) {
  std::vector<std::pair<std::string, BaselineFactory>> out;
  for (const auto& name : names)
    out.emplace_back(name, [name, owner, make](const std::shared_ptr<const Env>& env) {
      auto fn = make(name, env);
      if (!fn) throw core::ConfigError("--policy " + name + ": needs the " + owner + "'s env");
      return *fn;
    });
  return out;
}

}  // namespace pz::envs
