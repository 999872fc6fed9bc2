// Locating bundled data (cases, profiles) independent of the working directory.
#pragma once

#include <string>

namespace pz::core {

/// Bundled data directory: $POWERZOO_DATA if set, else <source tree>/data compiled in at build
/// time, else "data" relative to the working directory.
std::string data_dir();

}  // namespace pz::core
