// StateDict: named arrays that make up a checkpoint (parameters, optimizer moments, Rng states).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pz::core {

/// Flat, named, typed arrays. Names are '/'-separated paths ("actor/l0/w", "adam/m/actor/l0/w",
/// "rng/env/3"); the checkpoint writer maps each to an HDF5 dataset of the same path.
struct StateDict {
  std::map<std::string, std::vector<float>> f32;
  std::map<std::string, std::vector<double>> f64;
  std::map<std::string, std::vector<int64_t>> i64;
  std::map<std::string, std::string> str;
};

/// The message for an entry a loader needs but does not find in `sd` under the expected type
/// ("float32", "float64", "int64" or "string"): "checkpoint: missing 'name'", or, when the name
/// holds another type (a dataset rewritten as float64), "checkpoint: 'name' is float64, expected
/// float32".
std::string absent_entry(const StateDict& sd, const std::string& name, const char* expected_type);

}  // namespace pz::core
