// `powerzoo rollout SPEC.toml --actions FILE`: a fixed action sequence replayed through the
// evaluation protocol (the episodes eval and baseline walk), with eval's metrics.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/exp/eval/action_file.hpp"
#include "powerzoo/exp/eval/evaluate.hpp"
#include "powerzoo/exp/run/eval_layout.hpp"
#include "powerzoo/exp/run/run_dir.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/learners.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/io/hdf5.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace pz::cli {

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string j;
  for (const auto& n : names) j += (j.empty() ? "" : ",") + n;
  return j;
}

/// The policy that plays step t of the sequence at its t-th call (evaluate calls it once per
/// step, in order); a one-env sequence is played in every episode.
envs::PolicyFn replay_policy(const exp::ActionSequence& seq) {
  auto t = std::make_shared<int>(0);
  return [&seq, t](const float*, int n, float* actions) {
    const size_t ad = static_cast<size_t>(seq.act_dim);
    const float* row = seq.data.data() + static_cast<size_t>(*t) * seq.N * ad;
    for (int i = 0; i < n; ++i) std::copy_n(row + (seq.N == 1 ? 0 : i) * ad, ad, actions + i * ad);
    ++*t;
  };
}

}  // namespace

int cmd_rollout(const Args& args) {
  const std::string usage =
      "usage: powerzoo rollout SPEC.toml --actions FILE [key=value ...] [options]\n\n"
      "Replays a fixed action sequence through the evaluation protocol (the episodes `eval` and\n"
      "`baseline` walk, the same eval seed) and prints eval's metrics. FILE is a CSV (a header\n"
      "with one column per action name, one row per step of one env, played in every episode),\n"
      "an HDF5 file with a dataset `actions` [T, N, act_dim] (N episodes), or FILE.h5:/path (a\n"
      "run file's trajectories/<split>/step_<n>/action replays that evaluation).\n\noptions";
  po::options_description opts(usage);
  std::string actions, out, split;
  int episodes = 0, threads = 0;
  opts.add_options()("help,h", "show this help")("actions", po::value<std::string>(&actions),
                                                 "the action file (CSV, HDF5 or FILE.h5:/path)")(
      "split", po::value<std::string>(&split), "the split (default: the spec's first eval split)")(
      "episodes", po::value<int>(&episodes),
      "episodes for a one-env sequence (default: eval.n_episodes; an [T, N, act_dim] dataset "
      "has N)")("out", po::value<std::string>(&out),
                "HDF5 file to write: the metrics and the episodes as trajectories (default: none)")(
      "threads", po::value<int>(&threads), "worker threads (0 = all cores)");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  check_path_option(vm, "out");
  check_path_option(vm, "actions");
  if (positional.empty()) throw UsageError{"expected a spec file (SPEC.toml), found none"};
  if (actions.empty()) throw UsageError{"--actions: expected an action file, found none"};
  check_threads_option(threads);
  if (vm.count("episodes") && (episodes < 1 || episodes > 100000))
    throw UsageError{"--episodes: expected an integer in [1, 100000], found " +
                     std::to_string(episodes)};
  exp::Spec spec = exp::load_spec(
      positional[0], std::vector<std::string>(positional.begin() + 1, positional.end()));
  if (vm.count("split")) exp::check_split_option(spec, split);
  if (!vm.count("split")) split = spec.eval.splits.front();
  if (!out.empty())
    exp::RunDirectory::check_output_file(out, "--out", exp::RunDirectory::OutputKind::kEvalHdf5);
  auto env = exp::make_learner_env(spec, split, false);  // as eval builds it
  const envs::EnvSpec& esp = env->spec();
  const auto penalty = exp::penalty_weights(spec, esp);
  const exp::ActionSequence seq = exp::read_action_file(actions, esp);
  if (seq.N > 1 && vm.count("episodes") && episodes != seq.N)
    throw UsageError{"--episodes: " + actions + " holds " + std::to_string(seq.N) +
                     " episodes, found --episodes " + std::to_string(episodes)};
  if (seq.N > 1) episodes = seq.N;
  if (episodes == 0) episodes = spec.eval.n_episodes;

  core::ThreadPool pool(static_cast<size_t>(threads));
  exp::Trajectories traj;
  const auto m = exp::evaluate_with_reference(
      env, replay_policy(seq), episodes, static_cast<uint64_t>(spec.experiment.seed), esp.dt_hours,
      penalty, pool, out.empty() ? nullptr : &traj, spec.log.percentiles);
  exp::check_finite_metrics(m, "rollout of " + actions + " on split " + split);
  std::cout << "rollout of " << actions << " on split " << split << ", " << episodes
            << (episodes == 1 ? " episode\n" : " episodes\n");
  std::cout.precision(10);
  for (const auto& [k, v] : m) std::cout << "  " << k << " = " << v << "\n";
  if (out.empty()) return 0;
  if (fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path());
  auto f = io::RunFile::create(out,
                               {{"schema_version", "1"},
                                {"actions", actions},
                                {"split", split},
                                {"env_id", esp.id},
                                {"cost_names", join(esp.cost_names)},
                                {"obs_names", join(esp.obs_feature_names())},
                                {"action_names", join(esp.action_feature_names())},
                                {exp::kEvalSplitsAttr, split}},
                               {{"seed", spec.experiment.seed}, {"n_episodes", episodes}},
                               exp::to_toml(spec));
  exp::append_eval_row(f, m, {split});
  exp::write_network(f, esp.network);
  exp::write_trajectories(f, "trajectories/" + split + "/step_0/", traj);
  f.close();
  std::cout << "rollout file: " << out << std::endl;
  return 0;
}

}  // namespace pz::cli
