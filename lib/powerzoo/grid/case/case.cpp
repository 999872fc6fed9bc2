// Case: index finalization, loading and path resolution of MATPOWER cases, generator cost.
#include "powerzoo/grid/case/case.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"

namespace pz::grid {

// -----------------------------------------------------------------------------------------------
// Case
// -----------------------------------------------------------------------------------------------

int Case::bus_index(int id) const {
  for (size_t k = 0; k < bus.size(); ++k) {
    if (bus[k].id == id) return static_cast<int>(k);
  }
  throw core::ConfigError("case '" + name + "': expected a bus with id " + std::to_string(id) +
                          ", found none");
}

void Case::finalize() {
  std::unordered_map<int, int> pos;
  pos.reserve(bus.size());
  for (size_t k = 0; k < bus.size(); ++k) {
    if (!pos.emplace(bus[k].id, static_cast<int>(k)).second) {
      throw core::ConfigError("case '" + name + "': expected unique bus ids, found bus " +
                              std::to_string(bus[k].id) + " twice");
    }
  }
  auto look = [&](int id, const std::string& what, size_t row) {
    const auto it = pos.find(id);
    if (it == pos.end()) {
      throw core::ConfigError("case '" + name + "': expected " + what + " of row " +
                              std::to_string(row + 1) + " to be a bus id, found " +
                              std::to_string(id));
    }
    return it->second;
  };
  gen_bus_idx.resize(gen.size());
  for (size_t k = 0; k < gen.size(); ++k) gen_bus_idx[k] = look(gen[k].bus, "gen bus", k);
  branch_from_idx.resize(branch.size());
  branch_to_idx.resize(branch.size());
  for (size_t k = 0; k < branch.size(); ++k) {
    branch_from_idx[k] = look(branch[k].from, "branch from-bus", k);
    branch_to_idx[k] = look(branch[k].to, "branch to-bus", k);
  }
  ref_bus_idx = 0;
  for (size_t k = 0; k < bus.size(); ++k) {
    if (bus[k].type == 3) {
      ref_bus_idx = static_cast<int>(k);
      break;
    }
  }
}

Case load_case(const std::string& path) {
  if (!std::filesystem::is_directory(path)) core::expect_regular_file(path, "a MATPOWER case file");
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) {
    throw core::ConfigError("case file '" + path + "' not found");
  }
  // The largest MATPOWER cases are a few tens of MB; a bigger file is not a case (and is not
  // read into memory).
  constexpr std::uintmax_t kMaxCaseBytes = 256u << 20;
  std::error_code ec;
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxCaseBytes)
    throw core::ConfigError(path + ": expected a MATPOWER case of at most 256 MB, found " +
                            std::to_string(size >> 20) + " MB");
  std::ostringstream ss;
  ss << in.rdbuf();
  Case c = parse_case(ss.str(), path);
  c.source_path = path;
  return c;
}

std::vector<std::string> bundled_cases() {
  std::vector<std::string> names;
  const std::filesystem::path dir = std::filesystem::path(core::data_dir()) / "cases";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".m") names.push_back(e.path().stem());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string resolve_case_path(const std::string& name_or_path) {
  const bool user_path =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() >= 2 && name_or_path.compare(name_or_path.size() - 2, 2, ".m") == 0);
  if (user_path) {
    if (std::filesystem::is_directory(name_or_path))
      throw core::ConfigError("expected a MATPOWER .m file, found the directory '" + name_or_path +
                              "'");
    core::expect_regular_file(name_or_path, "a MATPOWER case file");
    if (!std::filesystem::is_regular_file(name_or_path)) {
      throw core::ConfigError("case file '" + name_or_path + "' not found");
    }
    return name_or_path;
  }
  const std::filesystem::path p =
      std::filesystem::path(core::data_dir()) / "cases" / (name_or_path + ".m");
  if (!std::filesystem::is_regular_file(p)) {
    std::string list;
    for (const auto& n : bundled_cases()) list += (list.empty() ? "" : ", ") + n;
    throw core::ConfigError(
        "case: expected a bundled case name (" +
        (list.empty() ? std::string("none found in ") + core::data_dir() : list) +
        ") or a path to a .m file, found '" + core::echo(name_or_path) + "'");
  }
  return p.string();
}

double gen_cost(const GenCost& cost, double pg_mw) {
  const auto& c = cost.coeffs;
  if (cost.model == 2) {
    double acc = 0;
    for (double ci : c) acc = acc * pg_mw + ci;  // Horner, highest order first
    return acc;
  }
  // Piecewise linear: points (x0,y0),(x1,y1),...
  const size_t n = c.size() / 2;
  if (n == 0) return 0;
  if (n == 1) return c[1];
  size_t seg = 0;  // segment k joins points k and k+1
  while (seg + 2 < n && pg_mw > c[2 * (seg + 1)]) ++seg;
  const double x0 = c[2 * seg], y0 = c[2 * seg + 1], x1 = c[2 * seg + 2], y1 = c[2 * seg + 3];
  const double slope = (y1 - y0) / (x1 - x0);
  return y0 + slope * (pg_mw - x0);
}

}  // namespace pz::grid
