// libFuzzer harness of the CSV profile loader (body and properties in harness.hpp; run by make
// fuzz).
#include <cstdio>
#include <cstdlib>

#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string why = pz::fuzz::one_profile(data, size);
  if (!why.empty()) {
    std::fprintf(stderr, "fuzz_profile: %s\n", why.c_str());
    std::abort();
  }
  return 0;
}
