// libFuzzer harness of the MATPOWER reader and case builder (make fuzz; see harness.hpp).
#include "harness.hpp"

PZ_FUZZ_ENTRY(matpower)
