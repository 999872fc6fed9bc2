// Per-process cache of loaded demand profiles.
#pragma once

#include <string>

#include "powerzoo/data/profile.hpp"

namespace pz::data {

/// load_profile(name_or_path), loaded once per process. Throws core::ConfigError for a directory
/// or a bad file (see load_profile).
const Profile& cached_profile(const std::string& name_or_path);

/// One line for `powerzoo envs`: "profile PATH [COLUMN]: <load report>" of the cached profile.
std::string describe_profile(const std::string& name_or_path);

}  // namespace pz::data
