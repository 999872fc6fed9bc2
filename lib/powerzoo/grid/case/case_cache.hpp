// Per-process cache of parsed MATPOWER cases (envs built many times share one parse).
#pragma once

#include <string>

#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// The case `name_or_path` (bundled name or .m path, see resolve_case_path), parsed once per
/// process and copied out. Throws core::ConfigError for a directory, a missing or bad file.
Case cached_case(const std::string& name_or_path);

}  // namespace pz::grid
