// Locating bundled data (cases, profiles) independent of the working directory, and creating
// the output directories a user names.
#pragma once

#include <string>

namespace pz::core {

/// Bundled data directory: $POWERZOO_DATA if set, else <source tree>/data compiled in at build
/// time, else "data" relative to the working directory.
std::string data_dir();

/// What is at `path`, for messages, without following a link: "a file", "a directory", "a FIFO
/// (named pipe)", "a character device", "a block device", "a socket", "a symbolic link",
/// "nothing".
std::string file_kind(const std::string& path);

/// Throws core::ConfigError if `path` exists and is not a regular file (a FIFO blocked the
/// reader forever, /dev/zero grew without end, a directory read as empty): "<path>: expected
/// <what> (a regular file), found a FIFO". A missing path passes (its reader says "not found").
void expect_regular_file(const std::string& path, const std::string& what);

/// Creates `dir` and its parents (an existing directory is fine). Throws core::ConfigError naming
/// `what` (e.g. "--out"), the directory and the first ancestor that is a file or cannot hold a new
/// directory (/proc, a read-only mount), so an unusable output path is bad input (exit 2).
void create_output_dir(const std::string& dir, const std::string& what);

}  // namespace pz::core
