// The fuzz harnesses' bodies (tests/fuzz/harness.hpp) over their seed corpora and over every
// input a fuzzing run found (tests/fuzz/regressions/<harness>/): each must hold its properties
// (bad input is a short, printable ConfigError; accepted input survives its use) in the normal
// suite, and under ASan + UBSan in make sanitize.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/harness.hpp"

namespace fs = std::filesystem;

namespace {

using Body = std::string (*)(const uint8_t*, size_t);

// Runs `body` on every file of tests/fuzz/{corpus,regressions}/<name> and on the files ending
// in `seed_ext` of the bundled `seed_dir` (a seed of the fuzzer too); returns how many.
int replay(const std::string& name, Body body, const std::string& seed_dir = "",
           const std::string& seed_ext = "") {
  int n = 0;
  const fs::path root(PZ_SOURCE_DIR);
  std::vector<fs::path> dirs = {root / "tests/fuzz/corpus" / name,
                                root / "tests/fuzz/regressions" / name};
  if (!seed_dir.empty()) dirs.push_back(root / seed_dir);
  for (const auto& dir : dirs) {
    if (!fs::is_directory(dir)) continue;
    const bool bundled = !seed_dir.empty() && dir == root / seed_dir;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
      if (bundled && e.path().extension() != seed_ext) continue;
      std::ifstream in(e.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), {});
      const std::string why = body(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      CHECK_MESSAGE(why.empty(), e.path().string() << ": " << why);
      ++n;
    }
  }
  return n;
}

}  // namespace

TEST_SUITE("fuzz_regressions") {
  TEST_CASE("MATPOWER reader and case builder") {
    CHECK(replay("matpower", pz::fuzz::one_matpower, "data/cases", ".m") >= 12);
  }
  TEST_CASE("spec reader, overrides, sweeps") { CHECK(replay("spec", pz::fuzz::one_spec) >= 15); }
  TEST_CASE("CSV profile loader") { CHECK(replay("profile", pz::fuzz::one_profile) >= 3); }
  TEST_CASE("checkpoint restore") { CHECK(replay("checkpoint", pz::fuzz::one_checkpoint) >= 10); }
}
