// The benchmark rows of `powerzoo bench --benchmarks`: each task preset's benchmark specs timed
// through the real training loop, beside the preset's reference rates.
#include "powerzoo/exp/bench/bench_benchmarks.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/learners.hpp"

namespace pz::exp {
namespace {

// "728", "7.6k", "34.0k", "127k": rates as PowerZooJax's table writes them.
std::string rate_text(double x) {
  char buf[32];
  if (x < 1000)
    std::snprintf(buf, sizeof buf, "%.0f", x);
  else if (x < 100000)
    std::snprintf(buf, sizeof buf, "%.1fk", x / 1000);
  else
    std::snprintf(buf, sizeof buf, "%.0fk", x / 1000);
  return buf;
}

// "62/5/30/3": the shares in percent, env/act/update/other.
std::string shares_text(const PhaseShares& s) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f/%.0f/%.0f/%.0f", 100 * s.env, 100 * s.act, 100 * s.update,
                100 * s.other);
  return buf;
}

// ours / theirs as "0.17×", "–" without a reference.
std::string ratio_text(double ours, double theirs) {
  if (!(theirs > 0)) return "–";
  char buf[32];
  std::snprintf(buf, sizeof buf, ours / theirs < 10 ? "%.2f×" : "%.0f×", ours / theirs);
  return buf;
}

std::string threads_text(int t) { return std::to_string(t) + (t == 1 ? " thread" : " threads"); }

// The rate compared with the reference: that of the most threads measured.
const TrainingTiming* widest(const BenchmarkRow& r) {
  const TrainingTiming* w = nullptr;
  for (const auto& t : r.timings)
    if (!w || t.threads > w->threads) w = &t;
  return w;
}

}  // namespace

std::vector<std::string> benchmark_spec_paths() {
  std::vector<std::string> out;
  for (const envs::EnvEntry* e : envs::registered_tasks())
    out.insert(out.end(), e->benchmark_specs.begin(), e->benchmark_specs.end());
  return out;
}

BenchmarkRow benchmark_row(const std::string& spec_path) {
  const Spec spec = load_spec(spec_path);
  const envs::EnvEntry& e = env_entry(spec);
  BenchmarkRow r;
  r.name = spec.experiment.name;
  r.spec_path = spec_path;
  r.task = e.name();
  r.algo = learner_name(spec);
  r.n_envs = spec.vec.n_envs;
  r.steps_per_iteration = static_cast<long long>(spec.vec.n_envs) * spec.learner.rollout_length;
  r.reference = e.reference_rates;
  return r;
}

void time_benchmark_rows(std::vector<BenchmarkRow>& rows, const std::vector<int>& threads,
                         int rounds, const TrainingBudget& budget, std::ostream* log) {
  for (auto& r : rows) {
    const Spec spec = load_spec(r.spec_path);
    r.timings.assign(threads.size(), TrainingTiming{});
    // Rounds alternate the thread counts, so a neighbour's burst on a shared machine falls on
    // both rather than on one.
    for (int k = 0; k < rounds; ++k)
      for (size_t i = 0; i < threads.size(); ++i) {
        const TrainingTiming t = time_training(spec, threads[i], budget);
        r.timings[i].threads = t.threads;
        r.timings[i].merge(t);
        if (log)
          *log << "  " << r.name << ", " << threads_text(t.threads) << ", round " << k + 1 << ": "
               << rate_text(t.steps_per_sec()) << " steps/s over " << t.iterations()
               << " iterations (" << t.warmup_iterations << " warm-up)" << std::endl;
      }
  }
}

std::string benchmark_table(const std::vector<BenchmarkRow>& rows) {
  std::string out;
  char buf[200];
  for (const auto& r : rows) {
    std::snprintf(buf, sizeof buf, "%-22s %-16s %5d envs x %4lld steps |", r.name.c_str(),
                  r.algo.c_str(), r.n_envs, r.steps_per_iteration / std::max(r.n_envs, 1));
    out += buf;
    for (const auto& t : r.timings) {
      std::snprintf(buf, sizeof buf, " %2dt %8.0f /s (spread %3.0f%%, %3d it) %-11s |", t.threads,
                    t.steps_per_sec(), 100 * t.rate_spread(), t.iterations(),
                    shares_text(t.shares()).c_str());
      out += buf;
    }
    const TrainingTiming* w = widest(r);
    const double ours = w ? w->steps_per_sec() : 0;
    std::snprintf(buf, sizeof buf, " JAX GPU %6s (%s)  64-core %6s (%s)\n",
                  rate_text(r.reference.gpu_steps_per_sec).c_str(),
                  ratio_text(ours, r.reference.gpu_steps_per_sec).c_str(),
                  rate_text(r.reference.cpu64_steps_per_sec).c_str(),
                  ratio_text(ours, r.reference.cpu64_steps_per_sec).c_str());
    out += buf;
  }
  return out;
}

std::string benchmark_markdown(const std::vector<BenchmarkRow>& rows) {
  if (rows.empty()) return "";
  const auto& first = rows.front().timings;
  std::string head = "| spec | learner | envs × steps |", rule = "|---|---|---|";
  for (const auto& t : first) {
    head += " ours, " + threads_text(t.threads) + " (steps/s) | env / act / update / other, " +
            threads_text(t.threads) + " (%) |";
    rule += "---:|---|";
  }
  const int most = widest(rows.front()) ? widest(rows.front())->threads : 0;
  head += " PowerZooJax, 1 GPU | PowerZooJax, 64-core CPU | ours (" + threads_text(most) +
          ") / GPU | ours / 64-core |\n";
  rule += "---:|---:|---:|---:|\n";
  std::string out = head + rule;
  for (const auto& r : rows) {
    out += "| `" + r.name + "` | " + r.algo + " | " + std::to_string(r.n_envs) + " × " +
           std::to_string(r.steps_per_iteration / std::max(r.n_envs, 1)) + " |";
    for (const auto& t : r.timings)
      out += " " + rate_text(t.steps_per_sec()) + " | " + shares_text(t.shares()) + " |";
    const TrainingTiming* w = widest(r);
    const double ours = w ? w->steps_per_sec() : 0;
    out += " " + rate_text(r.reference.gpu_steps_per_sec) + " | " +
           rate_text(r.reference.cpu64_steps_per_sec) + " | " +
           ratio_text(ours, r.reference.gpu_steps_per_sec) + " | " +
           ratio_text(ours, r.reference.cpu64_steps_per_sec) + " |\n";
  }
  return out;
}

std::string benchmark_json(const std::vector<BenchmarkRow>& rows, const std::string& blas_kernel) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json row = {{"task", r.name},
                          {"spec", r.spec_path},
                          {"preset", r.task},
                          {"algo", r.algo},
                          {"n_envs", r.n_envs},
                          {"steps_per_iteration", r.steps_per_iteration},
                          {"powerzoojax_gpu_steps_per_sec", r.reference.gpu_steps_per_sec},
                          {"powerzoojax_cpu64_steps_per_sec", r.reference.cpu64_steps_per_sec}};
    nlohmann::json per = nlohmann::json::array();
    for (const auto& t : r.timings) {
      per.push_back(training_json(t));
      row["train_steps_per_sec_" + std::to_string(t.threads) +
          (t.threads == 1 ? "_thread" : "_threads")] = t.steps_per_sec();
    }
    row["train"] = per;
    a.push_back(row);
  }
  const nlohmann::json out = {{"blas_kernel", blas_kernel}, {"benchmarks", a}};
  return out.dump(1) + "\n";
}

}  // namespace pz::exp
