// Build facts, from compile definitions that only this file gets and from the commit the build
// step writes into generated/pz_git_sha.inc (CMakeLists.txt, cmake/git_sha.cmake).
#include "powerzoo/core/build_info.hpp"

#include "pz_git_sha.inc"  // PZ_GIT_SHA, in the build directory

namespace pz::core {

const char* version() { return PZ_VERSION; }
const char* git_sha() { return PZ_GIT_SHA; }
const char* source_dir() { return PZ_SOURCE_DIR; }

}  // namespace pz::core
