// Which evaluations keep their trajectories in run.h5, and how many episodes of each
// ([output] trajectory_evals, trajectory_episodes; docs/design.md, "Run-file size").
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "powerzoo/vec/rollout_collector.hpp"

namespace pz::exp {

/// Global steps of the evaluations whose trajectories a run keeps after the evaluations of
/// `eval_rows` (the /metrics/eval rows so far, oldest first, each with global_step and the first
/// split's shaped_return_mean). "all": every one. "first_best_last": the first, the best (the
/// earliest of the highest shaped_return_mean: the evaluation ckpt/best.h5 was written at) and
/// the latest. A pure function of the rows, so a resumed run, whose checkpoint restores the rows,
/// keeps the same set as an uninterrupted one.
std::set<long long> kept_trajectory_steps(
    const std::vector<std::map<std::string, double>>& eval_rows, const std::string& policy);

/// The first `episodes` episodes (columns) of a time-major record [T, N, ...]; all of them when
/// `episodes` is 0 or at least N.
vec::CollectRecord first_episodes(const vec::CollectRecord& r, long long episodes);

}  // namespace pz::exp
