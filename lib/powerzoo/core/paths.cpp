// Data directory lookup; creating output directories with a precise error.
#include "powerzoo/core/paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::core {

std::string data_dir() {
  if (const char* env = std::getenv("POWERZOO_DATA"); env && *env) return env;
  const std::filesystem::path built = std::filesystem::path(PZ_SOURCE_DIR) / "data";
  if (std::filesystem::is_directory(built)) return built.string();
  return "data";
}

void expect_regular_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows links: a link to a file is fine
  if (ec || !fs::exists(st) || fs::is_regular_file(st)) return;
  const char* found = fs::is_directory(st)        ? "a directory"
                      : fs::is_fifo(st)           ? "a FIFO (named pipe)"
                      : fs::is_character_file(st) ? "a character device"
                      : fs::is_block_file(st)     ? "a block device"
                      : fs::is_socket(st)         ? "a socket"
                                                  : "a special file";
  throw ConfigError(echo(path, 400) + ": expected " + what + " (a regular file), found " + found);
}

void create_output_dir(const std::string& dir, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  fs::create_directories(dir, ec);
  if (!ec && fs::is_directory(dir)) return;
  const std::string reason = ec ? ec.message() : "it is not a directory";
  // The nearest existing ancestor says why: a file where a directory must be, or a directory
  // that refuses new entries.
  fs::path p = fs::absolute(fs::path(dir), ec).lexically_normal();
  while (p.has_relative_path() && !fs::exists(p, ec)) p = p.parent_path();
  std::string why = reason;
  if (fs::exists(p) && !fs::is_directory(p))
    why = core::echo(p.string()) + " is a file, not a directory";
  else if (fs::exists(p))
    why = "cannot create a directory in " + core::echo(p.string()) + " (" + why + ")";
  throw ConfigError(what + " " + core::echo(dir) +
                    ": expected a directory that exists or can be created, found " + why);
}

}  // namespace pz::core
