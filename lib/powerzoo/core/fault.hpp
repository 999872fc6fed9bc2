// Fault injection for the crash tests (tests/faults): kill -9 at a chosen point of the code.
#pragma once

namespace pz::core {

/// With the environment variable POWERZOO_FAULT_INJECT="<site>:<n>", the n-th time (1-based) the
/// process passes fault_point(<site>) it sends itself SIGKILL, as `kill -9` would, at a moment a
/// timer rarely hits: "checkpoint" (halfway through writing a checkpoint's temporary file),
/// "publish" (a run.h5 copy written, not yet renamed), "run_file" (a metric row half appended),
/// "eval" (inside an evaluation), "resume" (a checkpoint restored, the run file not rebuilt).
/// Without the variable (always, outside those tests) it costs one branch on a static.
void fault_point(const char* site);

}  // namespace pz::core
