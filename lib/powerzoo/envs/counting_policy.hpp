// A baseline policy that counts its own decisions, and how `powerzoo baseline` reads the counts.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "powerzoo/envs/registry.hpp"

namespace pz::envs {

/// A policy that counts its own decisions (e.g. the steps where its optimization fell back),
/// held in a PolicyFn: `powerzoo baseline` reports policy_counts(fn) after each split as
/// policy/<name>.
struct CountingPolicy {
  PolicyFn act;
  std::shared_ptr<std::map<std::string, double>> counts;
  void operator()(const float* obs, int n, float* actions) const { act(obs, n, actions); }
};

/// The counts of a PolicyFn that holds a CountingPolicy (copies of a PolicyFn hold the same
/// one); empty for any other policy.
inline std::map<std::string, double> policy_counts(const PolicyFn& fn) {
  const auto* p = fn.target<CountingPolicy>();
  return p && p->counts ? *p->counts : std::map<std::string, double>{};
}

}  // namespace pz::envs
