// A custom loop against the installed library: the DSO task's env, its droop rule policy, 8 envs
// stepped by vec::VectorEnv, and the Safe-RL cost view (each constraint channel summed on its own,
// never folded into the reward). Built out of tree with find_package(powerzoo).
#include <cstdio>
#include <vector>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/vec/vector_env.hpp"

int main() {
  const pz::exp::Spec spec = pz::exp::parse_spec("[env]\ntask = \"dso\"\n", "example");
  const auto env = pz::exp::make_env(spec, "iid");
  const auto policy = pz::envs::make_baseline(pz::exp::env_entry(spec), "droop", env);
  const auto& sp = env->spec();
  const int n = 8;
  pz::core::ThreadPool pool(2);
  pz::vec::VectorEnv venv(env, n, /*seed=*/0, /*stream_base=*/0, pool);
  venv.reset_all();
  std::vector<float> actions(static_cast<size_t>(n) * sp.act_dim);
  std::vector<double> cost_sum(sp.cost_names.size(), 0.0);
  double ret = 0;
  int episodes = 0;
  for (int t = 0; t < 2 * sp.horizon; ++t) {
    policy(venv.obs.data(), n, actions.data());
    venv.step_all(actions.data());
    for (const auto& [i, ep] : venv.finished()) {
      ret += ep.ret;
      for (size_t k = 0; k < cost_sum.size(); ++k) cost_sum[k] += ep.cost_sum[k];
      ++episodes;
    }
  }
  std::printf("%s, droop policy: %d episodes, mean return %.6g\n", sp.id.c_str(), episodes,
              ret / episodes);
  for (size_t k = 0; k < cost_sum.size(); ++k)
    std::printf("  cost %s per episode: %.6g\n", sp.cost_names[k].c_str(), cost_sum[k] / episodes);
  return episodes == 2 * n ? 0 : 1;
}
