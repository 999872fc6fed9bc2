// exp::RunLock: one process per run directory; a second run (or sweep task) refuses naming the
// holder; a lock left by a dead process is taken over with a warning.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/run/run_lock.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using pz::core::ConfigError;
using pz::exp::RunLock;

namespace {

fs::path tmp(const std::string& name) { return pz::test::tmp_dir("pz_lock", name); }

std::string host() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// A pid that is certainly not running: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t p = fork();
  if (p == 0) _exit(0);
  int st = 0;
  waitpid(p, &st, 0);
  return p;
}

std::string refusal(const fs::path& dir) {
  try {
    RunLock::acquire(dir.string());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

void write_record(const fs::path& dir, const std::string& text) {
  fs::create_directories(dir);
  std::ofstream(dir / RunLock::kFile) << text;
}

const char* kSpec = R"([experiment]
name = "lock"
seed = 1
[env]
case = "case5"
horizon = 12
reward_scale = 1e-4
[vec]
n_envs = 4
[learner]
total_steps = 5000000
rollout_length = 12

[ppo]
n_minibatches = 2
hidden = [8, 8]
[eval]
every_steps = 0
[output]
checkpoint_every_steps = 0
)";

}  // namespace

TEST_SUITE("exp_run_lock") {
  TEST_CASE("a second acquire refuses naming the holder; release removes the lock file") {
    const fs::path d = tmp("second");
    {
      const RunLock lock = RunLock::acquire(d.string());
      CHECK(fs::exists(d / RunLock::kFile));
      const std::string why = refusal(d);  // flock conflicts between open files, same process too
      CHECK(why.find("in use by pid " + std::to_string(getpid()) + " on host " + host()) !=
            std::string::npos);
      CHECK(why.find("(its run.lock)") != std::string::npos);
      CHECK(RunLock::holder(d.string()).find("pid " + std::to_string(getpid())) == 0);
    }
    CHECK_FALSE(fs::exists(d / RunLock::kFile));
    CHECK(RunLock::holder(d.string()).empty());
    CHECK_NOTHROW(RunLock::acquire(d.string()));
  }

  TEST_CASE("a lock left by a dead pid on this host is taken over with a warning") {
    const fs::path d = tmp("stale");
    const pid_t gone = dead_pid();
    write_record(d, "host=" + host() + "\npid=" + std::to_string(gone) +
                        "\nstarted_utc=2026-01-01T00:00:00Z\n");
    CHECK(RunLock::holder(d.string()).empty());
    std::string warning;
    const RunLock lock = RunLock::acquire(d.string(), &warning);
    CHECK(warning.find("left by pid " + std::to_string(gone) + " on host " + host() +
                       " (started 2026-01-01T00:00:00Z): that process is gone") !=
          std::string::npos);
    // The file now names this process.
    std::ifstream in(d / RunLock::kFile);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find("pid=" + std::to_string(getpid()) + "\n") != std::string::npos);
  }

  TEST_CASE("a live pid whose start tick differs is another process (pid reuse): stale") {
    const fs::path d = tmp("reuse");
    write_record(d, "host=" + host() + "\npid=" + std::to_string(getpid()) +
                        "\nstart_ticks=1\nstarted_utc=x\n");
    std::string warning;
    CHECK_NOTHROW(RunLock::acquire(d.string(), &warning));
    CHECK(warning.find("that process is gone") != std::string::npos);
  }

  TEST_CASE("a record from another host with a free flock is taken over, naming it") {
    const fs::path d = tmp("other_host");
    write_record(d, "host=elsewhere-node7\npid=4242\nstarted_utc=y\nslurm_job=99 (array task 3)\n");
    CHECK(RunLock::holder(d.string()) ==
          "pid 4242 on host elsewhere-node7 (started y, SLURM job 99 (array task 3))");
    std::string warning;
    CHECK_NOTHROW(RunLock::acquire(d.string(), &warning));
    CHECK(warning.find("its lock is no longer held") != std::string::npos);
  }

  TEST_CASE("a lock file that is a symlink is refused, its target untouched") {
    const fs::path d = tmp("symlink");
    fs::create_directories(d);
    const fs::path target = d / "target.txt";
    std::ofstream(target) << "precious\n";
    fs::create_symlink(target, d / RunLock::kFile);
    CHECK(refusal(d).find("found a symlink") != std::string::npos);
    std::ifstream in(target);
    std::string s;
    std::getline(in, s);
    CHECK(s == "precious");
  }

  TEST_CASE(
      "two runs on one directory: the second refuses naming the first; after a kill -9 the "
      "next run takes the stale lock over with a warning") {
    const fs::path d = tmp("two_runs");
    const std::string spec = pz::test::write(d / "lock.toml", kSpec);
    const std::string bin = PZ_BINARY, out = (d / "run").string();
    const pid_t first = fork();
    if (first == 0) {
      execl(bin.c_str(), bin.c_str(), "run", spec.c_str(), "--quiet", "--threads", "1", "--out",
            out.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 2000 && !fs::exists(fs::path(out) / RunLock::kFile); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(fs::exists(fs::path(out) / RunLock::kFile));
    const auto second = pz::test::sh(bin + " run " + spec + " --quiet --resume --out " + out);
    CHECK(second.code == 2);
    CHECK(second.out.find("in use by pid " + std::to_string(first) + " on host " + host()) !=
          std::string::npos);
    kill(first, SIGKILL);
    int st = 0;
    waitpid(first, &st, 0);
    CHECK(WIFSIGNALED(st));
    REQUIRE(fs::exists(fs::path(out) / RunLock::kFile));  // left behind by the killed run
    const auto third = pz::test::sh(bin + " run " + spec +
                                    " learner.total_steps=480 --quiet --resume --out " + out);
    CHECK_MESSAGE(third.code == 0, third.out);
    CHECK(third.out.find("warning: taking over the lock of " + out + " left by pid " +
                         std::to_string(first) + " on host " + host()) != std::string::npos);
    CHECK(pz::io::read_column(out + "/run.h5", "metrics/train/global_step").back() == 480);
    CHECK_FALSE(fs::exists(fs::path(out) / RunLock::kFile));
  }

  TEST_CASE("the same sweep trial from a second task refuses and leaves the manifest alone") {
    const fs::path d = tmp("sweep_trial");
    const std::string spec = pz::test::write(d / "lock.toml", kSpec);
    const std::string bin = PZ_BINARY, sweep = (d / "sweep").string();
    const pid_t first = fork();
    if (first == 0) {  // what a SLURM array task runs
      execl(bin.c_str(), bin.c_str(), "sweep", spec.c_str(), "--out", sweep.c_str(), "--index", "0",
            "--quiet", "--threads", "1", static_cast<char*>(nullptr));
      _exit(127);
    }
    const fs::path lock = fs::path(sweep) / "trial_0" / RunLock::kFile;
    for (int i = 0; i < 2000 && !fs::exists(lock); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(fs::exists(lock));
    const auto second = pz::test::sh(bin + " sweep " + spec + " --out " + sweep + " --index 0");
    CHECK(second.code == 2);
    CHECK(second.out.find("trial_0: expected a run directory no other process is using, found "
                          "it in use by pid " +
                          std::to_string(first)) != std::string::npos);
    std::ifstream in(fs::path(sweep) / "sweep.json");
    std::stringstream manifest;
    manifest << in.rdbuf();
    CHECK(manifest.str().find("\"status\": \"running\"") != std::string::npos);
    CHECK(manifest.str().find("\"attempts\": 1") != std::string::npos);
    kill(first, SIGKILL);
    int st = 0;
    waitpid(first, &st, 0);
  }
}
