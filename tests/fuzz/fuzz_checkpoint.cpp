// libFuzzer harness of checkpoint restore (make fuzz; see harness.hpp).
#include "harness.hpp"

PZ_FUZZ_ENTRY(checkpoint)
