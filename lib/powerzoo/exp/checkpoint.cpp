// Run checkpoint assembly.
#include "powerzoo/exp/checkpoint.hpp"

#include <cstring>

#include "powerzoo/core/error.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::exp {

void put_rng(core::StateDict& sd, const std::string& name, const core::Rng& rng) {
  const auto s = rng.state();
  std::vector<int64_t> v(4);
  std::memcpy(v.data(), s.data(), sizeof(uint64_t) * 4);
  sd.i64[name] = v;
}

core::Rng get_rng(const core::StateDict& sd, const std::string& name) {
  auto it = sd.i64.find(name);
  if (it == sd.i64.end() || it->second.size() != 4)
    throw core::ConfigError("checkpoint: missing random stream '" + name + "'");
  std::array<uint64_t, 4> s;
  std::memcpy(s.data(), it->second.data(), sizeof(uint64_t) * 4);
  core::Rng r;
  r.set_state(s);
  return r;
}

void write_run_checkpoint(const std::string& path, const rl::PpoLearner& learner,
                          const RunStreams& rngs, vec::VectorEnv& venv, long long global_step,
                          int64_t iteration, const std::string& resolved_toml) {
  core::StateDict sd;
  learner.save(sd);
  put_rng(sd, "rng/action", rngs.action);
  put_rng(sd, "rng/shuffle", rngs.shuffle);
  for (int i = 0; i < venv.n_envs(); ++i) put_rng(sd, "rng/env/" + std::to_string(i), venv.rng(i));
  sd.i64["counters/global_step"] = {global_step};
  sd.i64["counters/iteration"] = {iteration};
  io::write_checkpoint(path, sd, resolved_toml);
}

}  // namespace pz::exp
