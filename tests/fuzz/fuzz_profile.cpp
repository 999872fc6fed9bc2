// libFuzzer harness of the CSV profile loader (make fuzz; see harness.hpp).
#include "harness.hpp"

PZ_FUZZ_ENTRY(profile)
