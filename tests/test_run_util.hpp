// Shared helpers of the tests that compare run files: dataset listing and timing columns.
#pragma once

#include <string>
#include <vector>

#include "powerzoo/io/hdf5.hpp"

namespace pz::test {

/// Every dataset path below `group` of an HDF5 file (recursing into nested groups such as losses/).
inline std::vector<std::string> datasets(const std::string& file, const std::string& group) {
  std::vector<std::string> out;
  for (const auto& name : pz::io::list_group(file, group)) {
    const std::string p = group + "/" + name;
    const auto kids = pz::io::list_group(file, p);
    if (kids.empty()) {
      out.push_back(p);
    } else {
      for (const auto& d : datasets(file, p)) out.push_back(d);
    }
  }
  return out;
}

/// Columns that measure the machine (wall time, throughput), excluded from bytewise comparisons.
inline bool timing_column(const std::string& p) {
  return p.find("wall_time") != std::string::npos || p.find("throughput/") != std::string::npos;
}

}  // namespace pz::test
