// The fuzz harnesses' bodies (tests/fuzz/harness.hpp) over their seed corpora and over every
// input a fuzzing run found (tests/fuzz/regressions/<harness>/): each must hold its properties
// (bad input is a short, printable ConfigError; accepted input survives its use) in the normal
// suite, and under ASan + UBSan in make sanitize.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "fuzz/harness.hpp"

namespace fs = std::filesystem;

namespace {

using Body = std::string (*)(const uint8_t*, size_t);

// Runs `body` on every file of tests/fuzz/{corpus,regressions}/<name>; returns how many.
int replay(const std::string& name, Body body) {
  int n = 0;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path dir = fs::path(PZ_SOURCE_DIR) / "tests/fuzz" / kind / name;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().filename() == "README.md") continue;
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
    CHECK(replay("matpower", pz::fuzz::one_matpower) >= 6);
  }
  TEST_CASE("spec reader, overrides, sweeps") { CHECK(replay("spec", pz::fuzz::one_spec) >= 15); }
  TEST_CASE("CSV profile loader") { CHECK(replay("profile", pz::fuzz::one_profile) >= 3); }
  TEST_CASE("checkpoint restore") { CHECK(replay("checkpoint", pz::fuzz::one_checkpoint) >= 10); }
}
