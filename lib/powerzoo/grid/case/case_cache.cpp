// Per-process cache of parsed MATPOWER cases.
#include "powerzoo/grid/case/case_cache.hpp"

#include <filesystem>

#include "powerzoo/core/cache.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::grid {

Case cached_case(const std::string& name) {
  static core::Cache<Case> cache;
  const std::string path = resolve_case_path(name);
  if (std::filesystem::is_directory(path))
    throw core::ConfigError("expected a MATPOWER .m file, found the directory '" + path + "'");
  return cache.get(path, [&] { return load_case(path); });
}

}  // namespace pz::grid
