// exp/bench/bench_benchmarks and `powerzoo bench --benchmarks`: a row per task's benchmark spec,
// PowerZooJax's rates from the task presets beside ours, the table and JSON on a tiny budget.
// No timed asserts: rates > 0, shares summing to 1, the anchors equal to the presets' data.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/bench/bench_benchmarks.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

const std::string kBin = PZ_BINARY;

// The JSON document on the output's stdout (after the stderr progress lines sh() merges in).
nlohmann::json json_of(const std::string& out) {
  const size_t at = out.find("{\n");
  REQUIRE_MESSAGE(at != std::string::npos, out);
  return nlohmann::json::parse(out.substr(at));
}

}  // namespace

TEST_SUITE("exp_bench_benchmarks") {
  TEST_CASE("a row per benchmark spec of the results, with its task's published rates") {
    std::set<std::string> names;
    for (const auto& rel : exp::benchmark_spec_paths()) {
      const auto r = exp::benchmark_row(std::string(PZ_SOURCE_DIR) + "/" + rel);
      CAPTURE(r.name);
      names.insert(r.name);
      const envs::EnvEntry* task = envs::find_task(r.task);
      REQUIRE(task != nullptr);
      CHECK(r.reference.gpu_steps_per_sec == task->reference_rates.gpu_steps_per_sec);
      CHECK(r.reference.cpu64_steps_per_sec == task->reference_rates.cpu64_steps_per_sec);
      CHECK(r.reference.gpu_steps_per_sec > 0);
      CHECK(r.reference.cpu64_steps_per_sec > 0);
      CHECK(r.steps_per_iteration % r.n_envs == 0);
      CHECK(r.timings.empty());
    }
    CHECK(names == std::set<std::string>{"tso_ppo", "tso_safe", "dso_ppo", "dso_safe", "dso_saute",
                                         "dso_sac", "gencos_ippo", "ders_ippo", "ders_ippo_rs",
                                         "ders_ippo_lagrangian", "dcmg_ppo", "dcmg_sac"});
  }

  TEST_CASE("the table and the Markdown put our rate and split beside the published ones") {
    exp::BenchmarkRow r;
    r.name = "dso_ppo", r.algo = "ppo", r.n_envs = 128, r.steps_per_iteration = 128 * 48;
    r.reference = {94000, 34000};
    exp::TrainingTiming t;
    t.threads = 2;
    t.iteration_rates = {17000, 16000, 18000};
    t.steps = 3 * 6144, t.seconds = 2;
    t.env_seconds = 1, t.act_seconds = 0.2, t.update_seconds = 0.6;
    r.timings = {t};
    const std::string md = exp::benchmark_markdown({r});
    CHECK(md.find("| `dso_ppo` | ppo | 128 × 48 | 17.0k | 50/10/30/10 | 94.0k | 34.0k | 0.18× | "
                  "0.50× |") != std::string::npos);
    CHECK(md.find("ours, 2 threads (steps/s)") != std::string::npos);
    const std::string table = exp::benchmark_table({r});
    CHECK(table.find("17000 /s") != std::string::npos);
    CHECK(table.find("50/10/30/10") != std::string::npos);
  }

  TEST_CASE("bench --benchmarks --json: the rows asked for, on a tiny budget") {
    const auto r = test::sh(kBin +
                            " bench --benchmarks --rows dso_ppo,dso_sac --threads 1 --seconds "
                            "0.001 --iterations 1 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const auto j = json_of(r.out);
    CHECK(j.contains("blas_kernel"));
    const auto& rows = j.at("benchmarks");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].at("task") == "dso_ppo");
    CHECK(rows[1].at("task") == "dso_sac");
    const envs::EnvEntry* dso = envs::find_task("dso");
    REQUIRE(dso != nullptr);
    for (const auto& row : rows) {
      CAPTURE(row.dump());
      CHECK(row.at("preset") == "dso");
      CHECK(row.at("powerzoojax_gpu_steps_per_sec").get<double>() ==
            dso->reference_rates.gpu_steps_per_sec);
      CHECK(row.at("powerzoojax_cpu64_steps_per_sec").get<double>() ==
            dso->reference_rates.cpu64_steps_per_sec);
      REQUIRE(row.at("train").size() == 1);
      const auto& t = row.at("train")[0];
      CHECK(t.at("threads") == 1);
      CHECK(t.at("iterations").get<int>() >= 1);
      CHECK(t.at("warmup_iterations").get<int>() >= 1);
      CHECK(t.at("steps_per_sec").get<double>() > 0);
      CHECK(row.at("train_steps_per_sec_1_thread").get<double>() ==
            t.at("steps_per_sec").get<double>());
      const auto& s = t.at("shares");
      double sum = 0;
      for (const char* k : {"env", "act", "update", "other"}) {
        CHECK(s.at(k).get<double>() >= 0);
        sum += s.at(k).get<double>();
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-9));
      CHECK(s.at("update").get<double>() > 0);
    }
    CHECK(rows[0].at("algo") == "ppo");
    CHECK(rows[1].at("algo") == "sac");
  }
}
