// Shared check of [env] outage_status_obs: an env built with false (blind) and with true (seeing)
// steps identically; only the observation differs, by the status fields.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/envs/env.hpp"

namespace pz::test {

/// The observation without the fields whose name ends with one of `status` ("branch_status",
/// "gen_status", "component_status"; per agent "agent/branch_status" too).
inline std::vector<float> without_status(const envs::EnvSpec& sp, const std::vector<float>& obs) {
  std::vector<char> keep(obs.size(), 1);
  for (const auto& f : sp.obs_fields)
    for (const char* n : {"branch_status", "gen_status", "component_status"}) {
      const std::string suffix(n);
      if (f.name.size() >= suffix.size() &&
          f.name.compare(f.name.size() - suffix.size(), suffix.size(), suffix) == 0)
        for (int i = 0; i < f.slice.size; ++i) keep[f.slice.offset + i] = 0;
    }
  std::vector<float> out;
  for (size_t i = 0; i < obs.size(); ++i)
    if (keep[i]) out.push_back(obs[i]);
  return out;
}

/// Steps `blind` and `seeing` `steps` times from the same seed with the same actions
/// (a_j = 0.4·sin(j + t)): rewards, costs and traces equal, and the blind observation equals the
/// seeing one without its status fields, which the blind spec lacks. Returns the sum of the
/// seeing status fields' zeros (element-steps out observed), so a caller can require an outage.
inline int check_blind_steps_as_seeing(const envs::Env& blind, const envs::Env& seeing, int steps) {
  const envs::EnvSpec &b = blind.spec(), &s = seeing.spec();
  REQUIRE(b.act_dim == s.act_dim);
  REQUIRE(b.cost_names == s.cost_names);
  REQUIRE(b.obs_dim < s.obs_dim);
  CHECK(b.trace_vectors.size() == s.trace_vectors.size());
  auto sb = blind.make_state(), ss = seeing.make_state();
  core::Rng rb(17, 3), rs(17, 3);
  std::vector<float> ob(b.obs_dim), os(s.obs_dim), cb(b.cost_names.size()), cs(cb.size());
  std::vector<float> a(b.act_dim), tb, ts;
  blind.reset(*sb, rb, ob);
  seeing.reset(*ss, rs, os);
  int zeros = 0;
  for (int t = 0; t < steps; ++t) {
    CAPTURE(t);
    CHECK(ob == without_status(s, os));
    CHECK(without_status(b, ob).size() == ob.size());  // the blind spec has no status field
    // The status values are what the seeing obs has beyond the blind one: count its zeros.
    int zeros_all = 0, zeros_kept = 0;
    for (float v : os) zeros_all += v == 0.0f;
    for (float v : ob) zeros_kept += v == 0.0f;
    zeros += zeros_all - zeros_kept;
    for (size_t j = 0; j < a.size(); ++j)
      a[j] = static_cast<float>(0.4 * std::sin(static_cast<double>(j + t)));
    const envs::Step xb = blind.step(*sb, a, rb, ob, cb, nullptr);
    const envs::Step xs = seeing.step(*ss, a, rs, os, cs, nullptr);
    CHECK(xb.reward == xs.reward);
    CHECK(cb == cs);
    size_t n_trace = 0;
    for (const auto& v : b.trace_vectors) n_trace += static_cast<size_t>(v.size);
    tb.assign(n_trace, 0.0f);
    ts.assign(tb.size(), 0.0f);
    blind.write_trace(*sb, tb);
    seeing.write_trace(*ss, ts);
    CHECK(tb == ts);
    if (xb.terminated || xb.truncated) break;
  }
  return zeros;
}

}  // namespace pz::test
