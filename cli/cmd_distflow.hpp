// `powerzoo grid distflow CASE [--json]`: radial AC power flow (DistFlow backward/forward sweep).
#pragma once

#include <string>
#include <vector>

namespace pz::cli {

/// Entry point for `powerzoo grid distflow`. `args` are the arguments after `grid` or after
/// `grid distflow` (a leading "distflow" positional is accepted and skipped). Returns the exit
/// code: 0 converged, 1 not converged. Throws UsageError / boost::program_options::error for bad
/// usage and core::ConfigError for a missing, malformed, meshed or disconnected case (exit 2 in
/// main's handler).
int grid_distflow_main(const std::vector<std::string>& args);

}  // namespace pz::cli
