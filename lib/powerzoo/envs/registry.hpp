// Env registry: each env declares its id, keys, factory, baselines and data description once,
// from its own .cpp (the EnvPool registration idea); a task preset registers, from its own .cpp,
// the overrides and data it applies to one env.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "powerzoo/core/error.hpp"
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

/// Rethrows `err`, raised while building an env from `ctx`, blamed on where its value came from
/// (the spec file's line or the command-line override, docs/design.md §3): a message that starts
/// "[env] K: " for an [env] key K of ctx.params is blamed on K; one that starts with the path of
/// the outage scenario file (a row of it) on `outages`; any other on `key` ("" = the spec as a
/// whole: "spec.toml: [env]: ...").
[[noreturn]] void rethrow_blamed(const BuildContext& ctx, const std::string& key,
                                 const core::ConfigError& err);

/// Runs f, rethrowing a ConfigError through rethrow_blamed(ctx, key, ...).
template <class F>
auto with_key(const BuildContext& ctx, const std::string& key, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const core::ConfigError& err) {
    rethrow_blamed(ctx, key, err);
  }
}

using MakeFn = std::function<std::shared_ptr<const Env>(const BuildContext&)>;

/// A task's end-to-end training rates as PowerZooJax publishes them (env steps per second of
/// wall time, its PPO or IPPO run of the task), shown beside our rates by `powerzoo bench
/// --benchmarks`; 0 = not published.
struct ReferenceRates {
  double gpu_steps_per_sec = 0;    ///< on one GPU
  double cpu64_steps_per_sec = 0;  ///< on a 64-core CPU
};

/// One registered env, from the env's own files (envs/<env>.cpp): `[env] id` selects it. The
/// registry also hands out this type for a task preset applied to its env (see TaskPreset):
/// then `task` names the preset and the fields are the env's with the preset's over them.
struct EnvEntry {
  std::string id;                      ///< env id ([env] id)
  std::string description;             ///< one line for `powerzoo envs`
  std::vector<core::ParamDef> params;  ///< the [env] keys it reads (besides id, task, split)
  std::vector<std::string> splits;     ///< split names it accepts (for docs and errors)
  MakeFn make;  ///< empty for an env that is built only from a preset's data (default_task)
  std::vector<std::pair<std::string, BaselineFactory>> baselines;  ///< besides zero_action
  /// One-line summary of the data behind the env (case, profile gaps, split sizes).
  std::function<std::string(const core::ParamTable&)> describe_data;
  /// An env without a factory of its own needs a preset's data: the preset `[env] id` alone
  /// selects (it must be registered with env_id = id).
  std::string default_task;
  bool default_env = false;  ///< the env of a spec that names none (exactly one entry sets it)
  /// Bundled specs (relative to the source tree) that `powerzoo bench` times for this entry.
  std::vector<std::string> bench_specs;
  /// The task's benchmark specs (its full-budget runs, relative to the source tree), one row each
  /// in `powerzoo bench --benchmarks`, with the task's reference_rates beside them.
  std::vector<std::string> benchmark_specs;
  ReferenceRates reference_rates;
  /// Set by the registry on a preset applied to this env: the preset's name ([env] task).
  std::string task;

  bool is_task() const { return !task.empty(); }
  /// The name a spec selects this entry by: the preset's name, else the env id.
  const std::string& name() const { return task.empty() ? id : task; }
};

/// A task preset, from tasks/<task>.cpp: env `env_id` with these [env] keys, this data and
/// calibration, these baselines (`[env] task` selects it). Not an entry of its own: the registry
/// applies it to its env's entry, each field replacing or extending the env's.
struct TaskPreset {
  std::string name;                    ///< [env] task
  std::string env_id;                  ///< the env it presets
  std::string description;             ///< one line for `powerzoo envs`
  std::vector<core::ParamDef> params;  ///< keys it adds, or replaces (same key) in the env's
  std::vector<std::string> splits;     ///< its splits (empty: the env's)
  MakeFn make;  ///< builds the env from the preset's data (empty: the env's factory)
  std::vector<std::pair<std::string, BaselineFactory>> baselines;     ///< added to the env's
  std::function<std::string(const core::ParamTable&)> describe_data;  ///< empty: the env's
  std::vector<std::string> bench_specs;                               ///< as EnvEntry::bench_specs
  std::vector<std::string> benchmark_specs;  ///< as EnvEntry::benchmark_specs
  ReferenceRates reference_rates;            ///< as EnvEntry::reference_rates
};

/// Adds an env's entry / a preset of an env (called from a static Registrar in its own .cpp; a
/// preset may register before its env). Throws core::RunError on a duplicate id or name.
void register_entry(EnvEntry entry);
void register_task(TaskPreset preset);

/// Registered envs (their own entries), sorted by id.
std::vector<const EnvEntry*> registered_envs();
/// Every preset applied to its env, sorted by preset name.
std::vector<const EnvEntry*> registered_tasks();
const EnvEntry* find_env(const std::string& id);
const EnvEntry* find_task(const std::string& name);
/// Presets whose env never registered (a registry bug; empty in a correct build).
std::vector<std::string> unattached_tasks();
/// The id of the entry with default_env set. Throws core::RunError unless exactly one has it.
std::string default_env_id();

/// The entry that builds `[env] id/task`: the preset applied to its env if `task` is set, else
/// the env (or its default task). id_given: whether the spec set `id` itself (a task whose env
/// differs from an explicit id is an error). where_id / where_task: error prefixes
/// ("spec.toml:3: "). Throws core::ConfigError listing the registered names, with a did-you-mean.
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

/// Registers an env or a preset at static-initialization time: `const Registrar kReg{entry()};`.
struct Registrar {
  explicit Registrar(EnvEntry entry) { register_entry(std::move(entry)); }
  explicit Registrar(TaskPreset preset) { register_task(std::move(preset)); }
};

}  // namespace pz::envs
