// Default (unsupported) state serialization of the Env contract.
#include "powerzoo/envs/env.hpp"

#include "powerzoo/core/error.hpp"

namespace pz::envs {

void Env::save_state(const State&, std::vector<double>&) const {
  throw core::RunError("env " + spec().id + " does not support saving its state in checkpoints");
}

size_t Env::load_state(State&, std::span<const double>) const {
  throw core::ConfigError("env " + spec().id + " does not support restoring its state");
}

}  // namespace pz::envs
