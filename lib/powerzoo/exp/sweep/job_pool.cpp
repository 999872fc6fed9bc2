// fork/execv/waitpid job pool with per-job log files.
#include "powerzoo/exp/sweep/job_pool.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <map>
#include <thread>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/stop_signal.hpp"

namespace pz::exp {
namespace {

struct Running {
  size_t job;
  std::chrono::steady_clock::time_point start;
};

pid_t start_job(const std::string& binary, const Job& job) {
  std::vector<std::string> argv_s = job.argv;
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid < 0) throw core::RunError(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);  // the parent forwards stop signals, once (a second one stops at once)
    const int fd = ::open(job.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    _exit(127);
  }
  ::setpgid(pid, pid);  // also here: no window in which a signal reaches the old group
  return pid;
}

}  // namespace

void run_job_pool(const std::string& binary, const std::vector<Job>& jobs, int max_parallel,
                  const std::function<void(const Job&)>& on_start,
                  const std::function<void(const JobOutcome&)>& on_finish) {
  std::map<pid_t, Running> running;
  size_t next = 0;
  int forwarded = 0;
  while (next < jobs.size() || !running.empty()) {
    if (const int sig = core::stop_signal(); sig != 0 && forwarded == 0) {
      forwarded = sig;
      next = jobs.size();
      for (const auto& [pid, r] : running) ::kill(pid, sig);
    }
    while (next < jobs.size() && static_cast<int>(running.size()) < max_parallel) {
      const pid_t pid = start_job(binary, jobs[next]);
      running[pid] = {next, std::chrono::steady_clock::now()};
      if (on_start) on_start(jobs[next]);
      ++next;
    }
    int st = 0;
    // Polled, so that a stop signal is forwarded while the jobs run (handlers use SA_RESTART).
    const pid_t pid = ::waitpid(-1, &st, WNOHANG);
    if (pid == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const Running r = it->second;
    running.erase(it);
    JobOutcome o;
    o.id = jobs[r.job].id;
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
    o.ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    o.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (!o.ok)
      o.why = WIFSIGNALED(st) ? std::string("killed by signal ") + std::to_string(WTERMSIG(st))
                              : "exit code " + std::to_string(WEXITSTATUS(st));
    if (on_finish) on_finish(o);
  }
}

}  // namespace pz::exp
