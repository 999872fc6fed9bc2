// The current time in UTC as text, for run-directory names and the timestamps of run files,
// locks and sweep manifests.
#pragma once

#include <string>

namespace pz::core {

/// ISO 8601 UTC, e.g. 2026-12-01T22:41:05Z (run.h5 created_utc, run.lock, sweep.json).
inline constexpr const char* kUtcIso = "%Y-%m-%dT%H:%M:%SZ";
/// Sortable and path-safe, e.g. 20261201-224105 (the default run directory name).
inline constexpr const char* kUtcStamp = "%Y%m%d-%H%M%S";

/// The current time in UTC formatted by strftime `fmt` (at most 63 bytes of output).
std::string utc_now(const char* fmt = kUtcIso);

}  // namespace pz::core
