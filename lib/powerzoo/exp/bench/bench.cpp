// Throughput measurements (speed goals live here, never in unit tests); the learner is timed
// through the rl::Learner interface.
#include "powerzoo/exp/bench/bench.hpp"

#include <algorithm>
#include <chrono>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/penalty.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/learners.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"
#include "powerzoo/rl/learner_registry.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::exp {
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::unique_ptr<vec::VectorEnv> make_bench_venv(const Spec& spec, int n_envs,
                                                core::ThreadPool& pool) {
  auto env = make_env(spec, spec.env.split);
  auto venv = std::make_unique<vec::VectorEnv>(
      envs::with_penalty(env, penalty_weights(spec, env->spec())), n_envs, 0, 0, pool);
  venv->reset_all();
  return venv;
}

std::vector<std::vector<float>> random_action_bank(int n_envs, int act_dim) {
  core::Rng rng(1, 1);
  std::vector<std::vector<float>> bank(8,
                                       std::vector<float>(static_cast<size_t>(n_envs) * act_dim));
  for (auto& a : bank)
    for (auto& x : a) x = static_cast<float>(2 * rng.uniform() - 1);
  return bank;
}

EnvBenchResult bench_env(const Spec& spec, int n_envs, int threads, double seconds) {
  core::ThreadPool pool(static_cast<size_t>(threads));
  const auto venv_ptr = make_bench_venv(spec, n_envs, pool);
  vec::VectorEnv& venv = *venv_ptr;
  const auto bank = random_action_bank(n_envs, venv.spec().act_dim);
  for (int i = 0; i < 20; ++i) venv.step_all(bank[i % 8].data());
  long long steps = 0;
  const auto t0 = Clock::now();
  double el = 0;
  for (int i = 0; el < seconds; ++i) {
    venv.step_all(bank[i % 8].data());
    steps += n_envs;
    if ((i & 15) == 0) el = seconds_since(t0);
  }
  el = seconds_since(t0);
  EnvBenchResult r;
  r.n_envs = n_envs;
  r.threads = static_cast<int>(pool.size());
  r.steps_per_sec = steps / el;
  r.us_per_step = 1e6 / r.steps_per_sec;
  return r;
}

namespace {

// One synthetic collection for `learner`: standard-normal observations and rewards, no episode
// ends, zero costs, an update() after every update_every() vector steps (timed into *update_secs,
// counted in *updates, *learned = whether the last one learned). Returns the seconds spent in
// collect_act.
double feed_synthetic(rl::Learner& learner, const envs::EnvSpec& sp, int N, core::Rng& rng,
                      double* update_secs, int* updates, bool* learned) {
  const size_t od = sp.obs_dim, k = sp.cost_names.size(), na = sp.n_agents();
  std::vector<float> obs(N * od), next(N * od), act(static_cast<size_t>(N) * sp.act_dim);
  std::vector<float> rew(N * na), costs(N * k, 0.0f);  // rewards [N, n_agents]
  std::vector<uint8_t> zeros(N, 0);
  for (auto& x : next) x = static_cast<float>(rng.normal());
  double act_secs = 0;
  for (int t = 0; t < learner.collect_steps(); ++t) {
    obs.swap(next);
    for (auto& x : next) x = static_cast<float>(rng.normal());
    for (auto& x : rew) x = static_cast<float>(rng.normal());
    const auto t0 = Clock::now();
    learner.collect_act(obs.data(), N, rng, act.data());
    act_secs += seconds_since(t0);
    core::StepView v;
    v.n = N, v.obs_dim = sp.obs_dim, v.act_dim = sp.act_dim, v.n_costs = static_cast<int>(k);
    v.n_agents = static_cast<int>(na);
    v.t = t, v.obs = obs.data(), v.actions = act.data(), v.reward = rew.data();
    v.shaped_reward = rew.data(), v.costs = costs.data(), v.terminated = zeros.data();
    v.truncated = zeros.data(), v.final_obs = next.data(), v.next_obs = next.data();
    learner.observe(v);
    if ((t + 1) % learner.update_every() == 0) {
      const auto t1 = Clock::now();
      *learned = !learner.update(rng).empty();
      *update_secs += seconds_since(t1);
      ++*updates;
    }
  }
  return act_secs;
}

}  // namespace

