// `powerzoo bench`: throughput of the vector env, the learner and the DC-OPF solver.
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/build_info.hpp"
#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/format.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/exp/bench/bench.hpp"
#include "powerzoo/exp/bench/bench_benchmarks.hpp"
#include "powerzoo/exp/bench/bench_outages.hpp"
#include "powerzoo/exp/bench/bench_scoreboard.hpp"
#include "powerzoo/exp/spec/learners.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"

namespace po = boost::program_options;

namespace pz::cli {
namespace {

/// The items of a comma-separated option value; an empty list, an empty item (`env,`) or an item
/// given twice is a UsageError (they had been dropped or run twice).
std::vector<std::string> split_items(const std::string& s, const char* what) {
  std::vector<std::string> items;
  size_t start = 0;
  for (;;) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? comma : comma - start);
    if (item.empty())
      throw UsageError{std::string(what) +
                       ": expected a comma-separated list without empty items, " + "found '" +
                       core::echo(s) + "'"};
    if (std::find(items.begin(), items.end(), item) != items.end())
      throw UsageError{std::string(what) + ": expected each item once, found '" + core::echo(item) +
                       "' twice"};
    items.push_back(item);
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

std::vector<int> parse_list(const std::string& s, const char* what, int lo, int hi) {
  std::vector<int> out;
  for (const std::string& item : split_items(s, what)) {
    int v = 0;
    try {
      size_t used = 0;
      v = std::stoi(item, &used);
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw UsageError{std::string(what) +
                       ": expected a comma-separated list of integers, found '" + core::echo(s) +
                       "'"};
    }
    if (v < lo || v > hi)
      throw UsageError{std::string(what) + ": expected integers in [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "], found " + std::to_string(v)};
    out.push_back(v);
  }
  return out;
}

// Outage rows: 4 envs, 192 vector steps (4 episodes of 48) after one episode of warm-up.
constexpr int kOutageEnvs = 4, kOutageSteps = 192;

void print_dcopf(const exp::DcOpfBenchResult& d) {
  std::printf("  %-8s cold %9.1f us   warm %9.1f us   (median of %d)\n", d.case_name.c_str(),
              d.cold_us, d.warm_us, d.reps);
}

void print_ac(const exp::AcBenchResult& d) {
  std::printf(
      "  %-8s build %9.1f us   cold %10.1f us (%4.1f it)   warm %10.1f us (%4.1f it)   (median "
      "of %d)\n",
      d.case_name.c_str(), d.build_us, d.cold_us, d.cold_iters, d.warm_us, d.warm_iters, d.reps);
}

// The outage rows (`rows_s`: row names, "" = all; an unknown name is a UsageError).
std::vector<exp::OutageBenchResult> bench_outage_rows(const std::string& rows_s) {
  const auto cases = exp::outage_bench_cases();
  std::vector<std::string> names;
  for (const auto& c : cases) names.push_back(c.name);
  const std::vector<std::string> want = rows_s.empty() ? names : split_items(rows_s, "--rows");
  for (const auto& w : want)
    if (std::find(names.begin(), names.end(), w) == names.end()) {
      const std::string d = core::did_you_mean(w, names);
      throw UsageError{"--rows: expected outage rows among " +
                       [&] {
                         std::string all;
                         for (const auto& n : names) all += (all.empty() ? "" : ",") + n;
                         return all;
                       }() +
                       ", found '" + core::echo(w) + "'" +
                       (d.empty() ? "" : " (did you mean '" + d + "'?)")};
    }
  std::vector<exp::OutageBenchResult> out;
  for (const auto& c : cases)
    if (std::find(want.begin(), want.end(), c.name) != want.end())
      out.push_back(exp::bench_outages(c, kOutageEnvs, kOutageSteps));
  return out;
}

std::vector<exp::DcOpfBenchResult> bench_dcopf_cases() {
  std::vector<exp::DcOpfBenchResult> out;
  for (const char* c : {"case5", "case118", "case300"}) out.push_back(exp::bench_dcopf(c, 51));
  return out;
}

// `bench --benchmarks`: the rows of the chosen benchmark specs (`rows_s`: experiment names, ""
// = all), timed on each thread count (`iterations` and `seconds` measured at least, `rounds`
// alternated rounds), printed as a table, Markdown or JSON.
int run_benchmarks(const po::variables_map& vm, const std::vector<std::string>& positional,
                   const std::vector<int>& threads, const std::string& rows_s, int rounds,
                   int iterations, double seconds) {
  if (!positional.empty() || vm.count("only") || vm.count("envs"))
    throw UsageError{"--benchmarks: times the bundled benchmark specs; found " +
                     std::string(!positional.empty() ? "a SPEC"
                                 : vm.count("only")  ? "--only"
                                                     : "--envs") +
                     " (bench SPEC times one spec)"};
  if (vm.count("json") && vm.count("markdown"))
    throw UsageError{"--markdown: expected either --json or --markdown, found both"};
  if (rounds < 1 || rounds > 100)
    throw UsageError{"--rounds: expected an integer in [1, 100], found " + std::to_string(rounds)};
  if (iterations < 1 || iterations > 100000)
    throw UsageError{"--iterations: expected an integer in [1, 100000], found " +
                     std::to_string(iterations)};
  const exp::TrainingBudget budget{iterations, seconds, 100000};
  std::vector<exp::BenchmarkRow> all;
  std::vector<std::string> names;
  for (const auto& rel : exp::benchmark_spec_paths()) {
    all.push_back(exp::benchmark_row(std::string(pz::core::source_dir()) + "/" + rel));
    names.push_back(all.back().name);
  }
  std::vector<exp::BenchmarkRow> rows;
  if (rows_s.empty()) rows = all;
  for (const std::string& name :
       rows_s.empty() ? std::vector<std::string>{} : split_items(rows_s, "--rows")) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      const std::string d = core::did_you_mean(name, names);
      throw UsageError{"--rows: expected benchmark spec names (" + list + "), found '" +
                       core::echo(name) + "'" + (d.empty() ? "" : " (did you mean '" + d + "'?)")};
    }
    rows.push_back(all[static_cast<size_t>(it - names.begin())]);
  }
  std::cerr << "powerzoo bench --benchmarks: " << rows.size() << " specs on " << threads.size()
            << " thread count(s), " << rounds << " round(s), at least " << budget.min_iterations
            << " iterations and " << core::format_number(budget.min_seconds)
            << " s each after the warm-up" << std::endl;
  exp::time_benchmark_rows(rows, threads, rounds, budget, &std::cerr);
  if (vm.count("json")) {
    std::cout << exp::benchmark_json(rows, core::blas_kernel_name());
  } else if (vm.count("markdown")) {
    std::cout << exp::benchmark_markdown(rows);
  } else {
    std::cout << "powerzoo bench --benchmarks (OpenBLAS kernel " << core::blas_kernel_name()
              << "; training steps/s: median of the measured iterations, spread = (max - min) / "
                 "median; env/act/update/other = % of the training time; JAX = PowerZooJax's "
                 "published rates, (ours at the most threads / theirs))\n"
              << exp::benchmark_table(rows);
  }
  return 0;
}

}  // namespace

