// The bench scoreboard: SGEMM peak at the learner's shapes, env/learner/train rates per task.
#include "powerzoo/exp/bench/bench_scoreboard.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/bench/bench.hpp"
#include "powerzoo/exp/spec/learners.hpp"

namespace pz::exp {
using Clock = std::chrono::steady_clock;

double sgemm_peak_gflops(int m, int n, int k, double seconds) {
  core::Rng rng(9, 9);
  std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n),
      c(static_cast<size_t>(m) * n);
  for (auto& x : a) x = static_cast<float>(rng.uniform() - 0.5);
  for (auto& x : b) x = static_cast<float>(rng.uniform() - 0.5);
  auto call = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n,
                0.0f, c.data(), n);
  };
  for (int i = 0; i < 20; ++i) call();
  long long calls = 0;
  const auto t0 = Clock::now();
  double el = 0;
  while (el < seconds) {
    for (int i = 0; i < 16; ++i) call();
    calls += 16;
    el = seconds_since(t0);
  }
  return 2.0 * m * n * k * static_cast<double>(calls) / el / 1e9;
}

GemmShape learner_gemm_shape(const Spec& spec) {
  GemmShape g;
  const auto env = make_learner_env(spec, spec.env.split, true);
  const rl::LearnerBenchShape shape = learner_bench_shape(spec, env->spec(), spec.vec.n_envs);
  g.m = shape.gemm_m;
  g.n = shape.gemm_n;
  g.k = g.n;
  return g;
}

ScoreRow score_spec(const std::string& spec_path, double seconds) {
  const Spec spec = load_spec(spec_path);
  ScoreRow r;
  r.task = spec.experiment.name;
  r.spec_path = spec_path;
  r.n_envs = spec.vec.n_envs;
  // 1- and 2-thread measurements alternate over kRounds rounds and each rate is the median: on a
  // shared machine a single back-to-back pair differs by ±5 % from noise alone.
  constexpr int kRounds = 3;
  std::vector<double> e1, e2, s1, s2, g1, g2;
  for (int k = 0; k < kRounds; ++k) {
    e1.push_back(bench_env(spec, r.n_envs, 1, seconds).steps_per_sec);
    e2.push_back(bench_env(spec, r.n_envs, 2, seconds).steps_per_sec);
    const auto l1 = bench_learner(spec, seconds, 1);
    const auto l2 = bench_learner(spec, seconds, 2);
    s1.push_back(l1.samples_per_sec), g1.push_back(l1.gflops);
    s2.push_back(l2.samples_per_sec), g2.push_back(l2.gflops);
  }
  r.env_sps_1 = median(e1), r.env_sps_2 = median(e2);
  r.learner_sps_1 = median(s1), r.learner_sps_2 = median(s2);
  r.learner_gflops_1 = median(g1), r.learner_gflops_2 = median(g2);
  const GemmShape g = learner_gemm_shape(spec);
  r.sgemm_peak = sgemm_peak_gflops(g.m, g.n, g.k, seconds);
  // The training loop's steady rate (time_training): the warm-up dropped, then at least three
  // iterations and `seconds` of them, the median of their rates.
  r.train_2 = time_training(spec, 2, {3, seconds, 1000});
  r.train_sps_2 = r.train_2.steps_per_sec();
  return r;
}

std::vector<std::string> scoreboard_specs() {
  // Each env and task preset lists its own bench specs (EnvEntry::bench_specs), so a new one
  // joins the scoreboard from its own files; rows are labelled by the spec's experiment name.
  std::vector<std::string> out;
  for (const auto& list : {envs::registered_envs(), envs::registered_tasks()})
    for (const envs::EnvEntry* e : list)
      out.insert(out.end(), e->bench_specs.begin(), e->bench_specs.end());
  return out;
}

std::string scoreboard_table(const std::vector<ScoreRow>& rows) {
  std::string out;
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "%-23s %5s | %10s %10s %5s | %10s %10s %5s | %7s %7s %6s | %10s %-11s\n", "task",
                "envs", "env 1t/s", "env 2t/s", "2/1", "learn 1t", "learn 2t", "2/1", "GF 1t",
                "peak", "% peak", "train 2t/s", "env/act/upd/other %");
  out += buf;
  for (const auto& r : rows) {
    const PhaseShares sh = r.train_2.shares();
    std::snprintf(buf, sizeof buf,
                  "%-23s %5d | %10.0f %10.0f %5.2f | %10.0f %10.0f %5.2f | %7.1f %7.1f %5.0f%% | "
                  "%10.0f %.0f/%.0f/%.0f/%.0f\n",
                  r.task.c_str(), r.n_envs, r.env_sps_1, r.env_sps_2, r.env_sps_2 / r.env_sps_1,
                  r.learner_sps_1, r.learner_sps_2, r.learner_sps_2 / r.learner_sps_1,
                  r.learner_gflops_1, r.sgemm_peak, 100.0 * r.learner_gflops_1 / r.sgemm_peak,
                  r.train_sps_2, 100 * sh.env, 100 * sh.act, 100 * sh.update, 100 * sh.other);
    out += buf;
  }
  return out;
}

std::string scoreboard_json(const std::vector<ScoreRow>& rows,
                            const std::vector<DcOpfBenchResult>& dcopf,
                            const std::vector<OutageBenchResult>& outages,
                            const std::string& blas_kernel) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : rows)
    a.push_back({{"task", r.task},
                 {"spec", r.spec_path},
                 {"n_envs", r.n_envs},
                 {"env_steps_per_sec_1_thread", r.env_sps_1},
                 {"env_steps_per_sec_2_threads", r.env_sps_2},
                 {"learner_samples_per_sec_1_thread", r.learner_sps_1},
                 {"learner_samples_per_sec_2_threads", r.learner_sps_2},
                 {"learner_gflops_1_thread", r.learner_gflops_1},
                 {"learner_gflops_2_threads", r.learner_gflops_2},
                 {"sgemm_peak_gflops_1_core", r.sgemm_peak},
                 {"train_steps_per_sec_2_threads", r.train_sps_2},
                 {"train_2_threads", training_json(r.train_2)}});
  nlohmann::json d = nlohmann::json::array();
  for (const auto& r : dcopf)
    d.push_back(
        {{"case", r.case_name}, {"cold_us", r.cold_us}, {"warm_us", r.warm_us}, {"reps", r.reps}});
  const nlohmann::json out = {{"blas_kernel", blas_kernel},
                              {"tasks", a},
                              {"dcopf", d},
                              {"outages", nlohmann::json::parse(outage_bench_json(outages))}};
  return out.dump(1) + "\n";
}

}  // namespace pz::exp
