// Reading a whole numeric HDF5 dataset of any rank (action sequences of `powerzoo rollout`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pz::io {

/// A dataset's shape and its values converted to double, row-major.
struct ArrayF64 {
  std::vector<int64_t> shape;
  std::vector<double> data;
};

/// Reads dataset `path` of `file`. Throws core::ConfigError naming the file and the dataset for a
/// missing or unreadable file, a missing dataset or a non-numeric one (its type is named).
ArrayF64 read_array(const std::string& file, const std::string& path);

}  // namespace pz::io
