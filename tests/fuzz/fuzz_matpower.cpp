// libFuzzer harness of the MATPOWER reader and case builder (body and properties in harness.hpp;
// run by make fuzz).
#include <cstdio>
#include <cstdlib>

#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string why = pz::fuzz::one_matpower(data, size);
  if (!why.empty()) {
    std::fprintf(stderr, "fuzz_matpower: %s\n", why.c_str());
    std::abort();
  }
  return 0;
}
