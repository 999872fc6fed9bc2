// TSO task (reference tasks-benchmarks.md §1.1, envs-grid.md §7.6): unit commitment on case118
// with GB demand net of synthetic wind/solar shapes, synthetic 8° line ratings, and its baselines.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/envs/unit_commitment.hpp"

namespace pz::tasks {

/// Reads `<case>_unit_commitment.csv` (columns by header name: bus_id, mc_a, mc_b, mc_c, p_max,
/// p_min, ramp_up, ramp_down, min_up_time, min_down_time, init_state, keep_time,
/// init_start_up_cost, init_no_load_cost), one row per gen of `c` in order, converted with step
/// length dt_hours (reference §7.1). Throws core::ConfigError naming file:line.
std::vector<envs::UcUnit> load_uc_units(const std::string& path, const grid::Case& c,
                                        double dt_hours);

/// If no in-service branch of `c` has a rating, sets RATE_A = base_mva·deg2rad(8°)/|x| (1e6 for
/// |x| ≤ 1e-9), as the reference's TSO factory does; then multiplies every rating by `scale`.
void apply_tso_line_ratings(grid::Case& c, double scale);

/// The reference's synthetic shapes at hour t_h: gross, wind, solar (envs-grid.md §7.6).
double tso_synthetic_gross(double t_h);
double tso_synthetic_wind(double t_h);
double tso_synthetic_solar(double t_h);
/// Net-load factor clip(gross − 0.7·wind − 0.5·solar, 0.05, 1).
double tso_net(double gross_norm, double t_h);

/// The unit-commitment env of the spec (task "tso" or id "unit_commitment") on `split`:
/// train, iid, load_stress (iid, load ×1.15) or line_tightening (iid, ratings ×0.85).
std::shared_ptr<const envs::Env> make_tso_env(const envs::BuildContext& ctx);

/// TSO baselines: "all_on" (commit every unit, dispatch 0) and "merit_order" (commit units in
/// ascending mc_b until load·(1+reserve) is covered). nullopt for another name or env.
std::optional<envs::PolicyFn> tso_baseline(const std::string& name,
                                           std::shared_ptr<const envs::Env> env);

}  // namespace pz::tasks
