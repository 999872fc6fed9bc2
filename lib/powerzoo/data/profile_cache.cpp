// Per-process cache of loaded demand profiles.
#include "powerzoo/data/profile_cache.hpp"

#include <filesystem>
#include <map>
#include <mutex>

#include "powerzoo/core/error.hpp"

namespace pz::data {

const Profile& cached_profile(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, Profile> cache;
  if (std::filesystem::is_directory(name))
    throw core::ConfigError("expected a CSV file, found the directory '" + name + "'");
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, load_profile(name)).first;
  return it->second;
}

std::string describe_profile(const std::string& name) {
  const Profile& prof = cached_profile(name);
  return "profile " + prof.path + " [" + prof.column + "]: " + prof.report.summary();
}

}  // namespace pz::data
