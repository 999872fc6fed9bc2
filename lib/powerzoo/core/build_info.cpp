// Build facts, from compile definitions that only this file gets (CMakeLists.txt).
#include "powerzoo/core/build_info.hpp"

namespace pz::core {

const char* version() { return PZ_VERSION; }
const char* git_sha() { return PZ_GIT_SHA; }
const char* source_dir() { return PZ_SOURCE_DIR; }

}  // namespace pz::core
