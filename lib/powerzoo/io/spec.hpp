// Experiment spec: the TOML schema of DESIGN.md §3, strict parsing, overrides, resolved output.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "powerzoo/rl/ppo.hpp"

namespace pz::io {

struct ExperimentSection {
  std::string name = "experiment";
  int64_t seed = 0;
  std::string out_dir = "runs";
};

struct EnvSection {
  std::string id = "trans_grid";  ///< registered env id (`powerzoo envs`)
  /// Optional frozen task preset ("" = none). "dso" (also implied by id = "dist_grid") fixes
  /// case, demand data and calibration itself: case/profile/load_scale/reward_scale are ignored.
  std::string task;
  std::string case_name = "case5";    ///< TOML key `case`: bundled name or path to a .m file
  std::string profile = "gb_demand";  ///< bundled profile name or path to a CSV
  std::string split = "train";
  int horizon = 48;  ///< steps per episode
  double dt_hours = 0.5;
  double load_scale = 1.0;  ///< multiplies every load
  double reward_scale = 0.01;
  std::string dispatch = "agent";  ///< "agent" (the policy dispatches) or "dcopf" (exact DC-OPF)
  /// trans_grid: also solve the step's DC-OPF and report eval metric opf_gap = policy gen cost /
  /// OPF gen cost − 1 (episode sums policy_gen_cost_usd, opf_gen_cost_usd).
  bool report_opf_gap = false;
};

struct VecSection {
  int n_envs = 64;
  int threads = 0;  ///< 0 = all cores
};

/// [safety]: the Safe-RL view (rl.md §2.1): selected cost channels, per-episode budgets and cost
/// scale, used by ppo.algo = "ppo_lagrangian" / "saute_ppo".
struct SafetySection {
  std::vector<std::string> constraints;  ///< env cost channel names (validated at build time)
  std::vector<double> thresholds;        ///< per-episode budgets in raw units; empty = all 0
  std::vector<double> cost_scale;        ///< one value (broadcast) or one per channel; empty = 1
};

struct EvalSection {
  int64_t every_steps = 50'000;  ///< 0 disables periodic eval
  int n_episodes = 16;
  std::vector<std::string> splits = {"iid"};
};

struct OutputSection {
  std::string trajectories = "eval";         ///< none | eval | train-sample
  int64_t checkpoint_every_steps = 100'000;  ///< 0 disables periodic checkpoints
  int keep_checkpoints = 3;
};

/// The fully resolved experiment spec. Every field has a default; the TOML overrides them.
struct Spec {
  std::string source_path;  ///< spec file it came from ("" if built in code)
  ExperimentSection experiment;
  EnvSection env;
  VecSection vec;
  rl::PpoConfig ppo;
  std::map<std::string, double> penalty;  ///< [reward] penalty = { channel = weight }
  SafetySection safety;
  EvalSection eval;
  OutputSection output;
  std::string sweep_toml;  ///< the [sweep] table, kept verbatim (TOML) for `powerzoo sweep`
};

/// Parses TOML text into a Spec, then applies `overrides` ("dotted.key=value", value parsed as a
/// TOML value, bare words as strings). Strict: unknown sections/keys are errors with a
/// did-you-mean; wrong types and out-of-range values are errors naming file, key, expected and
/// found. Throws core::ConfigError.
Spec parse_spec(const std::string& toml_text, const std::string& file,
                const std::vector<std::string>& overrides = {});

/// Reads `path` and calls parse_spec. Throws core::ConfigError if the file cannot be read.
Spec load_spec(const std::string& path, const std::vector<std::string>& overrides = {});

/// The resolved spec as canonical TOML (every key, defaults filled in). parse_spec(to_toml(s))
/// reproduces s exactly (doubles printed round-trip).
std::string to_toml(const Spec& s);

/// A double as TOML text that reads back exactly (shortest round-trip form, ".0" when integral,
/// nan/inf spelled the TOML way).
std::string toml_double(double x);
/// A TOML basic string literal with escapes (UTF-8 passes through unchanged).
std::string toml_quote(std::string_view s);

/// Closest candidate by edit distance (for "did you mean"), "" if nothing is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace pz::io
