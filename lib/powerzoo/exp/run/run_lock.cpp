// Run-directory lock: flock on <dir>/run.lock plus the holder's identity in the file.
#include "powerzoo/exp/run/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/core/utc_time.hpp"

namespace pz::exp {
namespace fs = std::filesystem;
namespace {

using Fields = std::map<std::string, std::string>;

std::string first_line(const std::string& file) {
  std::ifstream in(file);
  std::string s;
  std::getline(in, s);
  return s;
}

std::string host_name() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// Field 22 of /proc/<pid>/stat (start time in clock ticks since boot): with the boot id it
// tells a live holder from a later process that got the same pid. "" if there is no such pid.
std::string start_ticks(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return "";
  const size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return "";
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int k = 3; k <= 22 && rest >> field; ++k)
    if (k == 22) return field;
  return "";
}

std::string own_record() {
  std::ostringstream os;
  os << "host=" << host_name() << "\npid=" << getpid() << "\nstarted_utc=" << core::utc_now()
     << "\nboot_id=" << first_line("/proc/sys/kernel/random/boot_id")
     << "\nstart_ticks=" << start_ticks(getpid()) << "\n";
  if (const char* job = std::getenv("SLURM_JOB_ID")) {
    os << "slurm_job=" << job;
    if (const char* task = std::getenv("SLURM_ARRAY_TASK_ID")) os << " (array task " << task << ")";
    os << "\n";
  }
  return os.str();
}

Fields read_fields(int fd) {
  std::string text;
  char buf[4096];
  for (off_t off = 0;;) {
    const ssize_t n = pread(fd, buf, sizeof buf, off);
    if (n <= 0 || text.size() > 65536) break;
    text.append(buf, static_cast<size_t>(n));
    off += n;
  }
  Fields f;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (const size_t eq = line.find('='); eq != std::string::npos)
      f[line.substr(0, eq)] = line.substr(eq + 1);
  return f;
}

std::string describe(const Fields& f) {
  auto get = [&](const char* k) {
    const auto it = f.find(k);
    return it == f.end() ? std::string("?") : core::echo(it->second);
  };
  std::string s =
      "pid " + get("pid") + " on host " + get("host") + " (started " + get("started_utc");
  if (f.count("slurm_job")) s += ", SLURM job " + get("slurm_job");
  return s + ")";
}

// Whether the holder named in `f` is a live process of this host (same boot, same pid, same
// start tick).
bool alive_here(const Fields& f) {
  const auto host = f.find("host"), pid = f.find("pid"), boot = f.find("boot_id"),
             ticks = f.find("start_ticks");
  if (host == f.end() || pid == f.end() || host->second != host_name()) return false;
  if (boot != f.end() && boot->second != first_line("/proc/sys/kernel/random/boot_id"))
    return false;
  const long p = std::atol(pid->second.c_str());
  if (p <= 0) return false;
  const std::string now = start_ticks(p);
  return !now.empty() && (ticks == f.end() || ticks->second == now);
}

[[noreturn]] void refuse(const std::string& dir, const Fields& f) {
  throw core::ConfigError(dir + ": expected a run directory no other process is using, found " +
                          "it in use by " + describe(f) + " (its " + RunLock::kFile +
                          "); wait for that run to end, or choose another --out");
}

}  // namespace

RunLock RunLock::acquire(const std::string& dir, std::string* warning) {
  if (warning) warning->clear();
  core::create_output_dir(dir, "run directory");
  const std::string path = (fs::path(dir) / kFile).string();
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      if (errno == ELOOP)
        throw core::ConfigError(path +
                                ": expected a lock file, found a symlink (a run never "
                                "writes through a link out of its directory)");
      throw core::RunError(path + ": cannot create the run lock (" + std::strerror(errno) + ")");
    }
    bool have_flock = true;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        const Fields f = read_fields(fd);
        ::close(fd);
        refuse(dir, f);
      }
      have_flock = false;  // ENOLCK and friends: a file system without flock
    }
    // The file may have been removed (a holder releasing) between open and flock: retry on the
    // file that is at the path now.
    struct stat a {
    }, b{};
    if (::fstat(fd, &a) != 0 || ::stat(path.c_str(), &b) != 0 || a.st_ino != b.st_ino ||
        a.st_dev != b.st_dev) {
      ::close(fd);
      continue;
    }
    const Fields old = read_fields(fd);
    if (!old.empty()) {
      const bool here = old.count("host") && old.at("host") == host_name();
      if (alive_here(old) || (!have_flock && !here)) {
        ::close(fd);
        refuse(dir, old);
      }
      if (warning)
        *warning = "taking over the lock of " + dir + " left by " + describe(old) + ": " +
                   (here ? "that process is gone" : "its lock is no longer held");
    }
    const std::string rec = own_record();
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, rec.data(), rec.size(), 0) != static_cast<ssize_t>(rec.size())) {
      const int err = errno;
      ::close(fd);
      throw core::RunError(path + ": cannot write the run lock (" + std::strerror(err) + ")");
    }
    return RunLock(fd, path);
  }
  throw core::RunError(path +
                       ": the run lock kept changing while it was taken (another process "
                       "is starting and stopping runs here)");
}

std::string RunLock::holder(const std::string& dir) {
  const std::string path = (fs::path(dir) / kFile).string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";
  // The record only (taking even a shared flock here could make a concurrent acquire refuse).
  const Fields f = read_fields(fd);
  ::close(fd);
  if (f.empty()) return "";
  const bool here = f.count("host") && f.at("host") == host_name();
  return !here || alive_here(f) ? describe(f) : "";
}

RunLock::RunLock(RunLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)) {}

RunLock& RunLock::operator=(RunLock&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
  }
  return *this;
}

RunLock::~RunLock() { release(); }

void RunLock::release() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still holding the flock: the next holder opens a new file
  ::close(fd_);
  fd_ = -1;
}

}  // namespace pz::exp
