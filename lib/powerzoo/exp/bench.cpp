// Throughput measurements (speed goals live here, never in unit tests).
#include "powerzoo/exp/bench.hpp"

#include <chrono>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/exp/build.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::exp {
namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
}  // namespace

EnvBenchResult bench_env(const Spec& spec, int n_envs, int threads, double seconds) {
  auto env = make_env(spec, spec.env.split);
  core::ThreadPool pool(static_cast<size_t>(threads));
  vec::VectorEnv venv(env, n_envs, 0, 0, pool, penalty_weights(spec, env->spec()));
  venv.reset_all();
  const int ad = env->spec().act_dim;
  core::Rng rng(1, 1);
  // A bank of random action batches, generated outside the timed loop.
  std::vector<std::vector<float>> bank(8, std::vector<float>(static_cast<size_t>(n_envs) * ad));
  for (auto& a : bank)
    for (auto& x : a) x = static_cast<float>(2 * rng.uniform() - 1);
  for (int i = 0; i < 20; ++i) venv.step_all(bank[i % 8].data());
  long long steps = 0;
  const auto t0 = Clock::now();
  double el = 0;
  for (int i = 0; el < seconds; ++i) {
    venv.step_all(bank[i % 8].data());
    steps += n_envs;
    if ((i & 15) == 0) el = since(t0);
  }
  el = since(t0);
  EnvBenchResult r;
  r.n_envs = n_envs;
  r.threads = static_cast<int>(pool.size());
  r.steps_per_sec = steps / el;
  r.us_per_step = 1e6 / r.steps_per_sec;
  return r;
}

LearnerBenchResult bench_learner(const Spec& spec, double seconds) {
  auto env = make_env(spec, spec.env.split);
  const auto& sp = env->spec();
  const rl::PpoConfig& cfg = spec.ppo;
  const int N = spec.vec.n_envs, T = cfg.rollout_length;
  core::Rng rng(3, 3);
  rl::PpoLearner learner(sp.obs_dim, sp.act_dim, cfg, rng);
  rl::Rollout ro;
  ro.resize(T, N, sp.obs_dim, sp.act_dim);
  for (auto& x : ro.obs) x = static_cast<float>(rng.normal());
  for (auto& x : ro.next_obs) x = static_cast<float>(rng.normal());
  for (auto& x : ro.final_obs) x = static_cast<float>(rng.normal());
  for (auto& x : ro.rewards) x = static_cast<float>(rng.normal());
  {
    std::vector<float> env_act(static_cast<size_t>(N) * sp.act_dim);
    for (int t = 0; t < T; ++t)
      learner.act(&ro.obs[static_cast<size_t>(t) * N * sp.obs_dim], N, &rng, env_act.data(),
                  &ro.logp[t * N], &ro.values[t * N],
                  &ro.actions[static_cast<size_t>(t) * N * sp.act_dim]);
  }
  learner.update(ro, rng);  // warm-up (buffer allocation)
  LearnerBenchResult r;
  int updates = 0;
  auto t0 = Clock::now();
  while (since(t0) < seconds || updates == 0) {
    learner.update(ro, rng);
    ++updates;
  }
  const double el = since(t0);
  r.samples_per_sec = static_cast<double>(updates) * T * N / el;
  // GEMM flops per sample and gradient step: forward 2·Σ in·out, backward 4·Σ in·out, for the
  // actor and the critic; each sample is seen n_epochs times.
  auto mlp_macs = [&](int in, int out) {
    double m = 0;
    int prev = in;
    for (int h : cfg.hidden) {
      m += static_cast<double>(prev) * h;
      prev = h;
    }
    return m + static_cast<double>(prev) * out;
  };
  const double macs = mlp_macs(sp.obs_dim, sp.act_dim) + mlp_macs(sp.obs_dim, 1);
  r.gflops = r.samples_per_sec * cfg.n_epochs * 6.0 * macs / 1e9;
  std::vector<float> a(static_cast<size_t>(N) * sp.act_dim), lp(N), v(N);
  int acts = 0;
  t0 = Clock::now();
  while (since(t0) < 0.2 || acts == 0) {
    learner.act(ro.obs.data(), N, &rng, a.data(), lp.data(), v.data());
    ++acts;
  }
  r.act_us = 1e6 * since(t0) / acts;
  return r;
}

}  // namespace pz::exp
