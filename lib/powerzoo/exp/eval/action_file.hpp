// Fixed action sequences for `powerzoo rollout`: read from a CSV or an HDF5 file and checked
// against the env they are replayed on.
#pragma once

#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"

namespace pz::exp {

/// Actions [T, N, act_dim], row-major; N = 1 for a CSV or a 2-D dataset (one env's sequence).
struct ActionSequence {
  int T = 0, N = 0, act_dim = 0;
  std::vector<float> data;
};

/// Reads `arg`: FILE.csv (a header with one column per action name of `sp`, in any order, then
/// one row per step of one env), FILE.h5 (the dataset `actions`) or FILE.h5:/path/to/dataset
/// (e.g. a run file's trajectories/iid/step_<n>/action), a dataset [T, N, act_dim] or
/// [T, act_dim]. Throws core::ConfigError, naming the file, row and column, for a missing or
/// unknown column, a wrong width, fewer than sp.horizon rows (one per step of an episode), a
/// cell that is not a number and a non-finite value.
ActionSequence read_action_file(const std::string& arg, const envs::EnvSpec& sp);

}  // namespace pz::exp