rl::LearnerBenchShape learner_bench_shape(const Spec& spec, const envs::EnvSpec& sp, int n_envs) {
  const rl::LearnerEntry& e = rl::learner_entry(spec.learner.algo);
  return e.bench ? e.bench(learner_context(spec, sp, n_envs)) : rl::LearnerBenchShape{};
}

LearnerBenchResult bench_learner(const Spec& spec, double seconds, int threads) {
  auto env = make_learner_env(spec, spec.env.split, true);
  const auto& sp = env->spec();
  const int N = spec.vec.n_envs;
  core::Rng rng(3, 3);
  core::ThreadPool pool(static_cast<size_t>(threads));
  const auto learner = make_spec_learner(spec, sp, N, rng, &pool);
  const int T = learner->collect_steps();
  // Warm-up (buffer allocation; an off-policy learner also fills its replay to learning_starts).
  double warm_secs = 0;
  int warm_updates = 0;
  bool learned = false;
  for (int k = 0; k < 100000 && (k == 0 || !learned); ++k)
    feed_synthetic(*learner, sp, N, rng, &warm_secs, &warm_updates, &learned);
  LearnerBenchResult r;
  int updates = 0;
  double update_secs = 0, act_secs = 0;
  while (update_secs < seconds || updates == 0)
    act_secs += feed_synthetic(*learner, sp, N, rng, &update_secs, &updates, &learned);
  const rl::LearnerBenchShape shape = learner_bench_shape(spec, sp, N);
  if (shape.counts_grad_steps) {
    r.grad_steps_per_sec = static_cast<double>(updates) * shape.grad_steps_per_update / update_secs;
    r.samples_per_sec = r.grad_steps_per_sec * shape.samples_per_grad_step;
  } else {
    r.samples_per_sec = static_cast<double>(updates) * learner->update_every() * N / update_secs;
  }
  r.gflops = r.samples_per_sec * 2.0 * shape.macs_per_sample / 1e9;
  r.threads = static_cast<int>(pool.size());
  r.act_us = 1e6 * act_secs / (static_cast<double>(updates) / (T / learner->update_every()) * T);
  return r;
}

// Median DC-OPF solve time (µs): a fresh solver per call (cold) and one kept solver re-solving
// loads that drift by ±2 % (warm, the env's use).
DcOpfBenchResult bench_dcopf(const std::string& name, int reps) {
  const grid::Case c = grid::load_case(grid::resolve_case_path(name));
  std::vector<double> pd(c.bus.size());
  for (size_t b = 0; b < pd.size(); ++b) pd[b] = c.bus[b].pd_mw;
  std::vector<double> cold, warm;
  for (int i = 0; i < reps; ++i) {
    grid::DcOpf fresh(c);
    const auto t0 = Clock::now();
    const auto r = fresh.solve(pd);
    cold.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (!r.ok())
      throw core::RunError("bench: " + name + ": DC-OPF solve not optimal (" + r.message + ")");
  }
  grid::DcOpf kept(c);
  kept.solve(pd);
  core::Rng rng(5, 5);
  std::vector<double> load(pd.size());
  for (int i = 0; i < reps; ++i) {
    const double f = 1.0 + 0.02 * (2 * rng.uniform() - 1);
    for (size_t b = 0; b < pd.size(); ++b) load[b] = pd[b] * f;
    const auto t0 = Clock::now();
    kept.solve(load);
    warm.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  return {name, median(cold), median(warm), reps};
}

}  // namespace pz::exp
