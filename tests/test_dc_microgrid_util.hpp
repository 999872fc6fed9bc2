// Fixtures shared by the DC microgrid env tests (plain and under outages): the reference
// factory's island with flat inputs, one step with its outputs, and a traced quantity's index.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/envs/dc_microgrid.hpp"

namespace pz::test {

/// The reference factory's island, with a flat 0.5 inference fraction, a constant PV capacity
/// factor `cf` and a constant price ($/MWh): every number of a step can be computed by hand.
inline envs::DcMicrogridParams flat(double cf, double price) {
  using Vec = std::vector<double>;
  envs::DcMicrogridParams p;
  p.cpu = std::make_shared<const Vec>(Vec{0.5});
  p.solar = std::make_shared<const Vec>(Vec{cf});
  p.price = std::make_shared<const Vec>(Vec{price});
  return p;
}

/// What one step gives: the observation [obs_dim], the costs [3], the info and the step.
struct Stepped {
  std::vector<float> obs, costs = std::vector<float>(3);
  envs::Info info;
  envs::Step step;
};

inline Stepped step(const envs::Env& env, envs::State& s, core::Rng& rng, std::vector<float> a) {
  Stepped r;
  r.obs.resize(static_cast<size_t>(env.spec().obs_dim));
  r.step = env.step(s, a, rng, r.obs, r.costs, &r.info);
  return r;
}

/// Index of a traced quantity in Info::trace.
inline int tr(const envs::Env& env, const std::string& name) {
  const auto& n = env.spec().trace_names;
  const auto it = std::find(n.begin(), n.end(), name);
  REQUIRE(it != n.end());
  return static_cast<int>(it - n.begin());
}

}  // namespace pz::test
