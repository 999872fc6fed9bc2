// Data directory lookup; creating output directories with a precise error.
#include "powerzoo/core/paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "powerzoo/core/build_info.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::core {

std::string data_dir() {
  if (const char* env = std::getenv("POWERZOO_DATA"); env && *env) return env;
  const std::filesystem::path built = std::filesystem::path(core::source_dir()) / "data";
  if (std::filesystem::is_directory(built)) return built.string();
  return "data";
}

namespace {
std::string kind_of_status(const std::filesystem::file_status& st) {
  namespace fs = std::filesystem;
  if (!fs::exists(st)) return "nothing";
  if (fs::is_regular_file(st)) return "a file";
  if (fs::is_directory(st)) return "a directory";
  if (fs::is_fifo(st)) return "a FIFO (named pipe)";
  if (fs::is_character_file(st)) return "a character device";
  if (fs::is_block_file(st)) return "a block device";
  if (fs::is_socket(st)) return "a socket";
  if (fs::is_symlink(st)) return "a symbolic link";
  return "a special file";
}
}  // namespace

std::string file_kind(const std::string& path) {
  std::error_code ec;
  return kind_of_status(std::filesystem::symlink_status(path, ec));
}

void expect_regular_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows links: a link to a file is fine
  if (ec || !fs::exists(st) || fs::is_regular_file(st)) return;
  throw ConfigError(echo(path, 400) + ": expected " + what + " (a regular file), found " +
                    kind_of_status(st));
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
