// `powerzoo sweep SPEC.toml [key=v1,v2 ...]`: expand a sweep into trials; list them, run them
// locally (--jobs N child processes of this binary), run one (--index I, what a SLURM array task
// calls), or print a SLURM job-array script (--emit slurm).
#include <boost/program_options.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/core/stop_signal.hpp"
#include "powerzoo/exp/run/run_dir.hpp"
#include "powerzoo/exp/run/run_lock.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/sweep/job_pool.hpp"
#include "powerzoo/exp/sweep/sweep.hpp"
#include "powerzoo/exp/train/train.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace pz::cli {
namespace {

/// TrainOptions::resume is added by the resume work (issue 5 part 3); use it when it exists.
template <class T>
constexpr bool has_resume() {
  return requires(T & o) { o.resume = true; };
}
template <class T>
void set_resume(T& o) {
  if constexpr (has_resume<T>()) o.resume = true;
}

std::string read_text(const std::string& path) {
  if (fs::is_directory(path))
    throw core::ConfigError(path + ": expected a spec file (TOML), found a directory");
  core::expect_regular_file(path, "a spec file (TOML)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::ConfigError(path + ": cannot read spec file (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs trial `index` in this process. Returns the exit code.
int run_one(const std::string& spec_text, const std::string& spec_file, const fs::path& sweep_dir,
            const exp::Manifest& m, int index, int threads, bool quiet) {
  const auto& ts = m.trials.at(index);
  const fs::path run_dir = sweep_dir / ts.run_dir;
  if (ts.status == "done" && fs::exists(run_dir / "run.h5")) {
    std::cout << "trial " << index << " (" << ts.trial.id << ") already done: " << run_dir.string()
              << "\n";
    return 0;
  }
  const exp::Spec spec = exp::parse_spec(spec_text, spec_file, ts.trial.overrides, true);
  exp::TrainOptions topt;
  topt.out_dir = run_dir.string();
  topt.threads = threads;
  topt.quiet = quiet;
  const bool existed = fs::exists(run_dir);
  // The trial's lock before its status changes: a second task on the same trial (a local sweep
  // and a SLURM task) refuses here, naming the holder, and leaves the manifest as it was.
  std::string warning;
  const exp::RunLock lock = exp::RunLock::acquire(run_dir.string(), &warning);
  if (!warning.empty()) std::cerr << "powerzoo sweep: warning: " << warning << std::endl;
  topt.take_lock = false;
  if (existed) {
    if constexpr (has_resume<exp::TrainOptions>()) {
      // Interrupted: continue from its newest complete checkpoint (train starts over in the same
      // directory when there is none).
      set_resume(topt);
      std::cout << "trial " << index << ": resuming " << run_dir.string()
                << (exp::RunDirectory::has_step_checkpoint(run_dir.string())
                        ? ""
                        : " (no checkpoint: from scratch)")
                << "\n";
    } else {
      std::cout << "trial " << index << ": restarting " << run_dir.string() << " from scratch\n";
      fs::remove_all(run_dir);
    }
  }
  exp::update_trial_status(sweep_dir.string(), index, "running");
  core::install_stop_handlers();
  exp::TrainResult r;
  try {
    r = exp::train(spec, topt);
  } catch (const std::exception& e) {
    exp::update_trial_status(sweep_dir.string(), index, "failed", e.what());
    throw;
  }
  if (r.stopped_by != 0) {  // a re-run (or a requeued array task) resumes it
    exp::update_trial_status(sweep_dir.string(), index, "interrupted",
                             std::string(core::signal_name(r.stopped_by)) + " at global step " +
                                 std::to_string(r.steps));
    return core::kExitInterrupted;
  }
  exp::update_trial_status(sweep_dir.string(), index, "done");
  return 0;
}

/// What `run` checks before it writes (validate_train), for every trial; the error names the
/// trial. Warnings for settings a learner ignores are printed once, not per trial.
void validate_trials(const std::string& spec_text, const std::string& spec_file,
                     const std::vector<exp::Trial>& trials) {
  std::set<std::string> warned;
  for (const auto& t : trials) {
    const exp::Spec spec = exp::parse_spec(spec_text, spec_file, t.overrides, true);
    for (const auto& d : spec.dropped)
      if (warned.insert(d).second) std::cerr << "powerzoo sweep: warning: " << d << std::endl;
    try {
      exp::validate_train(spec);
    } catch (const core::ConfigError& e) {
      throw core::ConfigError("trial " + std::to_string(t.index) + " (" + t.id + "): " + e.what());
    }
    const std::string w = exp::unused_settings_warning(spec);
    if (!w.empty() && warned.insert(w).second)
      std::cerr << "powerzoo sweep: warning: " << w << std::endl;
  }
}

/// `--list`: the trials as "index<TAB>id<TAB>overrides".
void list_trials(const std::vector<exp::Trial>& trials) {
  std::cout << trials.size() << " trials\n";
  for (const auto& t : trials) {
    std::cout << t.index << "\t" << t.id << "\t";
    for (size_t i = 0; i < t.overrides.size(); ++i) std::cout << (i ? " " : "") << t.overrides[i];
    std::cout << "\n";
  }
}

/// `--emit slurm`: writes the manifest and logs/, then prints the job-array script.
void emit_slurm(const std::string& abs_spec, const std::vector<std::string>& sweep_args,
                const fs::path& sweep_dir, const std::string& name,
                const std::vector<exp::Trial>& trials, const exp::SlurmOptions& so) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string script = exp::slurm_script(self, abs_spec, sweep_args, sweep_dir.string(), name,
                                               static_cast<int>(trials.size()), so);
  // The manifest and logs/ exist before any task starts (SLURM cannot create log directories).
  exp::init_manifest(sweep_dir.string(), abs_spec, sweep_args, trials);
  fs::create_directories(sweep_dir / "logs");
  std::cout << script;
}

/// One child `powerzoo sweep ... --index I` job per trial in `todo`.
std::vector<exp::Job> trial_jobs(const std::string& spec_file,
                                 const std::vector<std::string>& sweep_args,
                                 const fs::path& sweep_dir, const std::vector<int>& todo,
                                 int per_trial) {
  std::vector<exp::Job> pool_jobs;
  for (const int i : todo) {
    exp::Job job;
    job.id = i;
    job.argv = {"powerzoo", "sweep", spec_file};
    job.argv.insert(job.argv.end(), sweep_args.begin(), sweep_args.end());
    for (const std::string& s :
         {std::string("--out"), sweep_dir.string(), std::string("--index"), std::to_string(i),
          std::string("--threads"), std::to_string(per_trial)})
      job.argv.push_back(s);
    job.log_file = (sweep_dir / "logs" / ("trial_" + std::to_string(i) + ".log")).string();
    pool_jobs.push_back(std::move(job));
  }
  return pool_jobs;
}

/// All trials not done yet: child processes of this binary, at most `jobs` at a time. Returns the
/// exit code (1 if a trial failed).
int run_all(const std::string& spec_file, const std::vector<std::string>& sweep_args,
            const fs::path& sweep_dir, const exp::Manifest& m, size_t n_trials, int jobs,
            int per_trial, bool quiet) {
  std::vector<int> todo;
  int skipped = 0;
  for (const auto& t : m.trials) {
    if (t.status == "done" && fs::exists(sweep_dir / t.run_dir / "run.h5"))
      ++skipped;
    else
      todo.push_back(t.trial.index);
  }
  fs::create_directories(sweep_dir / "logs");
  std::cout << "powerzoo sweep: " << n_trials << " trials in " << sweep_dir.string() << " ("
            << skipped << " already done, " << todo.size() << " to run, " << jobs << " at a time x "
            << per_trial << " threads)" << std::endl;
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::vector<exp::Job> pool_jobs =
      trial_jobs(spec_file, sweep_args, sweep_dir, todo, per_trial);
  int n_done = 0, n_failed = 0, n_interrupted = 0;
  auto on_start = [&](const exp::Job& j) {
    if (!quiet)
      std::cout << "  start trial " << j.id << " (" << m.trials[j.id].trial.id << ")" << std::endl;
  };
  auto on_finish = [&](const exp::JobOutcome& o) {
    if (o.ok) {
      ++n_done;
    } else if (o.exit_code == core::kExitInterrupted) {
      ++n_interrupted;  // the trial recorded it; the same command resumes it
    } else {
      ++n_failed;
      // A child that died without recording its outcome leaves "running": record it here,
      // unless another process (a SLURM task) runs the trial and holds its lock.
      const auto now = exp::read_manifest((sweep_dir / "sweep.json").string());
      const std::string holder =
          exp::RunLock::holder((sweep_dir / now.trials.at(o.id).run_dir).string());
      if (now.trials.at(o.id).status != "failed" && holder.empty())
        exp::update_trial_status(sweep_dir.string(), o.id, "failed", o.why);
    }
    std::cout
        << "  trial " << o.id << " (" << m.trials[o.id].trial.id << ") "
        << (o.ok                                    ? "done"
            : o.exit_code == core::kExitInterrupted ? "interrupted"
                                                    : "FAILED")
        << " in " << static_cast<int>(o.seconds + 0.5) << " s"
        << (o.ok ? ""
                 : "; log: " +
                       (sweep_dir / "logs" / ("trial_" + std::to_string(o.id) + ".log")).string())
        << std::endl;
  };
  core::install_stop_handlers();
  exp::run_job_pool(self, pool_jobs, jobs, on_start, on_finish);
  const int n_stopped = static_cast<int>(todo.size()) - n_done - n_failed;
  std::cout << "powerzoo sweep: " << n_done << " done, " << n_failed << " failed, " << skipped
            << " skipped";
  if (n_stopped > 0)
    std::cout << ", " << n_stopped << " interrupted or not started (" << n_interrupted
              << " with a checkpoint); the same command continues them";
  std::cout << "; summarize with `powerzoo summarize " << sweep_dir.string() << "`" << std::endl;
  if (n_failed > 0) return 1;
  return n_stopped > 0 ? core::kExitInterrupted : 0;
}

}  // namespace

int cmd_sweep(const Args& args) {
  po::options_description opts(
      "usage: powerzoo sweep SPEC.toml [key=v1,v2 ...] [options]\n\n"
      "Expands the spec's [sweep] table (lists are a grid, `seed` list, optional [sweep.random]\n"
      "n = K with key = {low, high, log} ranges) and key=v1,v2 command-line grids into numbered\n"
      "trials (first axis slowest). Trial i runs in SWEEP_DIR/trial_i; SWEEP_DIR/sweep.json "
      "records\n"
      "every trial's overrides and status. Re-running skips finished trials and resumes\n"
      "interrupted ones. SWEEP_DIR = out_dir/<name>-sweep (or --out).\n\noptions");
  std::string out, emit, partition, time_limit, mem;
  int jobs = 1, index = -1, threads = -1, cpus = 0, grace = 0;
  opts.add_options()("help,h", "show this help")("list", "print the trials (index, id, overrides)")(
      "jobs,j", po::value<int>(&jobs),
      "trials run in parallel on this machine (cores divided between them); with --emit slurm, "
      "the array throttle %N")("index", po::value<int>(&index),
                               "run trial I only (what a job-array task calls)")(
      "emit", po::value<std::string>(&emit), "print a job script: slurm")(
      "partition", po::value<std::string>(&partition), "SLURM partition (--emit slurm)")(
      "time", po::value<std::string>(&time_limit), "SLURM time limit, e.g. 02:00:00")(
      "cpus", po::value<int>(&cpus), "SLURM cpus per task (= threads per trial)")(
      "mem", po::value<std::string>(&mem), "SLURM memory per task, e.g. 4G")(
      "grace", po::value<int>(&grace),
      "SLURM signals the task (USR1) this many seconds before its time limit: the trial "
      "checkpoints and stops (default with --requeue: 120)")(
      "requeue",
      "SLURM may requeue the task (preemption, scontrol requeue); a task stopped near its time "
      "limit requeues itself, and a requeued task resumes its trial")(
      "out", po::value<std::string>(&out), "sweep directory (default: out_dir/<name>-sweep)")(
      "threads", po::value<int>(&threads), "worker threads per trial (default: cores / jobs)")(
      "quiet,q", "no per-trial progress output");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  check_path_option(vm, "out");
  if (positional.empty()) throw UsageError{"expected a spec file (SPEC.toml), found none"};
  if (jobs < 1 || jobs > 1024)
    throw UsageError{"--jobs: expected an integer in [1, 1024], found " + std::to_string(jobs)};
  if (vm.count("threads")) check_threads_option(threads);
  if ((vm.count("cpus") && cpus < 1) || cpus < 0 || cpus > 1024)  // --cpus 0 was dropped
    throw UsageError{"--cpus: expected an integer in [1, 1024], found " + std::to_string(cpus)};
  if (!emit.empty() && emit != "slurm")
    throw UsageError{"--emit: expected 'slurm', found '" + core::echo(emit) + "'"};
  if (emit.empty() && (vm.count("partition") || vm.count("time") || vm.count("cpus") ||
                       vm.count("mem") || vm.count("grace") || vm.count("requeue")))
    throw UsageError{
        "--partition/--time/--cpus/--mem/--grace/--requeue only apply with --emit slurm"};
  if (vm.count("grace") && (grace < 1 || grace > 65535))
    throw UsageError{"--grace: expected seconds in [1, 65535], found " + std::to_string(grace)};
  // One mode at a time: the others had been ignored silently.
  if ((vm.count("list") > 0) + (vm.count("emit") > 0) + (vm.count("index") > 0) > 1)
    throw UsageError{"--list, --emit and --index are different modes; expected one of them"};
  const std::string spec_file = positional[0];
  const std::vector<std::string> sweep_args(positional.begin() + 1, positional.end());
  for (const auto& a : sweep_args)
    if (a.find('=') == std::string::npos)
      throw UsageError{"expected key=value or key=v1,v2 after the spec, found '" + core::echo(a) +
                       "'"};

  const std::string spec_text = read_text(spec_file);
  const auto trials = exp::expand_sweep(spec_text, spec_file, sweep_args);
  if (index >= 0 && static_cast<size_t>(index) >= trials.size())
    throw UsageError{"--index: expected a trial in [0, " + std::to_string(trials.size() - 1) +
                     "], found " + std::to_string(index)};
  if (vm.count("index") && index < 0)
    throw UsageError{"--index: expected a non-negative trial index, found " +
                     std::to_string(index)};

  if (vm.count("list")) {
    list_trials(trials);
    return 0;
  }

  std::vector<std::string> fixed;
  for (const auto& a : sweep_args)
    if (exp::split_grid_values(a.substr(a.find('=') + 1)).size() == 1) fixed.push_back(a);
  const exp::Spec base = exp::parse_spec(spec_text, spec_file, fixed, true);
  const fs::path sweep_dir = fs::absolute(exp::sweep_dir_for(base, out)).lexically_normal();
  const std::string abs_spec = fs::absolute(spec_file).lexically_normal().string();

  // Every trial's envs are built before anything is written: a bad case in trial 1 failed only
  // after trial 0 had trained and written its run.
  if (index < 0) validate_trials(spec_text, spec_file, trials);

  if (emit == "slurm") {
    exp::SlurmOptions so;
    so.partition = partition;
    so.time = time_limit;
    so.mem = mem;
    so.cpus = cpus;
    so.parallel = vm.count("jobs") ? jobs : 0;
    so.requeue = vm.count("requeue") > 0;
    so.grace_seconds = vm.count("grace") ? grace : so.requeue ? 120 : 0;
    emit_slurm(abs_spec, sweep_args, sweep_dir, base.experiment.name + "-sweep", trials, so);
    return 0;
  }
  exp::Manifest m = exp::init_manifest(sweep_dir.string(), abs_spec, sweep_args, trials);

  const bool quiet = vm.count("quiet") > 0;
  if (index >= 0) return run_one(spec_text, spec_file, sweep_dir, m, index, threads, quiet);

  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const int per_trial = vm.count("threads") ? threads : std::max(1, static_cast<int>(hw) / jobs);
  return run_all(spec_file, sweep_args, sweep_dir, m, trials.size(), jobs, per_trial, quiet);
}

}  // namespace pz::cli
