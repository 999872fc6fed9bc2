// Shared check of the outage status in the evaluation traces (docs/outages.md, "Traces"): row t
// of info/<kind>_status is the status step t was solved with, while the observation after step t
// shows the status of step t + 1. Used by every env's outage tests, next to a check of that
// row's physics (flow 0 on the out branch, unserved load).
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/envs/env.hpp"

namespace pz::test {

/// What an env wrote after each step t of run_traced: the trace row (Env::write_trace), the
/// observation and the costs.
struct TracedRun {
  std::vector<std::vector<float>> trace, obs, costs;
};

/// Resets `env` (seed 1) and steps it `steps` times with the action `a` (empty: a_j = 0.3·sin(j +
/// 1)).
inline TracedRun run_traced(const envs::Env& env, int steps, std::vector<float> a = {}) {
  const envs::EnvSpec& sp = env.spec();
  int width = 0;
  for (const auto& v : sp.trace_vectors) width += v.size;
  auto st = env.make_state();
  core::Rng rng(1, 0);
  std::vector<float> obs(sp.obs_dim), costs(sp.cost_names.size()), act(sp.act_dim);
  for (size_t j = 0; j < act.size(); ++j) act[j] = static_cast<float>(0.3 * std::sin(j + 1.0));
  if (!a.empty()) act = std::move(a);
  env.reset(*st, rng, obs);
  TracedRun r;
  for (int t = 0; t < steps; ++t) {
    env.step(*st, act, rng, obs, costs, nullptr);
    std::vector<float> row(width);
    env.write_trace(*st, row);
    r.trace.push_back(row);
    r.obs.push_back(obs);
    r.costs.push_back(costs);
  }
  return r;
}

/// Entry i of trace vector `name` in a row of run_traced.
inline float trace_value(const envs::EnvSpec& sp, const std::vector<float>& row,
                         const std::string& name, int i) {
  int o = 0;
  for (const auto& v : sp.trace_vectors) {
    if (v.name == name) return row.at(o + i);
    o += v.size;
  }
  FAIL("no trace vector " << name);
  return 0;
}

/// Cost channel `name` in a costs row of run_traced.
inline float cost_value(const envs::EnvSpec& sp, const std::vector<float>& costs,
                        const std::string& name) {
  for (size_t k = 0; k < sp.cost_names.size(); ++k)
    if (sp.cost_names[k] == name) return costs.at(k);
  FAIL("no cost channel " << name);
  return 0;
}

/// Checks the status timing of element i of trace `status`, out exactly for the steps
/// out_from .. out_to − 1: trace row t shows it out iff t is one of them; the observation field
/// `obs_status` (skipped when empty) after step t iff t + 1 is.
inline void check_status_rows(const envs::Env& env, const TracedRun& r, const std::string& status,
                              int i, int out_from, int out_to, const std::string& obs_status) {
  const envs::EnvSpec& sp = env.spec();
  for (size_t t = 0; t < r.trace.size(); ++t) {
    CAPTURE(t);
    const int ti = static_cast<int>(t);
    const bool out_now = ti >= out_from && ti < out_to;
    const bool out_next = ti + 1 >= out_from && ti + 1 < out_to;
    CHECK(trace_value(sp, r.trace[t], status, i) == (out_now ? 0.0f : 1.0f));
    if (!obs_status.empty())
      CHECK(r.obs[t][sp.obs_field(obs_status).offset + i] == (out_next ? 0.0f : 1.0f));
  }
}

}  // namespace pz::test
