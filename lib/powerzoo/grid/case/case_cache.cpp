// Per-process cache of parsed MATPOWER cases.
#include "powerzoo/grid/case/case_cache.hpp"

#include <filesystem>
#include <map>
#include <mutex>

#include "powerzoo/core/error.hpp"

namespace pz::grid {

Case cached_case(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, Case> cache;
  const std::string path = resolve_case_path(name);
  if (std::filesystem::is_directory(path))
    throw core::ConfigError("expected a MATPOWER .m file, found the directory '" + path + "'");
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, load_case(path)).first;
  return it->second;
}

}  // namespace pz::grid
