// `powerzoo eval CHECKPOINT_OR_RUN_DIR`: deterministic evaluation written to its own file.
#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/exp/eval_command.hpp"

namespace po = boost::program_options;

namespace pz::cli {

int cmd_eval(const Args& args) {
  po::options_description opts(
      "usage: powerzoo eval CHECKPOINT_OR_RUN_DIR [options]\n\n"
      "Rebuilds the env from the checkpoint's resolved spec and evaluates the deterministic\n"
      "policy on evenly spaced episodes of a split. Writes a separate eval file (default:\n"
      "<run dir>/eval/<checkpoint>_<split>.h5); training outputs are never modified.\n\noptions");
  std::string split = "iid", out;
  int episodes = 0, threads = 0;
  opts.add_options()("help,h", "show this help")(
      "split", po::value<std::string>(&split),
      "split to evaluate on: one of the env's splits (`powerzoo envs`; default iid)")(
      "episodes", po::value<int>(&episodes),
      "number of episodes (default: the run's eval.n_episodes)")(
      "out", po::value<std::string>(&out), "eval file to write")(
      "threads", po::value<int>(&threads), "worker threads (0 = all cores)");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  check_path_option(vm, "out");
  if (positional.size() != 1)
    throw UsageError{"expected exactly one CHECKPOINT_OR_RUN_DIR argument"};
  if (vm.count("episodes") && (episodes < 1 || episodes > 100000))
    throw UsageError{"--episodes: expected an integer in [1, 100000], found " +
                     std::to_string(episodes)};
  check_threads_option(threads);
  exp::EvalCommandOptions eo;
  eo.path = positional[0];
  eo.split = split;
  eo.episodes = episodes;
  eo.threads = threads;
  eo.out = out;
  const exp::EvalCommandResult r = exp::run_eval_command(eo);
  const std::string& ckpt = r.checkpoint;
  const auto& m = r.metrics;
  out = r.eval_file;
  std::cout << "eval of " << ckpt << " on split " << split << ", " << r.episodes
            << (r.episodes == 1 ? " episode\n" : " episodes\n");
  std::cout.precision(10);
  for (const auto& [k, v] : m) std::cout << "  " << k << " = " << v << "\n";
  std::cout << "eval file: " << out << std::endl;
  return 0;
}

}  // namespace pz::cli
