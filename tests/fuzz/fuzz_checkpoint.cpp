// libFuzzer harness of the checkpoint restore (learner, Rng streams, env states, counters, history)
// (body and properties in harness.hpp; run by make fuzz).
#include <cstdio>
#include <cstdlib>

#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string why = pz::fuzz::one_checkpoint(data, size);
  if (!why.empty()) {
    std::fprintf(stderr, "fuzz_checkpoint: %s\n", why.c_str());
    std::abort();
  }
  return 0;
}

// The four runs are built once, before the first input (a few seconds).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  pz::fuzz::runs();
  return 0;
}
