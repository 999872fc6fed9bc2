// Env and task-preset registry: each env or task declares its id, keys, factory, baselines and
// data description once, from its own .cpp (the EnvPool registration idea).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "powerzoo/core/params.hpp"
#include "powerzoo/envs/env.hpp"

namespace pz::envs {

/// A policy over observations: writes actions [n, act_dim] for observations [n, obs_dim].
using PolicyFn = std::function<void(const float* obs, int n, float* actions)>;
/// Builds a baseline policy for an env built by the same entry.
using BaselineFactory = std::function<PolicyFn(const std::shared_ptr<const Env>& env)>;

/// What a factory gets: the entry's parameters (defaults filled in), the split to build, and the
/// error prefix of the spec ("spec.toml: "), so its ConfigErrors name the file and key.
struct BuildContext {
  const core::ParamTable& params;
  std::string split;
  std::string source;  ///< "spec.toml: " (or "spec: " for specs built in code)
  /// Error prefix of one [env] key: where the spec set it ("spec.toml:7: ", "command line
  /// override 'env.case=x': "), else `source`.
  std::function<std::string(const std::string& key)> where_key;
  std::string at(const std::string& key) const { return where_key ? where_key(key) : source; }
};

/// One registered env or task preset.
struct EnvEntry {
  std::string id;        ///< env id ([env] id) or task name ([env] task)
  bool is_task = false;  ///< a task preset: selected by [env] task, builds env `env_id`
  std::string env_id;    ///< the env it builds (= id for an env)
  /// For an env without a factory of its own: the task that `[env] id = <id>` alone selects.
  std::string default_task;
  std::string description;             ///< one line for `powerzoo envs`
  std::vector<core::ParamDef> params;  ///< the [env] keys it reads (besides id, task, split)
  std::vector<std::string> splits;     ///< split names it accepts (for docs and errors)
  std::function<std::shared_ptr<const Env>(const BuildContext&)> make;
  std::vector<std::pair<std::string, BaselineFactory>> baselines;  ///< besides zero_action
  /// One-line summary of the data behind the env (case, profile gaps, split sizes).
  std::function<std::string(const core::ParamTable&)> describe_data;
};

/// Adds an entry (called from a static Registrar in the entry's own .cpp). Throws
/// core::RunError on a duplicate id of the same kind.
void register_entry(EnvEntry entry);

/// Registered envs / task presets, sorted by id.
std::vector<const EnvEntry*> registered_envs();
std::vector<const EnvEntry*> registered_tasks();
const EnvEntry* find_env(const std::string& id);
const EnvEntry* find_task(const std::string& name);

/// The entry that builds `[env] id/task`: the task if `task` is set, else the env (or its
/// default task). id_given: whether the spec set `id` itself (a task whose env differs from an
/// explicit id is an error). where_id / where_task: error prefixes ("spec.toml:3: "). Throws
/// core::ConfigError listing the registered names, with a did-you-mean.
const EnvEntry& resolve_entry(const std::string& id, const std::string& task, bool id_given,
                              const std::string& where_id, const std::string& where_task);

/// Names of the baselines of an entry: "zero_action" then the entry's own.
std::vector<std::string> baseline_names(const EnvEntry& entry);
/// The named baseline for `env` (built by `entry`). Throws core::ConfigError listing the names.
PolicyFn make_baseline(const EnvEntry& entry, const std::string& name,
                       const std::shared_ptr<const Env>& env);

/// A policy builder that returns nullopt for a name it does not know or an env it cannot drive.
using MaybePolicyFn = std::function<std::optional<PolicyFn>(const std::string& name,
                                                            const std::shared_ptr<const Env>&)>;
/// Baselines `names` for an entry, each built by make(name, env); a nullopt from `make` becomes a
/// core::ConfigError ("--policy NAME: needs the <owner>'s env").
std::vector<std::pair<std::string, BaselineFactory>> named_baselines(
    const std::vector<std::string>& names, const std::string& owner, MaybePolicyFn make);

/// Registers an entry at static-initialization time: `static const Registrar kReg{entry()};`.
struct Registrar {
  explicit Registrar(EnvEntry entry) { register_entry(std::move(entry)); }
};

}  // namespace pz::envs
