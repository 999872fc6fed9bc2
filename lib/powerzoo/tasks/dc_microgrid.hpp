// The data-centre microgrid task preset (`[env] task = "dc_microgrid"`): the benchmark's
// case_overrides, reward shaping and diesel autobalance, workload traces, GB price and solar of
// 2025, day-disjoint train / iid splits and six OOD splits (PowerZooJax's
// powerzoojax/tasks/dc_microgrid.py and benchmarks/dc_microgrid/configs;
// docs/tasks/dc_microgrid.md, differences in docs/deviations.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "powerzoo/envs/dc_microgrid.hpp"
#include "powerzoo/envs/registry.hpp"

namespace pz::tasks {

/// Splits: train, iid, cooling_stress (T_out +5 °C), renewable_drought (solar ×0.2),
/// workload_swap (Azure trace), workload_shock (Alibaba trace), dg_derating (diesel ×0.6),
/// sla_tighten (both deadline slacks 1.2), n1_component (one random component out per episode
/// for 72 steps, as [env] outage_n1 = "component", outage_n1_steps = 72). Days of 2025 from 00:00
/// UTC: day d ≡ 0 (mod 4) is iid (92 days), the rest train (273 days); the OOD splits use the iid
/// days.
const std::vector<std::string>& dcmg_splits();

/// Day indices (0 = 2025-01-01) of a split.
std::vector<int> dcmg_days(const std::string& split);

/// The benchmark's parameters for `split` from the task's [env] keys (workload,
/// train_deadline_slack, ft_deadline_slack, battery_soc_min/max/init, dg_autobalance,
/// reward_shaping, calendar). calendar = "reference" rebuilds the reference's windows instead of
/// the 2025 days: starts at every step s0 < 288·365 − 288 (evaluation episode k of n starts at
/// ⌊k·(288·365 − 288)/n⌋ as the reference's), the price series read from its first row
/// (2023-07-05), train = iid, and the workload OOD traces read from their first row. Throws
/// core::ConfigError naming the key (or the data file and line) for an unknown split, a SOC window
/// outside [0, 1], soc_min ≥ soc_max, soc_init outside the window, or a bad workload trace.
envs::DcMicrogridParams dcmg_params(const envs::BuildContext& ctx);

/// The outage keys into p.outages / p.outage_random (called by dcmg_params): outages (read with
/// the component names), outage_rate, outage_duration_steps, outage_elements, outage_n1 and
/// outage_n1_steps; the n1_component split sets the N-1 outage (72 steps unless the spec sets
/// outage_n1 = "component" with its own outage_n1_steps). Throws core::ConfigError naming the key
/// (and the scenario file and line) for a bad scenario file or outage_n1_steps past the horizon.
void dcmg_outages(const envs::BuildContext& ctx, envs::DcMicrogridParams& p);

/// One-line summary of the task's data (files, normalizations, split sizes).
std::string describe_dcmg_data(const core::ParamTable& params);

/// The named baseline (no_control, max_renewable, rule_based) for a DcMicrogrid env, or nullopt.
/// The step k of the day comes from the time_of_day features (episodes start at midnight).
/// max_renewable: [0.5, 0.5, 0.5, b, 0], b = −1 for k in [72, 144), +1 for k ≥ 240 or k < 72,
/// 0 otherwise. rule_based: k in [72, 144): [1, 0.5, 0, 0, g]; k < 72: [0, 0, 0, −1, g];
/// otherwise [0, 0, 0, k < 240 ? 0.5 : −1, g], g = 1 if the previous step's cost_power_deficit
/// exceeded 0.05. The policy recovers that cost from consecutive observations (row i of one call
/// continues row i of the previous call, as evaluation calls it): load, PV and diesel output from
/// the load, net_load and dg_margin fields, the battery's power from the change of SOC; a row at
/// k = 0 starts with g = 0.
std::optional<envs::PolicyFn> dcmg_baseline(const std::string& name,
                                            std::shared_ptr<const envs::Env> env);

}  // namespace pz::tasks
