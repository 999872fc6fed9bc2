// The columns of a train row (/metrics/train, progress.csv) from one iteration's collection.
#pragma once

#include <map>
#include <string>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/rl/learner.hpp"
#include "powerzoo/vec/rollout_collector.hpp"

namespace pz::exp {

/// Env-side columns of a train row from one collection of T·N transitions: rollout/reward_mean,
/// rollout/cost_<channel>, episode_return and episode_shaped_return (NaN when no episode ended).
void add_rollout_metrics(const vec::CollectStats& st, const envs::EnvSpec& esp, int N,
                         std::map<std::string, double>& m);

/// The step, time and throughput columns of a train row into `m` (global_step, wall_time,
/// throughput/train_sps and env_sps, and the iteration's seconds in the env, acting and the
/// learner's updates: throughput/env_seconds, act_seconds, update_seconds), then the rollout's,
/// the [log] percentiles and weight statistics; returns the row as recorded (the [log] levels'
/// columns).
std::map<std::string, double> add_step_metrics(const vec::CollectStats& st,
                                               const envs::EnvSpec& esp, int N, int T,
                                               long long steps, double wall, double iter_seconds,
                                               const LogSection& log, const rl::Learner& learner,
                                               std::map<std::string, double>& m);

}  // namespace pz::exp
