// `powerzoo eval CHECKPOINT_OR_RUN_DIR`: deterministic evaluation written to its own file.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/exp/build.hpp"
#include "powerzoo/exp/evaluate.hpp"
#include "powerzoo/exp/train.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/exp/spec.hpp"
#include "powerzoo/rl/ppo.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace pz::cli {
namespace {

// A run directory resolves to ckpt/best.h5, else its newest ckpt/step_<n>.h5.
std::string resolve_checkpoint(const std::string& p) {
  if (!fs::exists(p)) throw core::ConfigError("checkpoint or run directory '" + p + "' not found");
  if (!fs::is_directory(p)) return p;
  const fs::path ck = fs::path(p) / "ckpt";
  if (fs::exists(ck / "best.h5")) return (ck / "best.h5").string();
  long long best = -1;
  std::string found;
  if (fs::is_directory(ck)) {
    for (const auto& e : fs::directory_iterator(ck)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("step_", 0) == 0 && e.path().extension() == ".h5") {
        const long long s = std::atoll(n.c_str() + 5);
        if (s > best) best = s, found = e.path().string();
      }
    }
  }
  if (found.empty())
    throw core::ConfigError("run directory '" + p +
                            "': expected ckpt/best.h5 or ckpt/step_<n>.h5, "
                            "found none");
  return found;
}

}  // namespace

int cmd_eval(const Args& args) {
  po::options_description opts(
      "usage: powerzoo eval CHECKPOINT_OR_RUN_DIR [options]\n\n"
      "Rebuilds the env from the checkpoint's resolved spec and evaluates the deterministic\n"
      "policy on evenly spaced episodes of a split. Writes a separate eval file (default:\n"
      "<run dir>/eval/<checkpoint>_<split>.h5); training outputs are never modified.\n\noptions");
  std::string split = "iid", out;
  int episodes = 16, threads = 0;
  opts.add_options()("help,h", "show this help")("split", po::value<std::string>(&split),
                                                 "split to evaluate on: train, iid (default iid)")(
      "episodes", po::value<int>(&episodes), "number of episodes (default 16)")(
      "out", po::value<std::string>(&out), "eval file to write")(
      "threads", po::value<int>(&threads), "worker threads (0 = all cores)");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  if (positional.size() != 1)
    throw UsageError{"expected exactly one CHECKPOINT_OR_RUN_DIR argument"};
  if (episodes < 1)
    throw UsageError{"--episodes: expected an integer >= 1, found " + std::to_string(episodes)};
  if (threads < 0 || threads > 1024)
    throw UsageError{"--threads: expected an integer in [0, 1024], found " +
                     std::to_string(threads)};
  const std::string ckpt = resolve_checkpoint(positional[0]);
  std::string resolved;
  const core::StateDict sd = io::read_checkpoint(ckpt, &resolved);
  const exp::Spec spec = exp::parse_spec(resolved, ckpt + " (config/resolved)");
  auto env = exp::make_learner_env(spec, split, false);  // Sauté budget obs if saute_ppo
  const auto& esp = env->spec();
  core::Rng init(0, 0);
  rl::PpoLearner learner(esp.obs_dim, esp.act_dim, spec.ppo, init,
                         exp::learner_cost_channels(spec));
  learner.load(sd);
  const auto penalty = exp::penalty_weights(spec, esp);
  if (out.empty()) {
    const fs::path run_dir = fs::path(ckpt).parent_path().parent_path();
    out = (run_dir / "eval" / (fs::path(ckpt).stem().string() + "_" + split + ".h5")).string();
  }
  core::ThreadPool pool(static_cast<size_t>(threads));
  exp::Trajectories traj;
  auto m = exp::evaluate_with_reference(env, exp::deterministic_policy(learner), episodes,
                                        static_cast<uint64_t>(spec.experiment.seed),
                                        env->spec().dt_hours, penalty, pool, &traj);
  if (fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path());
  auto f =
      io::RunFile::create(out,
                          {{"schema_version", "1"},
                           {"powerzoo_version", PZ_VERSION},
                           {"checkpoint", fs::absolute(ckpt).string()},
                           {"split", split},
                           {"env_id", esp.id}},
                          {{"seed", spec.experiment.seed}, {"n_episodes", episodes}}, resolved);
  auto it = sd.i64.find("counters/global_step");
  m["global_step"] =
      it != sd.i64.end() && !it->second.empty() ? static_cast<double>(it->second[0]) : 0;
  f.append_row("metrics/eval", m);
  const std::string p = "trajectories/" + split + "/";
  const int64_t T = traj.T, K = traj.K;
  f.write_f32(p + "obs", {T, K, traj.obs_dim}, traj.obs.data());
  f.write_f32(p + "action", {T, K, traj.act_dim}, traj.action.data());
  f.write_f32(p + "reward", {T, K}, traj.reward.data());
  f.write_f32(p + "costs", {T, K, traj.n_costs}, traj.costs.data());
  f.write_u8(p + "terminated", {T, K}, traj.terminated.data());
  f.write_u8(p + "truncated", {T, K}, traj.truncated.data());
  f.close();
  std::cout << "eval of " << ckpt << " on split " << split << ", " << episodes << " episodes\n";
  std::cout.precision(10);
  for (const auto& [k, v] : m) std::cout << "  " << k << " = " << v << "\n";
  std::cout << "eval file: " << out << std::endl;
  return 0;
}

}  // namespace pz::cli
