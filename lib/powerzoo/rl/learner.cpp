// Learner factory: names → factories, filled by each learner family's registration hook.
#include "powerzoo/rl/learner.hpp"

#include <map>
#include <mutex>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::rl {

// Registration hooks, one per learner family, each defined in that family's own .cpp. Called here
// (rather than from static initializers) so a static library never drops a learner's object file
// and the order of registration is fixed.
void register_ppo_learners();   // ppo_learner.cpp: ppo, ppo_lagrangian, saute_ppo
void register_ippo_learners();  // ippo.cpp: ippo, ippo_lagrangian
void register_sac_learner();    // sac.cpp: sac

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, LearnerFactory> factories;
};

Registry& registry() {
  static Registry r;
  return r;
}

// Runs the built-in hooks once; the caller holds no lock (hooks call register_learner).
void ensure_builtins() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_ppo_learners();
    register_ippo_learners();
    register_sac_learner();
  });
}

}  // namespace

std::string algo_name(Algo algo) {
  switch (algo) {
    case Algo::kPpo:
      return "ppo";
    case Algo::kPpoLagrangian:
      return "ppo_lagrangian";
    case Algo::kSautePpo:
      return "saute_ppo";
    case Algo::kIppo:
      return "ippo";
    case Algo::kIppoLagrangian:
      return "ippo_lagrangian";
    case Algo::kSac:
      return "sac";
  }
  return "ppo";
}

void register_learner(const std::string& name, LearnerFactory factory) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.factories.emplace(name, std::move(factory)).second)
    throw core::ConfigError("learner '" + name + "' is registered twice");
}

std::unique_ptr<Learner> make_learner(const std::string& name, const LearnerContext& ctx,
                                      core::Rng& init_rng) {
  ensure_builtins();
  LearnerFactory f;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(name);
    if (it == r.factories.end()) {
      std::string known;
      for (const auto& [n, _] : r.factories) known += (known.empty() ? "" : ", ") + n;
      throw core::ConfigError("learner: expected one of " + known + ", found '" + core::echo(name) +
                              "'");
    }
    f = it->second;
  }
  return f(ctx, init_rng);
}

std::vector<std::string> learner_names() {
  ensure_builtins();
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [n, _] : r.factories) out.push_back(n);
  return out;
}

}  // namespace pz::rl
