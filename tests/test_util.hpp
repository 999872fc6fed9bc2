// Shared helpers of the end-to-end tests: run a shell command, scratch directories, small files.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace pz::test {

struct Proc {
  int code;         ///< exit code (−1 if the command did not exit normally)
  std::string out;  ///< stdout and stderr, merged
};

/// The bytes of a file ("" if it cannot be read).
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Runs a shell command with stderr merged into stdout.
inline Proc sh(const std::string& cmd) {
  Proc p{-1, ""};
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return p;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) p.out.append(buf.data(), n);
  const int st = pclose(f);
  p.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return p;
}

/// A fresh, empty directory <tmp>/<prefix>_<pid>/<name>.
inline std::filesystem::path tmp_dir(const std::string& prefix, const std::string& name) {
  const auto d =
      std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(getpid())) / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

/// Writes text to p and returns the path as a string.
inline std::string write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p.string();
}

/// The knobs of tiny_case5_spec.
struct TinySpec {
  std::string name = "tiny";
  int seed = 5;
  long total_steps = 960;
  long eval_every_steps = 480;
  int eval_episodes = 3;
  long checkpoint_every_steps = 480;
};

/// The small case5 PPO run of the end-to-end tests: 4 envs × 12 steps, a [16, 16] network, a
/// power-balance penalty; it trains in well under a second.
inline std::string tiny_case5_spec(const TinySpec& t = {}) {
  return "[experiment]\nname = \"" + t.name + "\"\nseed = " + std::to_string(t.seed) +
         "\n[env]\ncase = \"case5\"\nhorizon = 12\nreward_scale = 1e-4\n[vec]\nn_envs = 4\n"
         "[learner]\ntotal_steps = " +
         std::to_string(t.total_steps) +
         "\nrollout_length = 12\n\n[ppo]\nn_minibatches = 2\nhidden = [16, 16]\n[reward]\n"
         "penalty = { power_balance = 0.02 }\n[eval]\nevery_steps = " +
         std::to_string(t.eval_every_steps) + "\nn_episodes = " + std::to_string(t.eval_episodes) +
         "\n[output]\ncheckpoint_every_steps = " + std::to_string(t.checkpoint_every_steps) + "\n";
}

}  // namespace pz::test
