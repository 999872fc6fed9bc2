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

}  // namespace pz::test
