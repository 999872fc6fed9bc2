// Sweeps: expansion of a spec's [sweep] table (plus command-line grids) into numbered trials, the
// sweep.json manifest, and the SLURM job-array script (docs/design.md §1 and §6; SLURM job arrays
// and requeue as in the SLURM sbatch documentation).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "powerzoo/exp/spec/spec.hpp"

namespace pz::exp {

/// One trial of a sweep: the key=value overrides that turn the base spec into this trial.
struct Trial {
  int index = 0;                       ///< 0-based, stable for the same spec and arguments
  std::string id;                      ///< "t<index>-<8 hex of a hash of the overrides>"
  std::vector<std::string> overrides;  ///< applied after the spec-file text with parse_spec
};

/// Expands the sweep of `spec_text` (the spec file's TOML) with the command-line arguments `args`
/// ("key=value" fixed overrides and "key=v1,v2,..." grids; commas inside [], {} or quotes do not
/// split). Rules, in order:
///  - [sweep] entries whose value is an array are grid axes (`seed = [0, 1]`,
///    `"ppo.learning_rate" = [1e-4, 3e-4]`, or nested `ppo = { learning_rate = [...] }`);
///    scalar entries are fixed overrides for every trial. Keys iterate in TOML-table order
///    (sorted by key).
///  - Command-line arguments follow; a command-line key replaces a [sweep] axis of the same key in
///    place, otherwise it appends a new axis (one value = fixed override).
///  - The grid is the cartesian product with the first axis slowest (itertools.product order).
///  - `[sweep.random] n = K` with `key = {low = a, high = b, log = true|false}` ranges (or a list
///  of
///    choices) draws K random configurations from core::Rng(base seed, kSweepRngStream), where the
///    base seed is experiment.seed of the spec with the fixed overrides applied. Every grid point
///    is combined with every random sample (grid slowest), so a `seed` grid gives each random
///    configuration all seeds. Integer bounds without log give integers in [low, high].
/// Every trial is validated with parse_spec before anything runs. Throws core::ConfigError,
/// also for more than `max_trials` trials.
std::vector<Trial> expand_sweep(const std::string& spec_text, const std::string& spec_file,
                                const std::vector<std::string>& args, size_t max_trials = 1000000);

/// Splits "v1,v2,..." at top-level commas (not inside [], {}, or quotes). Exposed for tests.
std::vector<std::string> split_grid_values(const std::string& raw);

/// Stable short id for a trial: "t<index>-" + 8 hex digits of FNV-1a-64 over the overrides.
std::string trial_id(int index, const std::vector<std::string>& overrides);

inline constexpr uint64_t kSweepRngStream = 0x5EE9;

// ---- Manifest (sweep.json) -----------------------------------------------------------------

struct TrialStatus {
  Trial trial;
  std::string status = "pending";  ///< pending | running | done | failed
  std::string run_dir;             ///< relative to the sweep directory ("trial_3")
  std::string message;             ///< failure reason ("" otherwise)
  std::string updated_utc;
  int attempts = 0;
};

struct Manifest {
  std::string spec_file;          ///< absolute path of the spec
  std::vector<std::string> args;  ///< command-line overrides/grids the sweep was expanded with
  std::vector<TrialStatus> trials;
};

/// Writes `m` to `path` atomically (temporary file in the same directory, fsync, rename).
void write_manifest(const std::string& path, const Manifest& m);
/// Throws core::ConfigError if `sweep_dir` exists and holds anything a sweep does not write
/// (sweep.json, its lock, logs/, trial_<i>/): a run's directory, its ckpt/ or a folder of other
/// files is not a sweep directory.
void check_sweep_dir(const std::string& sweep_dir);

/// Reads a manifest. Throws core::ConfigError if missing or malformed.
Manifest read_manifest(const std::string& path);

/// Creates `sweep_dir` and its manifest if absent; if present, checks that it describes the same
/// trials (ids) and returns it (statuses kept). A different trial list is a core::ConfigError.
/// Holds an exclusive flock on sweep_dir/sweep.json.lock while doing so.
Manifest init_manifest(const std::string& sweep_dir, const std::string& spec_file,
                       const std::vector<std::string>& args, const std::vector<Trial>& trials);

/// Sets the status (and message) of trial `index` under the lock (read-modify-write, atomic).
void update_trial_status(const std::string& sweep_dir, int index, const std::string& status,
                         const std::string& message = "");

/// Directory of a sweep: `out` if given, else <experiment.out_dir>/<experiment.name>-sweep of the
/// base spec (spec file with the fixed command-line overrides applied).
std::string sweep_dir_for(const Spec& base, const std::string& out);

// ---- SLURM ----------------------------------------------------------------------------------

/// Single-quotes `s` for POSIX sh: 'it'\''s' (safe for any byte string without NUL).
std::string shell_quote(const std::string& s);

struct SlurmOptions {
  std::string partition, time, mem;  ///< "" = not set
  int cpus = 0;                      ///< 0 = not set (the task uses 1 thread)
  int parallel = 0;                  ///< array throttle %P (0 = no throttle)
  /// > 0: `--signal=B:USR1@grace`: SLURM signals the task `grace` seconds before its time limit,
  /// the trial checkpoints and exits 3 (core::kExitInterrupted).
  int grace_seconds = 0;
  /// `--requeue`: the task may be requeued (preemption, `scontrol requeue`), and one stopped by
  /// the time-limit signal requeues itself; a requeued task resumes its trial.
  bool requeue = false;
};

/// The job-array script: #SBATCH --array=0-(n-1)[%P], per-task log files in sweep_dir/logs,
/// HDF5_USE_FILE_LOCKING=FALSE, task id -> `powerzoo sweep SPEC ARGS --out DIR --index $ID`.
/// Every interpolated value is single-quoted; #SBATCH values are checked against a safe character
/// set (core::ConfigError otherwise). `binary` is the absolute path of powerzoo. Without a grace
/// signal the task execs powerzoo (which gets SLURM's SIGTERM itself); with one, the batch shell
/// forwards USR1 once and waits.
std::string slurm_script(const std::string& binary, const std::string& spec_file,
                         const std::vector<std::string>& args, const std::string& sweep_dir,
                         const std::string& job_name, int n_trials, const SlurmOptions& o);

}  // namespace pz::exp