int cmd_bench(const Args& args) {
  po::options_description opts(
      "usage: powerzoo bench [SPEC.toml] [key=value ...] [options]\n\n"
      "Without SPEC: the scoreboard, one row per bundled task spec: env steps/s on 1\n"
      "and 2 threads, learner samples/s and GEMM GFLOP/s against this machine's own single-core\n"
      "SGEMM peak at the learner's shape, the training loop's steady steps/s on 2 threads (as\n"
      "--benchmarks measures it), then DC-OPF solve times. `--benchmarks`: one row per task's "
      "benchmark spec (the\n"
      "full-budget runs), its training loop's steady steps/s on each --threads count (the\n"
      "warm-up dropped, then at least --iterations iterations and --seconds seconds, the median\n"
      "of their rates), the split of that time between env stepping, acting and the learner's\n"
      "update, and PowerZooJax's published GPU and 64-core CPU rates beside it (`--markdown`:\n"
      "the table of docs/speed.md). With SPEC: vector-env steps/s for several batch sizes and\n"
      "thread counts (random actions), the learner's rates for the spec's network (on one\n"
      "thread with its share of the single-core SGEMM peak at the learner's shape), and median\n"
      "DC-OPF solve times (cold and warm) for case5, case118, case300. `--only acpf,acopf`:\n"
      "the same for the Newton-Raphson AC power flow and the AC-OPF (build, cold solve from\n"
      "MATPOWER's start, warm re-solve of loads drifting by 2 %). `--only outages` (also in\n"
      "the scoreboard): µs per env step of the DC envs (trans_grid DC agent and DC-OPF\n"
      "dispatch, TSO, GenCos) intact, with one branch held out and with a new single-branch set\n"
      "every step, and the ratios to intact (`--rows` picks rows, `--json`).\n\noptions");
  std::string envs_s = "1,8,64,256", threads_s = "1,2", what = "env,learner,dcopf";
  const std::vector<std::string> parts_known{"env", "learner", "dcopf", "acpf", "acopf", "outages"};
  double seconds = 1.0;
  std::string rows_s;
  int rounds = 1, iterations = 3;
  opts.add_options()("help,h", "show this help")("envs", po::value<std::string>(&envs_s),
                                                 "batch sizes (default 1,8,64,256)")(
      "threads", po::value<std::string>(&threads_s), "thread counts (default 1,2; 0 = all cores)")(
      "seconds", po::value<double>(&seconds),
      "time per measurement (default 1; with --benchmarks: training seconds measured at least, "
      "default 10)")("only", po::value<std::string>(&what),
                     "subset of env,learner,dcopf,acpf,acopf,outages")(
      "json", "scoreboard (without SPEC) or --only outages as JSON on stdout")(
      "benchmarks", "the benchmark rows instead of the scoreboard (--seconds default 10)")(
      "rows", po::value<std::string>(&rows_s),
      "with --benchmarks: these rows (spec names); with --only outages: these outage rows")(
      "rounds", po::value<int>(&rounds), "with --benchmarks: alternated rounds (default 1)")(
      "iterations", po::value<int>(&iterations),
      "with --benchmarks: measured iterations at least (default 3)")(
      "markdown", "with --benchmarks: the Markdown table on stdout");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  if (!(seconds > 0 && seconds <= 600))
    throw UsageError{"--seconds: expected a number in (0, 600], found " +
                     core::format_number(seconds)};
  const auto env_list = parse_list(envs_s, "--envs", 1, 65536);
  auto thread_list = parse_list(threads_s, "--threads", 0, 1024);
  // 0 = all cores, as in every other command; resolved here, so `--threads 0,2` on a 2-core
  // machine is the same count twice (it timed 2 threads twice and its JSON kept one of them).
  for (int& t : thread_list)
    if (t == 0) t = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (size_t i = 0; i < thread_list.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (thread_list[i] == thread_list[j])
        throw UsageError{"--threads: expected each thread count once, found " +
                         std::to_string(thread_list[i]) + " twice (0 = all cores = " +
                         std::to_string(std::max(1u, std::thread::hardware_concurrency())) + ")"};
  // An empty --rows picked every row, as if it had not been given.
  if (vm.count("rows")) split_items(rows_s, "--rows");
  if (vm.count("only")) split_items(what, "--only");
  {
    std::stringstream ss(what);
    std::string part;
    while (std::getline(ss, part, ','))
      if (std::find(parts_known.begin(), parts_known.end(), part) == parts_known.end())
        throw UsageError{
            "--only: expected a comma-separated subset of env,learner,dcopf,acpf,acopf,outages, "
            "found '" +
            core::echo(part) + "'" + [&] {
              const std::string d = core::did_you_mean(part, parts_known);
              return d.empty() ? std::string() : " (did you mean '" + d + "'?)";
            }()};
  }
  const bool benchmarks = vm.count("benchmarks") > 0;
  const bool outages_only = vm.count("only") && what == "outages";
  for (const char* opt : {"rows", "rounds", "iterations", "markdown"})
    if (vm.count(opt) && !benchmarks && !(outages_only && std::string(opt) == "rows"))
      throw UsageError{std::string("--") + opt + ": only with --benchmarks" +
                       (std::string(opt) == "rows" ? " or --only outages" : "")};
  if (outages_only) {  // fixed specs of their own: no SPEC, --envs or --threads
    if (!positional.empty() || vm.count("envs") || vm.count("threads"))
      throw UsageError{"--only outages: times fixed specs on 1 thread; found " +
                       std::string(!positional.empty() ? "a SPEC"
                                   : vm.count("envs")  ? "--envs"
                                                       : "--threads")};
    const auto rows = bench_outage_rows(rows_s);
    if (vm.count("json"))
      std::cout << exp::outage_bench_json(rows) << "\n";
    else
      std::cout << "outage steps (1 thread):\n" << exp::outage_bench_table(rows);
    return 0;
  }
  if (benchmarks)
    return run_benchmarks(vm, positional, thread_list, rows_s, rounds, iterations,
                          vm.count("seconds") ? seconds : 10.0);
  if (vm.count("json") && (!positional.empty() || vm.count("only") || vm.count("envs")))
    throw UsageError{
        "--json: only the scoreboard (powerzoo bench without SPEC, --only or --envs) "
        "is printed as JSON"};
  auto wants = [&](const char* part) {
    std::stringstream ss(what);
    std::string p;
    while (std::getline(ss, p, ','))
      if (p == part) return true;
    return false;
  };
  if (positional.empty() && !vm.count("only") && !vm.count("envs")) {
    if (vm.count("threads"))  // the scoreboard's thread counts are fixed: 1 and 2
      throw UsageError{
          "--threads: the scoreboard always times 1 and 2 threads; found --threads (use "
          "--benchmarks or a SPEC to choose thread counts)"};
    std::vector<exp::ScoreRow> rows;
    for (const auto& rel : exp::scoreboard_specs())
      rows.push_back(exp::score_spec(std::string(pz::core::source_dir()) + "/" + rel, seconds));
    const auto dcopf = bench_dcopf_cases();
    const auto outages = bench_outage_rows("");
    if (vm.count("json")) {
      std::cout << exp::scoreboard_json(rows, dcopf, outages, core::blas_kernel_name());
      return 0;
    }
    std::cout << "powerzoo bench scoreboard (OpenBLAS kernel " << core::blas_kernel_name()
              << "; rates per second; GF = executed learner GEMM GFLOP/s, peak = single-core "
                 "cblas_sgemm at the learner's shape)\n"
              << exp::scoreboard_table(rows) << "DC-OPF (COIN-OR CLP):\n";
    for (const auto& d : dcopf) print_dcopf(d);
    std::cout << "outage steps (1 thread):\n" << exp::outage_bench_table(outages);
    return 0;
  }
  const std::string spec_path =
      positional.empty() ? std::string(pz::core::source_dir()) + "/experiments/quickstart.toml"
                         : positional[0];
  const exp::Spec spec = exp::load_spec(
      spec_path, positional.size() > 1
                     ? std::vector<std::string>(positional.begin() + 1, positional.end())
                     : std::vector<std::string>{});
  std::cout << "powerzoo bench: " << spec_path << " (OpenBLAS kernel " << core::blas_kernel_name()
            << ")\n";
  if (wants("env")) {
    std::cout << "vector env (" << spec.env.id << " on "
              << (spec.env.params.has("case") ? spec.env.params.str("case")
                                              : "task " + spec.env.task)
              << "):\n";
    for (int t : thread_list)
      for (int n : env_list) {
        const auto r = exp::bench_env(spec, n, t, seconds);
        std::printf("  envs %5d  threads %2d  %12.0f steps/s  %8.3f us/step\n", r.n_envs, r.threads,
                    r.steps_per_sec, r.us_per_step);
      }
  }
  if (wants("learner")) {
    const auto env = exp::make_learner_env(spec, spec.env.split, true);
    const auto shape = exp::learner_bench_shape(spec, env->spec(), spec.vec.n_envs);
    const bool grad_steps = shape.counts_grad_steps;
    std::printf("learner %s (%s):\n", exp::learner_name(spec).c_str(), shape.text.c_str());
    for (int t : thread_list) {
      const auto r = exp::bench_learner(spec, seconds, t);
      if (grad_steps)
        std::printf("  threads %2d  %10.0f gradient steps/s (%10.0f samples/s)", r.threads,
                    r.grad_steps_per_sec, r.samples_per_sec);
      else
        std::printf("  threads %2d  update %12.0f samples/s", r.threads, r.samples_per_sec);
      std::printf("  %6.2f GFLOP/s (executed GEMM)  act %8.1f us/batch\n", r.gflops, r.act_us);
      // The 1-thread rate's share of the single-core SGEMM peak, the peak timed right after it:
      // on a shared machine the two drift together, so the share holds where either alone
      // moves by 10 %.
      if (r.threads == 1 && r.gflops > 0) {
        const exp::GemmShape g = exp::learner_gemm_shape(spec);
        const double peak = exp::sgemm_peak_gflops(g.m, g.n, g.k, seconds);
        std::printf("  SGEMM peak at %d x %d x %d, 1 core: %.2f GFLOP/s (this update: %.0f %%)\n",
                    g.m, g.n, g.k, peak, 100.0 * r.gflops / peak);
      }
    }
  }
  if (wants("dcopf")) {
    std::cout << "DC-OPF (COIN-OR CLP):\n";
    for (const auto& d : bench_dcopf_cases()) print_dcopf(d);
  }
  if (wants("acpf")) {
    std::cout << "AC power flow (Newton-Raphson, KLU):\n";
    for (const char* c : {"case5", "case118", "case300"}) print_ac(exp::bench_acpf(c, 201));
  }
  if (wants("acopf")) {
    std::cout << "AC-OPF (Ipopt):\n";
    for (const char* c : {"case5", "case118", "case300"}) print_ac(exp::bench_acopf(c, 11));
  }
  if (wants("outages")) {
    std::cout << "outage steps (1 thread):\n" << exp::outage_bench_table(bench_outage_rows(""));
  }
  return 0;
}

}  // namespace pz::cli
