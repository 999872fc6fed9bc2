// Env and task-preset registry: storage, lookup, resolution of [env] id/task, baselines.
#include "powerzoo/envs/registry.hpp"

#include <algorithm>
#include <map>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::envs {
namespace {

struct Store {
  std::map<std::string, EnvEntry> envs, tasks;  // sorted by id
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

}  // namespace

void register_entry(EnvEntry entry) {
  auto& m = entry.is_task ? store().tasks : store().envs;
  if (entry.env_id.empty()) entry.env_id = entry.id;
  const std::string id = entry.id;
  if (!m.emplace(id, std::move(entry)).second)
    throw core::RunError("registry: '" + id + "' is registered twice");
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

const EnvEntry& resolve_entry(const std::string& id, const std::string& task, bool id_given,
                              const std::string& where_id, const std::string& where_task) {
  const auto& s = store();
  if (!task.empty()) {
    const EnvEntry* t = find_task(task);
    if (!t)
      throw core::ConfigError(where_task + "[env] task: expected no task preset or one of " +
                              names(s.tasks) + ", found '" + core::echo(task) + "'" +
                              hint(task, s.tasks));
    if (id_given && id != t->env_id)
      throw core::ConfigError(where_id + "[env] id: task \"" + task + "\" builds env '" +
                              t->env_id + "', found '" + core::echo(id) +
                              "' (drop id or set id = \"" + t->env_id + "\")");
    return *t;
  }
  const EnvEntry* e = find_env(id);
  if (!e)
    throw core::ConfigError(where_id + "[env] id: expected one of " + names(s.envs) + ", found '" +
                            core::echo(id) + "'" + hint(id, s.envs));
  if (!e->make) {
    const EnvEntry* t = find_task(e->default_task);
    if (!t)
      throw core::RunError("registry: env '" + id + "' has no factory and no task '" +
                           e->default_task + "'");
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
        if (n == name && other != &entry) elsewhere += (elsewhere.empty() ? "" : ", ") + other->id;
  const std::string dym = core::did_you_mean(name, baseline_names(entry));
  throw core::ConfigError("--policy: expected one of " + known + " (the baselines of " + entry.id +
                          "), found '" + core::echo(name) + "'" +
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
