// The DSO task preset (`[env] task = "dso"`, also selected by the env id alone): case33bw with six
// FlexLoads, the frozen benchmark calibration, AEMO regional demand shapes as feeder profiles
// (PowerZooJax powerzoojax/tasks/dso.py and benchmarks/dso/configs/task.yaml; docs/tasks/dso.md,
// substitutions in docs/deviations.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/registry.hpp"

namespace pz::tasks {

/// Splits of the DSO task: AEMO market-time (UTC+10) days, every 4th day (day index ≡ 0 mod 4)
/// is `iid`, the rest `train`.
const std::vector<std::string>& dso_splits();

/// Builds the DSO env on `split`. The preset fixes case, profile, calibration, horizon 48 and
/// dt 0.5 h; [env] case/profile/load_scale/reward_scale are ignored, horizon/dt_hours must keep
/// their defaults. Throws core::ConfigError (naming the spec and key) for an unknown split or a
/// changed horizon/dt_hours.
std::shared_ptr<const envs::Env> make_dso_env(const envs::BuildContext& ctx);

/// One-line summary of the DSO demand data (file, regions, gap report, split sizes).
std::string describe_dso_data();

/// Names of the DSO baselines: no_control, tou, droop.
const std::vector<std::string>& dso_baseline_names();

/// The named DSO baseline as a PolicyFn over observations of `env` (a DSO DistGrid), or nullopt
/// for an unknown name. tou: [0.8, 0.5] per device at steps 16..20 of the day (read from the
/// sin/cos time features), 0 otherwise; droop: per device, with v the device bus voltage
/// recovered from the observation ((v−1)/0.1), curtail = clip((0.96−v)/0.04, 0, 1),
/// shift = clip((0.96−v)/0.06, 0, 0.5).
std::optional<envs::PolicyFn> dso_baseline(const std::string& name,
                                           std::shared_ptr<const envs::Env> env);

}  // namespace pz::tasks
