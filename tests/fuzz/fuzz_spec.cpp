// libFuzzer harness of the spec reader, overrides and sweeps (make fuzz; see harness.hpp).
#include "harness.hpp"

PZ_FUZZ_ENTRY(spec)
