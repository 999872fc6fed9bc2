// Per-process cache of loaded demand profiles.
#include "powerzoo/data/profile_cache.hpp"

#include <filesystem>

#include "powerzoo/core/cache.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::data {

const Profile& cached_profile(const std::string& name) {
  static core::Cache<Profile> cache;
  if (std::filesystem::is_directory(name))
    throw core::ConfigError("expected a CSV file, found the directory '" + name + "'");
  return cache.get(name, [&] { return load_profile(name); });
}

std::string describe_profile(const std::string& name) {
  const Profile& prof = cached_profile(name);
  return "profile " + prof.path + " [" + prof.column + "]: " + prof.report.summary();
}

}  // namespace pz::data
