// Error types: configuration/input errors (exit code 2) versus run failures (exit code 1).
#pragma once

#include <stdexcept>
#include <string>

namespace pz::core {

/// Bad user input (spec, case file, CSV, command line). The message names the file, key or line,
/// what was expected and what was found. The CLI maps it to exit code 2.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& what) : std::runtime_error(what) {}
};

/// A run that failed after it started (I/O failure, non-finite values). Exit code 1.
class RunError : public std::runtime_error {
 public:
  explicit RunError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace pz::core
