// core::git_sha is the commit of the source tree the binary was built from, read at build time:
// a rebuild after a commit must record the new commit without a re-configure (regression: it was
// read when CMake configured, and kept after `git pull && make build`).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "powerzoo/core/build_info.hpp"

namespace {

/// `git rev-parse --short=12 HEAD` of the source tree, "" when git or the checkout is missing.
std::string source_head() {
  const std::string cmd = std::string("git -C '") + pz::core::source_dir() +
                          "' rev-parse --short=12 HEAD 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return "";
  char buf[64] = {0};
  std::string out = fgets(buf, sizeof buf, f) != nullptr ? buf : "";
  pclose(f);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

TEST_SUITE("core_build_info") {
  TEST_CASE("git_sha_is_the_built_commit: the source tree's HEAD, or unknown outside git") {
    const std::string head = source_head();
    if (head.empty()) {
      CHECK(std::string(pz::core::git_sha()) == "unknown");
    } else {
      CHECK(std::string(pz::core::git_sha()) == head);
    }
  }
}
