// The DERs task (PowerZooJax powerzoojax/tasks/ders.py and benchmarks/ders/configs;
// docs/tasks/ders.md): case141 with 4 batteries, 4 PV inverters and 4 flexible loads as twelve
// agents sharing one team reward, AEMO demand days paired with synthetic GB PV days
// (tasks/ders_data), five splits, baselines.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "powerzoo/core/params.hpp"
#include "powerzoo/envs/dist_grid.hpp"
#include "powerzoo/envs/dist_grid_marl.hpp"
#include "powerzoo/envs/registry.hpp"

namespace pz::tasks {

/// train, iid, voltage_tightening (iid, band [0.96, 1.04]), pv_penetration_shift (iid, PV
/// capacity and S rating ×2), load_stress (iid, loads ×1.15).
const std::vector<std::string>& ders_splits();

/// The [env] keys of the task (devices, bus lists, device ratings, voltage_penalty,
/// train_windows, neighbours; horizon and dt_hours fixed at 48 and 0.5).
std::vector<core::ParamDef> ders_params();

/// The task's devices from its [env] keys, on case `c` (bus positions 0-based). Throws
/// core::ConfigError naming the key (through ctx.at) for an unknown device type, a bus that is
/// not in the case or is the slack, a per-device list of the wrong length, an S rating below the
/// P rating, a SOC window outside [0, 1] or an initial SOC outside it, and other bad ratings.
struct DersDevices {
  std::vector<envs::DeviceType> order;
  std::vector<devices::BatteryDevice> batteries;
  std::vector<devices::RenewableDevice> renewables;
  std::vector<devices::FlexLoadDevice> flexloads;
};
DersDevices ders_devices(const envs::BuildContext& ctx, const grid::Case& c);

/// Builds the DERs env (a DistGridMarl on case141) for ctx.split. Throws core::ConfigError
/// naming the key for bad device keys (ders_devices), an unknown split or a bad data file.
std::shared_ptr<const envs::Env> make_ders_env(const envs::BuildContext& ctx);

/// no_control and volt_droop (as PowerZooJax's tasks/ders.py), reading each agent's
/// "<agent>/own_voltage" field (v = 1 + 0.1·obs):
///   no_control: battery [0, 0], renewable [+1, 0] (no curtailment), flexload [0, 0];
///   volt_droop: battery [0, q], renewable [v > 1.03 ? −0.5 : +1, q] with
///   q = clip(10·(1 − v), −1, 1); flexload [v < 0.97 ? 0.5 : 0, 0].
/// nullopt for another name or env.
std::optional<envs::PolicyFn> ders_baseline(const std::string& name,
                                            std::shared_ptr<const envs::Env> env);

/// One-line summary of the task's data (files, day counts, peaks).
std::string describe_ders_data();

}  // namespace pz::tasks
