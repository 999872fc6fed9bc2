// `powerzoo baseline SPEC.toml --policy NAME`: a non-learning policy through the eval protocol.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/build_info.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/counting_policy.hpp"
#include "powerzoo/exp/eval/evaluate.hpp"
#include "powerzoo/exp/run/eval_layout.hpp"
#include "powerzoo/exp/run/run_dir.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/io/hdf5.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace pz::cli {

namespace {

/// "<task>: <baseline>, ...; ..." for every registered env and task that has baselines.
std::string registered_baselines() {
  std::string out;
  for (const auto& list : {envs::registered_envs(), envs::registered_tasks()}) {
    for (const envs::EnvEntry* e : list) {
      if (e->baselines.empty()) continue;
      std::string names;
      for (const auto& [n, f] : e->baselines) names += (names.empty() ? "" : ", ") + n;
      out += (out.empty() ? "" : "; ") + e->name() + ": " + names;
    }
  }
  return out;
}

}  // namespace

int cmd_baseline(const Args& args) {
  const std::string usage =
      "usage: powerzoo baseline SPEC.toml --policy NAME [key=value ...] [options]\n\n"
      "Evaluates a non-learning policy on the spec's env with the same protocol and metrics as\n"
      "a trained policy (evenly spaced episodes of each eval split, same eval seed).\n"
      "Policies: zero_action (every action 0: mid-range dispatch in a dispatch env) and the\n"
      "baselines the envs and tasks register (" +
      registered_baselines() + ").\n\noptions";
  po::options_description opts(usage);
  std::string policy, out, split;
  int episodes = 0, threads = 0;
  opts.add_options()("help,h", "show this help")("policy", po::value<std::string>(&policy),
                                                 "baseline policy name")(
      "episodes", po::value<int>(&episodes), "episodes per split (default: eval.n_episodes)")(
      "split", po::value<std::string>(&split),
      "evaluate on this split only: one of the env's splits (default: the spec's eval.splits)")(
      "out", po::value<std::string>(&out),
      "HDF5 file to write: the metrics and each split's episodes as trajectories (default: none)")(
      "threads", po::value<int>(&threads), "worker threads (0 = all cores)");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  check_path_option(vm, "out");
  if (positional.empty()) throw UsageError{"expected a spec file (SPEC.toml), found none"};
  if (policy.empty()) throw UsageError{"--policy: expected a baseline name, found none"};
  check_threads_option(threads);
  exp::Spec spec = exp::load_spec(
      positional[0], std::vector<std::string>(positional.begin() + 1, positional.end()));
  if (vm.count("split")) {
    exp::check_split_option(spec, split);
    spec.eval.splits = {split};
  }
  // 1e9 episodes ended in std::bad_alloc (exit 1) after the envs were built.
  if (vm.count("episodes") && (episodes < 1 || episodes > 100000))
    throw UsageError{"--episodes: expected an integer in [1, 100000], found " +
                     std::to_string(episodes)};
  if (!out.empty())
    exp::RunDirectory::check_output_file(out, "--out", exp::RunDirectory::OutputKind::kEvalHdf5);
  if (!vm.count("episodes")) episodes = spec.eval.n_episodes;
  core::ThreadPool pool(static_cast<size_t>(threads));
  std::map<std::string, double> row;
  // With --out, each split's episodes as trajectories (scripts/plot_episode.py reads them).
  std::vector<exp::Trajectories> traj(spec.eval.splits.size());
  envs::EnvSpec esp;
  for (size_t s = 0; s < spec.eval.splits.size(); ++s) {
    auto env = exp::make_env(spec, spec.eval.splits[s]);
    const auto penalty = exp::penalty_weights(spec, env->spec());
    const envs::PolicyFn fn = envs::make_baseline(exp::env_entry(spec), policy, env);
    const auto m = exp::evaluate_with_reference(
        env, fn, episodes, static_cast<uint64_t>(spec.experiment.seed), env->spec().dt_hours,
        penalty, pool, out.empty() ? nullptr : &traj[s], spec.log.percentiles);
    if (s == 0) esp = env->spec();
    exp::check_finite_metrics(m, "baseline " + policy + " on split " + spec.eval.splits[s]);
    std::cout << "baseline " << policy << " on split " << spec.eval.splits[s] << ", " << episodes
              << (episodes == 1 ? " episode\n" : " episodes\n");
    auto print = [&](const std::string& k, double v) {
      std::cout << "  " << k << " = " << v << "\n";
      row[(s == 0 ? "" : spec.eval.splits[s] + "/") + k] = v;
    };
    for (const auto& [k, v] : m) print(k, v);
    // What the policy counted of its own decisions (summed over the split's steps).
    for (const auto& [k, v] : envs::policy_counts(fn)) print("policy/" + k, v);
  }
  if (!out.empty()) {
    if (fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path());
    auto join = [](const std::vector<std::string>& names) {
      std::string j;
      for (const auto& n : names) j += (j.empty() ? "" : ",") + n;
      return j;
    };
    std::string overrides;  // the spec's key=value arguments, as given
    for (size_t i = 1; i < positional.size(); ++i)
      overrides += (overrides.empty() ? "" : " ") + positional[i];
    auto f = io::RunFile::create(out,
                                 {{"schema_version", "1"},
                                  {"status", "finished"},
                                  {"powerzoo_version", core::version()},
                                  {"git_sha", core::git_sha()},
                                  {"overrides", overrides},
                                  {"policy", policy},
                                  {"env_id", esp.id},
                                  {"cost_names", join(esp.cost_names)},
                                  {"obs_names", join(esp.obs_feature_names())},
                                  {"action_names", join(esp.action_feature_names())},
                                  {exp::kEvalSplitsAttr, join(spec.eval.splits)}},
                                 {{"seed", spec.experiment.seed},
                                  {"n_episodes", episodes},
                                  {"global_step", 0}},  // no checkpoint: nothing was trained
                                 exp::to_toml(spec));
    exp::append_eval_row(f, row, spec.eval.splits);
    exp::write_network(f, esp.network);
    for (size_t s = 0; s < traj.size(); ++s)
      exp::write_trajectories(f, "trajectories/" + spec.eval.splits[s] + "/step_0/", traj[s]);
    f.close();
    std::cout << "baseline file: " << out << std::endl;
  }
  return 0;
}

}  // namespace pz::cli
