// Run checkpoints: learner state, every Rng stream and the counters of the training loop.
#pragma once

#include <cstdint>
#include <string>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/rl/ppo.hpp"

namespace pz::vec {
class VectorEnv;
}

namespace pz::exp {

/// Stream ids: env i of the training VectorEnv uses (seed, kEnvStreamBase + i).
inline constexpr uint64_t kEnvStreamBase = 1ull << 32;

/// The learner-side random streams of a run, each derived from the master seed.
struct RunStreams {
  explicit RunStreams(uint64_t seed) : init(seed, 1), action(seed, 2), shuffle(seed, 3) {}
  core::Rng init;     ///< parameter initialization
  core::Rng action;   ///< rollout action sampling
  core::Rng shuffle;  ///< minibatch permutations
};

void put_rng(core::StateDict& sd, const std::string& name, const core::Rng& rng);
core::Rng get_rng(const core::StateDict& sd, const std::string& name);

/// Writes ckpt (atomically): learner (parameters, Adam moments, normalizer), Rng streams
/// ("rng/action", "rng/shuffle", "rng/env/<i>"), counters ("counters/global_step",
/// "counters/iteration") and the resolved spec.
void write_run_checkpoint(const std::string& path, const rl::PpoLearner& learner,
                          const RunStreams& rngs, vec::VectorEnv& venv, long long global_step,
                          int64_t iteration, const std::string& resolved_toml);

}  // namespace pz::exp
