// Deterministic evaluation of a policy on fixed, evenly spaced episodes of a split.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/rl/learner.hpp"
#include "powerzoo/vec/rollout_collector.hpp"

namespace pz::io {
class RunFile;
}

namespace pz::exp {

/// Per-step records of an evaluation, time-major over the K episodes (N = K): the same layout as a
/// recorded training collection.
using Trajectories = vec::CollectRecord;

/// Writes the datasets of a trajectory record under `group` ("trajectories/iid/step_0/"):
/// obs [T, N, obs_dim], action [T, N, act_dim], reward [T, N], costs [T, N, n_costs], terminated
/// and truncated [T, N] (uint8); for evaluations also final_obs [N, obs_dim], info/<name> [T, N]
/// per EnvSpec::trace_names and [T, N, size] per EnvSpec::trace_vectors. Throws core::RunError
/// on an HDF5 failure.
void write_trajectories(io::RunFile& out, const std::string& group, const Trajectories& t);

/// Writes a grid env's network (the bus_ and branch_ trace axes) as network/bus_id [n_bus],
/// network/branch_from_bus, branch_to_bus (bus ids) and branch_rate_mva [n_branch]; nothing for
/// an env without one. Throws core::RunError on an HDF5 failure.
void write_network(io::RunFile& out, const envs::NetworkView& net);

/// A policy for evaluation: writes actions [n, act_dim] for observations [n, obs_dim].
using PolicyFn = envs::PolicyFn;

/// Runs n_episodes episodes (episode k = k-th of n_episodes evenly spaced windows of the env's
/// split) to their end with the deterministic policy. Env Rng streams come from eval_seed, so
/// every evaluation sees the same episodes. Metrics (means over episodes unless noted):
/// return_mean/std (objective), shaped_return_mean/std (with penalty), episode_length_mean,
/// gen_cost_mean ($ per episode = Σ $/h · dt_hours), cost/<channel> (episode sum),
/// violation_rate/<channel> (fraction of steps with cost > 1e-6), feasibility_rate (fraction of
/// steps on which the env reports Info::is_safe, the reference's definition),
/// episode_feasibility_rate (episodes with no positive cost in any channel), and one metric per
/// EnvSpec::episode_sum_names entry (mean over episodes of the episode sum). For each q of
/// `percentiles` ([log] percentiles) also return_p<q> and cost_p<q>/<channel> over episodes.
std::map<std::string, double> evaluate(std::shared_ptr<const envs::Env> env, const PolicyFn& policy,
                                       int n_episodes, uint64_t eval_seed, double dt_hours,
                                       const std::vector<double>& penalty, core::ThreadPool& pool,
                                       Trajectories* traj = nullptr,
                                       const std::vector<double>& percentiles = {});

/// evaluate(), plus, if the env declares a reference_action, the same episodes under that constant
/// action and EnvSpec::reduction_names[j] = 100·(1 − policy/reference) for each named episode sum.
std::map<std::string, double> evaluate_with_reference(
    std::shared_ptr<const envs::Env> env, const PolicyFn& policy, int n_episodes,
    uint64_t eval_seed, double dt_hours, const std::vector<double>& penalty, core::ThreadPool& pool,
    Trajectories* traj = nullptr, const std::vector<double>& percentiles = {});

/// Throws core::RunError naming the first non-finite metric of an evaluation ("<what>: non-finite
/// metric return_mean = -inf"): every evaluation metric is finite for finite inputs, so a NaN or
/// Inf is a fault (an overflowing reward scale, a diverged policy), not a result to report.
void check_finite_metrics(const std::map<std::string, double>& metrics, const std::string& what);

/// PolicyFn of a learner's deterministic (mean) action.
PolicyFn deterministic_policy(rl::Learner& learner);

}  // namespace pz::exp
