// The SLURM job-array script of a sweep (`powerzoo sweep --emit slurm`): #SBATCH header, per-task
// logs, and the shell that runs one trial per array task (and requeues it near its time limit).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <regex>
#include <sstream>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/stop_signal.hpp"
#include "powerzoo/exp/sweep/sweep.hpp"

namespace fs = std::filesystem;

namespace pz::exp {
namespace {

using core::ConfigError;

bool safe_sbatch_value(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || std::strchr("_.:,=+-/", c) != nullptr;
  });
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string slurm_script(const std::string& binary, const std::string& spec_file,
                         const std::vector<std::string>& args, const std::string& sweep_dir,
                         const std::string& job_name, int n_trials, const SlurmOptions& o) {
  if (n_trials < 1) throw ConfigError("--emit slurm: the sweep has no trials");
  auto check = [](const char* opt, const std::string& v) {
    if (!v.empty() && !safe_sbatch_value(v))
      throw ConfigError(std::string("--") + opt +
                        ": expected letters, digits and _.:,=+-/ only, found '" + core::echo(v) +
                        "'");
  };
  check("partition", o.partition);
  check("time", o.time);
  check("mem", o.mem);
  // sbatch's own formats: a malformed value went into the script and failed at submission.
  static const std::regex kTime(R"(\d+(:\d{1,2}){0,2}|\d+-\d+(:\d{1,2}){0,2})");
  static const std::regex kMem(R"(\d+[KMGT]?)");
  if (!o.time.empty() && !std::regex_match(o.time, kTime))
    throw ConfigError(
        "--time: expected a SLURM time limit (minutes, MM:SS, HH:MM:SS or "
        "D-HH[:MM[:SS]]), found '" +
        core::echo(o.time) + "'");
  if (!o.mem.empty() && !std::regex_match(o.mem, kMem))
    throw ConfigError(
        "--mem: expected a SLURM memory size (an integer with K, M, G or T), found '" +
        core::echo(o.mem) + "'");
  std::string name;
  for (unsigned char c : job_name)
    name += (std::isalnum(c) || c == '_' || c == '-' || c == '.') ? static_cast<char>(c) : '_';
  if (name.empty()) name = "powerzoo-sweep";
  const std::string logs = (fs::path(sweep_dir) / "logs").string();
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# powerzoo sweep job array: " << n_trials << " trials, one array task per trial.\n"
    << "# Submit with `sbatch THIS_FILE`; afterwards `powerzoo summarize SWEEP_DIR`.\n"
    << "#SBATCH --job-name=" << name << "\n"
    << "#SBATCH --array=0-" << (n_trials - 1);
  if (o.parallel > 0) s << "%" << o.parallel;
  s << "\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.time.empty()) s << "#SBATCH --time=" << o.time << "\n";
  if (o.cpus > 0) s << "#SBATCH --cpus-per-task=" << o.cpus << "\n";
  if (!o.mem.empty()) s << "#SBATCH --mem=" << o.mem << "\n";
  // SLURM's own log path cannot be quoted in an #SBATCH line: use it only for safe paths (the
  // per-task powerzoo log below always works).
  if (safe_sbatch_value(logs)) s << "#SBATCH --output=" << logs << "/slurm-%A_%a.out\n";
  if (o.grace_seconds > 0) s << "#SBATCH --signal=B:USR1@" << o.grace_seconds << "\n";
  if (o.requeue) s << "#SBATCH --requeue\n";
  s << "#SBATCH --open-mode=append\n\n"
    << "set -euo pipefail\n"
    << "export HDF5_USE_FILE_LOCKING=FALSE\n"
    << "POWERZOO=" << shell_quote(binary) << "\n"
    << "SWEEP_DIR=" << shell_quote(sweep_dir) << "\n"
    << "TASK=\"${SLURM_ARRAY_TASK_ID:?not running as a SLURM array task}\"\n"
    << "mkdir -p \"$SWEEP_DIR/logs\"\n"
    << "exec >>\"$SWEEP_DIR/logs/trial_${TASK}.log\" 2>&1\n"
    << "echo \"powerzoo sweep task ${TASK} (job ${SLURM_ARRAY_JOB_ID:-?}) on $(hostname) at $(date "
       "-u +%FT%TZ)\"\n"
    << (o.grace_seconds > 0 ? "" : "exec ") << "\"$POWERZOO\" sweep " << shell_quote(spec_file);
  for (const auto& a : args) s << " " << shell_quote(a);
  s << " --out \"$SWEEP_DIR\" --index \"$TASK\" --threads \"${SLURM_CPUS_PER_TASK:-1}\"";
  if (o.grace_seconds <= 0) {
    s << "\n";
    return s.str();
  }
  // B:USR1 reaches only this shell: forward it once. SIGTERM (scancel, scontrol requeue, the time
  // limit) reaches every process of the job, powerzoo included, so it is not forwarded (a second
  // signal would stop powerzoo before its checkpoint); the shell only waits for it.
  s << " &\n"
    << "PID=$!\n"
    << "GOT=\n"
    << "trap 'GOT=USR1; kill -USR1 \"$PID\" 2>/dev/null || true' USR1\n"
    << "trap 'GOT=TERM' TERM\n"
    << "while :; do\n"
    << "  RC=0; wait \"$PID\" || RC=$?\n"
    << "  # > 128: a trap interrupted the wait while powerzoo still runs\n"
    << "  if [ \"$RC\" -gt 128 ] && kill -0 \"$PID\" 2>/dev/null; then continue; fi\n"
    << "  break\n"
    << "done\n";
  if (o.requeue)
    s << "if [ \"$RC\" -eq " << core::kExitInterrupted << " ] && [ \"$GOT\" = USR1 ]; then\n"
      << "  echo \"time limit near: trial ${TASK} checkpointed; requeueing "
         "${SLURM_ARRAY_JOB_ID}_${TASK}\"\n"
      << "  scontrol requeue \"${SLURM_ARRAY_JOB_ID}_${TASK}\"\n"
      << "fi\n";
  s << "exit \"$RC\"\n";
  return s.str();
}

}  // namespace pz::exp
