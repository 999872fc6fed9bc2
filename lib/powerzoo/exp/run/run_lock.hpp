// The lock of a run directory: one process at a time trains in it (docs/design.md §8.1).
#pragma once

#include <string>

namespace pz::exp {

/// Exclusive lock of a run directory, held from before the first write until the run ends.
///
/// The lock is `<dir>/run.lock`: an flock(2) held on it for the life of the process (the kernel
/// drops it when the process dies, even by SIGKILL) plus the holder written into it (host, pid,
/// start time, boot id, the process's start tick and the SLURM job if any) so that a refusal can
/// name the holder. Acquire:
///  - the flock is held by another process: refused (core::ConfigError naming the holder);
///  - the flock is free but the file names a holder (a killed run left it): taken over, with a
///    warning naming the old holder (the same-host pid is gone or is another process; on another
///    host the free flock shows it stopped, on file systems whose flock spans hosts: NFSv4,
///    Lustre with -o flock, GPFS);
///  - the file system has no flock (ENOLCK): the holder's liveness is checked on the same host
///    only; a holder on another host is refused.
/// Release (destructor) removes the file, then drops the flock. Not copyable; movable.
class RunLock {
 public:
  static constexpr const char* kFile = "run.lock";

  /// Creates `dir` if needed and takes its lock. `warning` (if not null) receives the takeover
  /// warning ("" if none). Throws core::ConfigError if another live process holds the lock or
  /// the lock file is a symlink; core::RunError if the file cannot be created.
  static RunLock acquire(const std::string& dir, std::string* warning = nullptr);

  /// "pid 123 on host h (started 2026-01-01T00:00:00Z, SLURM job 77)" of the holder `dir`'s lock
  /// names: a live process on this host, or any holder on another host (whose liveness cannot be
  /// seen from here); "" if there is none. Reads the record only (takes no lock, creates
  /// nothing).
  static std::string holder(const std::string& dir);

  RunLock(RunLock&& o) noexcept;
  RunLock& operator=(RunLock&& o) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

  const std::string& path() const { return path_; }

 private:
  RunLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void release();
  int fd_ = -1;
  std::string path_;
};

}  // namespace pz::exp
