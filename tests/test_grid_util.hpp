// Bundled cases and MATPOWER golden files for the grid tests.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "powerzoo/grid/case/case.hpp"

namespace pz::test {

/// A case of data/cases by name ("case118").
inline grid::Case bundled(const std::string& name) {
  return grid::load_case(grid::resolve_case_path(name));
}

/// tests/data/matpower of the checkout (its README.md says how each golden was produced).
inline std::string golden_dir() { return std::string(PZ_SOURCE_DIR) + "/tests/data/matpower"; }

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

/// golden_dir()/file; fails (not skips) if it is missing: the goldens are required.
inline nlohmann::json golden(const std::string& file) {
  const std::string path = golden_dir() + "/" + file;
  REQUIRE_MESSAGE(
      std::filesystem::exists(path),
      "MATPOWER golden file missing: " << path << " (the golden directory is required)");
  return read_json(path);
}

}  // namespace pz::test
