// Shared env fixtures of the tests: trans_grid on case5 with the bundled GB demand.
#pragma once

#include <memory>

#include "powerzoo/data/profile.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::test {

/// TransGrid on MATPOWER case5 driven by gb_demand, train-split windows of `horizon` steps.
inline std::shared_ptr<const envs::Env> gb_case5(int horizon) {
  envs::TransGridParams p;
  p.grid_case = grid::load_case(grid::resolve_case_path("case5"));
  const auto prof = data::load_profile("gb_demand");
  p.profile = prof.values;
  p.profile_mean = data::split_mean(prof, data::split_by_name("train"));
  p.episode_starts = data::episode_starts(prof, data::split_by_name("train"), horizon);
  p.horizon = horizon;
  return std::make_shared<envs::TransGrid>(std::move(p));
}

}  // namespace pz::test
