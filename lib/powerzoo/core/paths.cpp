// Data directory lookup.
#include "powerzoo/core/paths.hpp"

#include <cstdlib>
#include <filesystem>

namespace pz::core {

std::string data_dir() {
  if (const char* env = std::getenv("POWERZOO_DATA"); env && *env) return env;
  const std::filesystem::path built = std::filesystem::path(PZ_SOURCE_DIR) / "data";
  if (std::filesystem::is_directory(built)) return built.string();
  return "data";
}

}  // namespace pz::core
