// libFuzzer harness of the TOML spec reader, key=value overrides and sweep expansion (body and
// properties in harness.hpp; run by make fuzz).
#include <cstdio>
#include <cstdlib>

#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string why = pz::fuzz::one_spec(data, size);
  if (!why.empty()) {
    std::fprintf(stderr, "fuzz_spec: %s\n", why.c_str());
    std::abort();
  }
  return 0;
}
