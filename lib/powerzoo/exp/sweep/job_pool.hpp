// Local job pool: child processes of a binary (fork + execv), at most P at a time, each with its
// output appended to its own log file. Used by `powerzoo sweep --jobs P`.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pz::exp {

struct Job {
  int id = 0;                     ///< caller's id (the sweep's trial index)
  std::vector<std::string> argv;  ///< argv[0..]; the program is run_job_pool's `binary`
  std::string log_file;           ///< stdout and stderr are appended here
};

struct JobOutcome {
  int id = 0;
  bool ok = false;     ///< exited with status 0
  int exit_code = -1;  ///< the exit status, -1 when killed by a signal
  std::string why;     ///< "exit code N" or "killed by signal N" when not ok
  double seconds = 0;  ///< wall time from fork to exit
};

/// Runs `jobs` in order, at most max_parallel at once, calling on_start after each start and
/// on_finish after each exit (in exit order). Returns when every job has exited. Throws
/// core::RunError if fork fails. Each job runs in its own process group, so a terminal's Ctrl-C
/// reaches only this process: a stop signal (core::stop_signal) is forwarded once to every
/// running job (each finishes its iteration and checkpoints) and no further job starts.
void run_job_pool(const std::string& binary, const std::vector<Job>& jobs, int max_parallel,
                  const std::function<void(const Job&)>& on_start,
                  const std::function<void(const JobOutcome&)>& on_finish);

}  // namespace pz::exp
