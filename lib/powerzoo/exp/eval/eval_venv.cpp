// The evaluation protocol's vector env.
#include "powerzoo/exp/eval/eval_venv.hpp"

#include "powerzoo/envs/penalty.hpp"

namespace pz::exp {

std::unique_ptr<vec::VectorEnv> make_eval_venv(std::shared_ptr<const envs::Env> env, int n_episodes,
                                               uint64_t eval_seed,
                                               const std::vector<double>& penalty,
                                               core::ThreadPool& pool) {
  auto venv = std::make_unique<vec::VectorEnv>(envs::with_penalty(std::move(env), penalty),
                                               n_episodes, eval_seed, kEvalStreamBase, pool);
  venv->set_auto_reset(false);
  reset_eval_venv(*venv, eval_seed);
  return venv;
}

void reset_eval_venv(vec::VectorEnv& venv, uint64_t eval_seed) {
  for (int k = 0; k < venv.n_envs(); ++k)
    venv.rng(k) = core::Rng(eval_seed, kEvalStreamBase + static_cast<uint64_t>(k));
  venv.reset_all(envs::ResetOptions{0, venv.n_envs()});
}

}  // namespace pz::exp
