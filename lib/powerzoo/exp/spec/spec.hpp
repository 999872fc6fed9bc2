// The experiment spec: typed sections, read from TOML against one key table (docs/design.md §3).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "powerzoo/core/params.hpp"
#include "powerzoo/rl/learner.hpp"

namespace pz::io {
struct SectionSchema;
}

namespace pz::exp {

struct ExperimentSection {
  std::string name = "experiment";
  int64_t seed = 0;
  std::string out_dir = "runs";
};

/// [env]: which registered env or task preset, the split it trains on, and the parameters that
/// entry declares (`powerzoo envs --keys`), defaults filled in, in declaration order.
struct EnvSection {
  std::string id;    ///< registered env id (`powerzoo envs`); Spec() sets the registry's default
  std::string task;  ///< registered task preset ("" = none); decides the env
  std::string split = "train";
  core::ParamTable params;  ///< the entry's declared keys (case, horizon, dt_hours, ...)
};

struct VecSection {
  int n_envs = 64;
  int threads = 0;  ///< 0 = all cores
};

/// [learner]: the registered learner (`powerzoo keys learner`) and the keys every learner
/// shares. Each learner's own keys are in the sections its registry entry lists.
struct LearnerSpec {
  std::string algo;  ///< registered learner name; default rl::default_learner()
  int64_t total_steps = 1'000'000;
  int rollout_length = 48;  ///< vector steps per train row (PPO's T)
};

/// [safety]: the Safe-RL view (as OmniSafe's and Safety-Gymnasium's cost channels): selected
/// cost channels, per-episode budgets and cost scale, used by the learners whose registry entry
/// uses constraints.
struct SafetySection {
  std::vector<std::string> constraints;  ///< env cost channel names (validated at build time)
  std::vector<double> thresholds;        ///< per-episode budgets in raw units; empty = all 0
  std::vector<double> cost_scale;        ///< one value (broadcast) or one per channel; empty = 1
};

struct EvalSection {
  int64_t every_steps = 50'000;  ///< 0 disables periodic eval
  int n_episodes = 16;
  std::vector<std::string> splits = {"iid"};
  int64_t render_every_steps = 0;  ///< 0: no pictures during training (exp/eval/episode_render)
};

/// [log]: which train columns are recorded (the seed trainer's logging levels) and percentile
/// reductions of episode returns, costs and weights (exp/run/log_levels).
struct LogSection {
  std::vector<std::string> level = {"losses", "actor_extra", "critic_extra", "grad_norm",
                                    "throughput"};
  std::vector<double> percentiles;  ///< in [0, 100]; empty = no percentile columns
  bool tensorboard = false;         ///< TensorBoard events beside run.h5 (exp/tensorboard_log)
};

struct OutputSection {
  std::string trajectories = "eval";  ///< none | eval | train-sample
  /// first_best_last | all: the evaluations whose trajectories run.h5 keeps
  std::string trajectory_evals = "first_best_last";
  int64_t trajectory_episodes = 10;          ///< episodes stored per kept evaluation; 0 = all
  int64_t checkpoint_every_steps = 100'000;  ///< 0 disables periodic checkpoints
  int keep_checkpoints = 3;
};

/// The fully resolved experiment spec. Every field has a default; the TOML overrides them.
struct Spec {
  std::string source_path;  ///< spec file it came from ("" if built in code)
  ExperimentSection experiment;
  EnvSection env;
  VecSection vec;
  LearnerSpec learner;
  /// The sections the selected learner reads (its registry entry's), defaults filled in:
  /// section name -> keys in declaration order.
  std::map<std::string, core::ParamTable> learner_sections;
  std::map<std::string, double> penalty;  ///< [reward] penalty = { channel = weight }
  SafetySection safety;
  EvalSection eval;
  LogSection log;
  OutputSection output;
  /// Sweep trials (parse_spec sweep_trial): what was dropped and why, for one warning each.
  std::vector<std::string> dropped;
  std::string sweep_toml;  ///< the [sweep] table, kept verbatim (TOML) for `powerzoo sweep`
  /// Where each key the spec set came from ("env.case" -> "spec.toml:7: " or "command line
  /// override 'env.case=x': "), for errors found after parsing. Not part of the resolved TOML.
  std::map<std::string, std::string> where;
  /// The error prefix of `dotted`: where it was set, else "<file>: ".
  std::string at(const std::string& dotted) const;

  Spec();  ///< defaults, with the [env] parameters of the default env and the default learner
  /// Selects learner `algo` (a registered name) with the defaults of its sections.
  void set_learner(const std::string& algo);
  /// Sets one key of a learner section the selected learner reads (throws core::ConfigError
  /// for a section it does not read or an undeclared key), for specs changed in code.
  void set_learner_key(const std::string& section, const std::string& key, core::ParamValue v);
};

/// The spec's learner context before any env is built: [learner] keys, the learner sections,
/// [vec] n_envs, the [safety] names and budgets, and where each key was set (for checks).
rl::LearnerContext spec_learner_context(const Spec& s);

/// Parses TOML text into a Spec, then applies `overrides` ("dotted.key=value", value parsed as a
/// TOML value, bare words as strings). Strict: unknown sections/keys are errors with a
/// did-you-mean; wrong types and out-of-range values are errors naming file, key, expected and
/// found; an unknown [env] id or task names the registered ones. Throws core::ConfigError.
/// sweep_trial: a trial of `powerzoo sweep`, whose spec is shared by trials that vary the learner
/// or a key deciding applicability: a learner section the learner does not read and a key
/// without effect are dropped with a message in Spec::dropped instead of refused.
Spec parse_spec(const std::string& toml_text, const std::string& file,
                const std::vector<std::string>& overrides = {}, bool sweep_trial = false);

/// Reads `path` and calls parse_spec. Throws core::ConfigError if the file cannot be read.
Spec load_spec(const std::string& path, const std::vector<std::string>& overrides = {});

/// The resolved spec as canonical TOML (every key, defaults filled in). parse_spec(to_toml(s))
/// reproduces s exactly (doubles printed round-trip).
std::string to_toml(const Spec& s);

/// Why `section`.`key` has no effect in `s` (ParamDef::inapplicable or inapplicable_in_spec), or
/// "" when it applies (or is not a key of the spec): such a key is refused when set, and the
/// resolved spec leaves it out.
std::string no_effect_reason(const Spec& s, const std::string& section, const std::string& key);

/// Every section and key of a spec whose [env] is `env_entry_id` (an env id or task name; ""
/// = the default env), with kinds, defaults and docs: drives the reader, the writer and
/// `powerzoo run --help`. Throws core::ConfigError for an unknown entry.
std::vector<io::SectionSchema> spec_schema(const std::string& env_entry_id = "");

/// Reference text of every spec key (section, key, default, expected values, doc) for an env or
/// task (as spec_schema), for `--help`. Throws core::ConfigError for an unknown entry.
std::string spec_reference(const std::string& env_entry_id = "");

}  // namespace pz::exp
