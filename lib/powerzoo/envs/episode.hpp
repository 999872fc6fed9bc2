// Per-env mechanics shared by every env, written once: the episode's [env] keys (horizon, dt,
// load and reward scale), the data keys (case, profile), the choice of the episode window, the
// time-of-day features and the clock part of save_state.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/core/params.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/envs/env.hpp"

namespace pz::envs {

/// [env] horizon (steps per episode, 48), dt_hours (step length in h, (0, 24], 0.5), load_scale
/// (multiplies every load, > 0, 1.0) and reward_scale (reward = −reward_scale · cost, > 0, 0.01).
std::vector<core::ParamDef> episode_params();

/// [env] case (bundled MATPOWER case name or path to a .m file) and profile (bundled demand
/// profile name or path to a CSV), with the given defaults.
std::vector<core::ParamDef> data_params(const std::string& default_case,
                                        const std::string& default_profile = "gb_demand");

/// A training bank: `n` windows evenly spaced over `starts` (window i = starts[i·size/n]), the
/// reference's bank of uniform training windows (PowerZooJax's reset_bank sampling). n is clamped
/// to [1, starts.size()]; empty if `starts` is.
std::vector<int64_t> train_bank(const std::vector<int64_t>& starts, int n);

/// The window an episode starts at: opt.episode >= 0 picks the opt.episode-th of opt.n_episodes
/// evenly spaced candidates (evaluation); otherwise one uniform draw rng.below(n) (training).
/// Returns starts[i]; 0 (and no draw) if `starts` is empty.
int64_t choose_episode_start(const std::vector<int64_t>& starts, core::Rng& rng,
                             const ResetOptions& opt);

/// Time-of-day features of step t with step length dt_hours: out[0] = sin, out[1] = cos of
/// 2π·t / steps_per_day, steps_per_day = max(1, round(24 / dt_hours)). Writes 2 floats.
void time_of_day_features(int t, double dt_hours, float* out);

/// The episode clock every env state starts its save_state with: step t and window start.
void save_clock(int t, int64_t start, std::vector<double>& out);
/// Reads the clock written by save_clock from in[0], in[1] (the caller checks the size). Throws
/// core::ConfigError unless both are non-negative integers (a damaged checkpoint).
void load_clock(std::span<const double> in, int& t, int64_t& start);
/// An integer field of a saved state: `x` if it is an integer in [lo, hi], else core::ConfigError
/// naming `what` (converting NaN or 1e300 to int is undefined behaviour; an index out of its
/// range would be read out of bounds).
int state_int(double x, int lo, int hi, const char* what);

/// Concatenation helper for parameter lists.
std::vector<core::ParamDef> concat(std::vector<core::ParamDef> a,
                                   const std::vector<core::ParamDef>& b);

}  // namespace pz::envs
