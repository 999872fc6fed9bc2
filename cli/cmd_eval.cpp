// `powerzoo eval CHECKPOINT_OR_RUN_DIR`: deterministic evaluation written to its own file.
#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/exp/eval/eval_command.hpp"

namespace po = boost::program_options;

namespace pz::cli {

int cmd_eval(const Args& args) {
  po::options_description opts(
      "usage: powerzoo eval CHECKPOINT_OR_RUN_DIR [key=value ...] [options]\n\n"
      "Rebuilds the env from the checkpoint's resolved spec and evaluates the deterministic\n"
      "policy on evenly spaced episodes of a split. A run directory means its ckpt/best.h5, or\n"
      "its newest ckpt/step_<n>.h5 without one. Writes a separate eval file (default:\n"
      "<run dir>/eval/<checkpoint>_<split>[_<overrides>].h5); training outputs are never\n"
      "modified.\n\n"
      "key=value overrides change the conditions of the evaluation: [env] keys that keep the\n"
      "observation and action layout (calendar, load scale, ratings, data files, ...), e.g.\n"
      "env.calendar=reference or env.load_scale=1.2, and eval.n_episodes (as --episodes). They\n"
      "are recorded in the eval file (attribute 'overrides', /config/resolved). Refused (exit\n"
      "2): keys of other sections (the learner, its training), other [eval] keys and env.split\n"
      "(the split is --split), and env keys (or a split) that change the observation or action\n"
      "layout the checkpoint was trained on, or the agents. Outages added or switched off keep\n"
      "it (docs/outages.md): their cost channels are reported.\n\noptions");
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
  if (positional.empty()) throw UsageError{"expected a CHECKPOINT_OR_RUN_DIR argument"};
  for (size_t i = 1; i < positional.size(); ++i)
    if (positional[i].find('=') == std::string::npos)
      throw UsageError{"expected one CHECKPOINT_OR_RUN_DIR and key=value overrides, found '" +
                       positional[i] + "' after '" + positional[0] + "'"};
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
  eo.overrides.assign(positional.begin() + 1, positional.end());
  const exp::EvalCommandResult r = exp::run_eval_command(eo);
  const std::string& ckpt = r.checkpoint;
  const auto& m = r.metrics;
  out = r.eval_file;
  std::cout << "eval of " << ckpt << " on split " << split << ", " << r.episodes
            << (r.episodes == 1 ? " episode" : " episodes");
  for (size_t i = 0; i < eo.overrides.size(); ++i)
    std::cout << (i == 0 ? ", overrides: " : " ") << eo.overrides[i];
  std::cout << "\n";
  std::cout.precision(10);
  for (const auto& [k, v] : m) std::cout << "  " << k << " = " << v << "\n";
  std::cout << "eval file: " << out << std::endl;
  return 0;
}

}  // namespace pz::cli
