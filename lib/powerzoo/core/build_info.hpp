// What this binary was built from: version, git commit and source tree. Defined in one translation
// unit only, so that a new commit or another checkout recompiles that file and nothing else (with
// the values as compile definitions of every file, each commit missed the compiler cache).
#pragma once

namespace pz::core {

/// The project version (CMake's PROJECT_VERSION), e.g. "0.9.0".
const char* version();
/// The short (12-digit) git commit the binary was built from (read at every build), or "unknown"
/// outside a git checkout.
const char* git_sha();
/// The source tree the binary was built from (bundled data, scripts and specs are found there).
const char* source_dir();

}  // namespace pz::core
