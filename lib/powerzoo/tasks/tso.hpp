// TSO task (PowerZooJax powerzoojax/tasks/tso.py and benchmarks/tso/configs/task.yaml;
// docs/tasks/tso.md): unit commitment on case118 with GB demand net of synthetic wind/solar shapes,
// synthetic 8° line ratings, and its baselines.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/envs/unit_commitment.hpp"

namespace pz::tasks {

/// Reads `<case>_unit_commitment.csv` (data::read_unit_commitment_table: one row per gen of `c`
/// in order) and converts it with step length dt_hours (as PowerZooJax's make_uc_params): ramps ×
/// p_max × dt (MW per step), no-load cost × dt ($ per step), min up/down ≥ 1 step, |keep_time|
/// clipped to 1000. Throws core::ConfigError naming file:line (the table's errors, a bus_id that is
/// not the gen's bus, more or fewer rows than gens).
std::vector<envs::UcUnit> load_uc_units(const std::string& path, const grid::Case& c,
                                        double dt_hours);

/// If no in-service branch of `c` has a rating, sets RATE_A = base_mva·deg2rad(8°)/|x| (1e6 for
/// |x| ≤ 1e-9), as the reference's TSO factory does; then multiplies every rating by `scale`.
void apply_tso_line_ratings(grid::Case& c, double scale);

/// The unit-commitment env of the spec (task "tso" or id "unit_commitment") on `split`:
/// train, iid, load_stress (iid, load ×1.15) or line_tightening (iid, ratings ×0.85).
std::shared_ptr<const envs::Env> make_tso_env(const envs::BuildContext& ctx);

/// TSO baselines: "all_on" (commit every unit, dispatch 0) and "merit_order" (commit units in
/// ascending mc_b until load·(1+reserve) is covered), "scopf" (tso_scopf.hpp). nullopt for
/// another name or env.
std::optional<envs::PolicyFn> tso_baseline(const std::string& name,
                                           std::shared_ptr<const envs::Env> env);

}  // namespace pz::tasks
