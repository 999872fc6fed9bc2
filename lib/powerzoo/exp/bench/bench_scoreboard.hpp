// `powerzoo bench` scoreboard: per task, env, learner and end-to-end rates next to the machine's
// own single-core SGEMM peak at the learner's shapes.
#pragma once

#include <string>
#include <vector>

#include "powerzoo/exp/bench/bench.hpp"
#include "powerzoo/exp/bench/bench_outages.hpp"
#include "powerzoo/exp/bench/bench_training.hpp"
#include "powerzoo/exp/spec/spec.hpp"

namespace pz::exp {

/// Single-core cblas_sgemm rate (GFLOP/s, 2·m·n·k per call) for C[m, n] = A[m, k]·B[k, n],
/// timed for about `seconds` after a warm-up. OpenBLAS runs on one thread (the process setting).
double sgemm_peak_gflops(int m, int n, int k, double seconds);

/// The SGEMM shape of the spec's widest hidden layer at its minibatch size: m = T·N / minibatches
/// rows (SAC: batch_size), n = k = the widest hidden width (the learner's dominant GEMM).
struct GemmShape {
  int m = 0, n = 0, k = 0;
};
GemmShape learner_gemm_shape(const Spec& spec);

/// One scoreboard row (all rates per second; ratio = 2 threads / 1 thread).
struct ScoreRow {
  std::string task, spec_path;  ///< task: the spec's experiment name
  int n_envs = 0;
  double env_sps_1 = 0, env_sps_2 = 0;
  double learner_sps_1 = 0, learner_sps_2 = 0;
  double learner_gflops_1 = 0, learner_gflops_2 = 0;
  double sgemm_peak = 0;   ///< GFLOP/s at this task's learner shape, one core
  double train_sps_2 = 0;  ///< = train_2.steps_per_sec()
  TrainingTiming train_2;  ///< the training loop on 2 threads (time_training)
};

/// The scoreboard row of one spec, labelled by its experiment name (`seconds` per measurement).
ScoreRow score_spec(const std::string& spec_path, double seconds);

/// The bundled specs the scoreboard runs (the registered envs' then task presets' bench_specs),
/// relative to the source dir.
std::vector<std::string> scoreboard_specs();

/// Rows as a fixed-width table, and as JSON: {"blas_kernel", "tasks": [objects with the ScoreRow
/// fields, "train_2_threads": training_json(train_2)], "dcopf": [{"case", "cold_us", "warm_us",
/// "reps"}], "outages": outage_bench_json's rows}.
std::string scoreboard_table(const std::vector<ScoreRow>& rows);
std::string scoreboard_json(const std::vector<ScoreRow>& rows,
                            const std::vector<DcOpfBenchResult>& dcopf,
                            const std::vector<OutageBenchResult>& outages,
                            const std::string& blas_kernel);

}  // namespace pz::exp
