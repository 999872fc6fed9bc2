// Background drawing of evaluation episodes with plot_episode.py (posix_spawn, one at a time).
#include "powerzoo/exp/eval/episode_render.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <vector>

#include "powerzoo/core/build_info.hpp"
#include "powerzoo/core/error.hpp"

extern char** environ;

namespace pz::exp {

namespace fs = std::filesystem;

namespace {

const char* kKey = "[eval] render_every_steps";

// Runs argv with stdout and stderr to `log` (appended), every other descriptor closed (the
// run's lock and HDF5 files stay the parent's) and in a process group of its own (a terminal's
// Ctrl-C stops the run gracefully, and the drawing in progress still ends). Returns the child's
// pid, or -1 with errno.
pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    errno = rc;
    return -1;
  }
  return pid;
}

// Exit status of `pid` after waiting for it (EINTR: a stop signal arrived; wait again).
int wait_status(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

}  // namespace

RenderTool render_tool() {
  RenderTool t;
  if (const char* p = std::getenv("POWERZOO_PYTHON"); p && *p)
    t.python = p;
  else
    t.python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const char* s = std::getenv("POWERZOO_SCRIPTS");
  t.script =
      ((s && *s) ? fs::path(s) : fs::path(core::source_dir()) / "scripts") / "plot_episode.py";
  return t;
}

void check_render_tool() {
  const RenderTool t = render_tool();
  if (!fs::is_regular_file(t.script))
    throw core::ConfigError(std::string(kKey) + ": draws with " + t.script +
                            ", found nothing there (set POWERZOO_SCRIPTS to the directory of "
                            "plot_episode.py)");
  const std::string log =
      (fs::temp_directory_path() / ("powerzoo_render_check_" + std::to_string(getpid()) + ".log"))
          .string();
  const pid_t pid = spawn({t.python, "-c", "import h5py, matplotlib"}, log);
  const int rc = pid < 0 ? -1 : wait_status(pid);
  std::string why;
  if (FILE* f = std::fopen(log.c_str(), "r")) {
    std::array<char, 512> buf{};
    const size_t n = std::fread(buf.data(), 1, buf.size() - 1, f);
    std::fclose(f);
    why.assign(buf.data(), n);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (const size_t nl = why.rfind('\n'); nl != std::string::npos) why = why.substr(nl + 1);
  }
  std::remove(log.c_str());
  if (rc != 0)
    throw core::ConfigError(
        std::string(kKey) + ": draws with " + t.python +
        " and its h5py and matplotlib (Debian: python3-h5py, python3-matplotlib; or set "
        "POWERZOO_PYTHON), found " +
        (pid < 0       ? std::string("no such interpreter (") + std::strerror(errno) + ")"
         : why.empty() ? "exit code " + std::to_string(rc)
                       : why));
}

bool render_due(long long step, long long prev_eval, int64_t every_steps, long long total_steps) {
  if (every_steps <= 0) return false;
  if (prev_eval < 0 || step >= total_steps) return true;
  return step / every_steps > prev_eval / every_steps;
}

EpisodeRenderer::EpisodeRenderer(std::string run_dir)
    : run_dir_(std::move(run_dir)), tool_(render_tool()) {}

EpisodeRenderer::~EpisodeRenderer() {
  finish();
  if (failed_ > 1)
    std::cerr << "powerzoo run: warning: " << failed_ << " of " << started_
              << " drawings failed; see " << (fs::path(run_dir_) / "plots" / "render.log").string()
              << std::endl;
}

void EpisodeRenderer::wait_child() {
  if (child_ < 0) return;
  int rc = wait_status(child_);
  child_ = -1;
  // An interpreter that exits 0 without drawing (a stand-in, a broken script) fails too.
  const std::string tag = "_step" + std::to_string(child_step_) + "_ep0.png";
  bool drew = false;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(run_dir_) / "plots", ec))
    drew = drew || (e.path().filename().string().starts_with("episode_") &&
                    e.path().filename().string().ends_with(tag));
  if (rc == 0 && !drew) rc = -1;
  if (rc != 0 && failed_++ == 0)
    std::cerr << "powerzoo run: warning: drawing the evaluation at step " << child_step_
              << (rc < 0 ? " wrote no picture" : " failed (exit code " + std::to_string(rc) + ")")
              << "; see " << (fs::path(run_dir_) / "plots" / "render.log").string()
              << " (training goes on; later drawings are tried too)" << std::endl;
}

void EpisodeRenderer::draw(long long step) {
  wait_child();
  const fs::path plots = fs::path(run_dir_) / "plots";
  std::error_code ec;
  fs::create_directories(plots, ec);
  child_step_ = step;
  ++started_;
  const std::string log = (plots / "render.log").string();
  if (std::FILE* f = std::fopen(log.c_str(), "a")) {  // which drawing the lines below are
    std::fprintf(f, "== evaluation at global step %lld: %s %s\n", step, tool_.python.c_str(),
                 tool_.script.c_str());
    std::fclose(f);
  }
  child_ = spawn({tool_.python, tool_.script, (fs::path(run_dir_) / "run.h5").string(),
                  "--all-splits", "--eval-step", std::to_string(step)},
                 log);
  if (child_ < 0 && failed_++ == 0)
    std::cerr << "powerzoo run: warning: could not start " << tool_.python << ": "
              << std::strerror(errno) << " (training goes on without pictures)" << std::endl;
}

int EpisodeRenderer::finish() {
  wait_child();
  return failed_;
}

}  // namespace pz::exp
