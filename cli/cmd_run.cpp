// `powerzoo run SPEC.toml [key=value ...]`: train one configuration.
#include <boost/program_options.hpp>
#include <cmath>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/stop_signal.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/train.hpp"

namespace po = boost::program_options;

namespace pz::cli {

int cmd_run(const Args& args) {
  po::options_description opts(
      "usage: powerzoo run SPEC.toml [key=value ...] [options]\n\n"
      "Trains PPO on the environment of SPEC.toml. key=value overrides use the spec's dotted\n"
      "paths (ppo.learning_rate=1e-4, vec.n_envs=16, seed=3). Writes run.h5, progress.csv and\n"
      "ckpt/ into out_dir/name/<UTC timestamp> (or --out). The spec's keys and their defaults\n"
      "are listed below ([env] for the default env: `powerzoo envs` lists every env's and\n"
      "task's [env] keys, `powerzoo run --help ENV_OR_TASK` shows them in full).\n\n"
      "SIGINT, SIGTERM or SIGUSR1 end the run after the current iteration with a checkpoint and\n"
      "exit code 3 (--resume continues it); a second signal stops at once. Exit codes: 0 done,\n"
      "1 the run failed, 2 bad input, 3 interrupted.\n\noptions");
  std::string out;
  int threads = -1;
  double log_every = 30;
  opts.add_options()("help,h", "show this help")(
      "out", po::value<std::string>(&out), "run directory to write (default: out_dir/name/<time>)")(
      "threads", po::value<int>(&threads), "worker threads (overrides vec.threads; 0 = all cores)")(
      "quiet,q", "no progress output")(
      "log-every", po::value<double>(&log_every),
      "seconds between progress lines when stdout is not a terminal (SLURM logs, pipes; default "
      "30, 0 = none)")(
      "resume",
      "continue from the newest complete checkpoint of the run directory (--out, or the "
      "newest out_dir/name/<time>); starts fresh if there is none");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional, false)) {
    // --help: the key reference, for the env or task named after it (default env otherwise).
    // The keys of the env or task named on the line, or of a spec file's env.
    std::string entry;
    for (const auto& a : args) {
      if (a.empty() || a[0] == '-') continue;
      if (a.ends_with(".toml")) {
        const exp::Spec sp = exp::load_spec(a);
        entry = sp.env.task.empty() ? sp.env.id : sp.env.task;
      } else if (envs::find_env(a) || envs::find_task(a)) {
        entry = a;
      } else {
        std::vector<std::string> names;
        for (const auto& list : {envs::registered_envs(), envs::registered_tasks()})
          for (const auto* e : list) names.push_back(e->name());
        const std::string dym = core::did_you_mean(a, names);
        throw UsageError{"--help: expected an env, a task or a spec file, found '" + core::echo(a) +
                         "'" + (dym.empty() ? "" : " (did you mean '" + dym + "'?)")};
      }
    }
    std::cout << opts << "\n\nspec keys:\n" << exp::spec_reference(entry);
    return 0;
  }
  check_path_option(vm, "out");
  if (positional.empty()) throw UsageError{"expected a spec file (SPEC.toml), found none"};
  if (vm.count("threads")) check_threads_option(threads);
  if (!std::isfinite(log_every) || log_every < 0 || log_every > 1e6)
    throw UsageError{"--log-every: expected seconds in [0, 1e6], found " +
                     std::to_string(log_every)};
  const std::string spec_path = positional[0];
  std::vector<std::string> overrides(positional.begin() + 1, positional.end());
  for (const auto& o : overrides)
    if (o.find('=') == std::string::npos)
      throw UsageError{"expected key=value overrides after the spec, found '" + core::echo(o) +
                       "'"};
  const exp::Spec spec = exp::load_spec(spec_path, overrides);
  exp::TrainOptions topt;
  topt.out_dir = out;
  topt.threads = threads;
  topt.quiet = vm.count("quiet") > 0;
  topt.log_every_seconds = log_every;
  topt.resume = vm.count("resume") > 0;
  core::install_stop_handlers();  // after every check: bad input still exits 2 at once
  const exp::TrainResult r = exp::train(spec, topt);
  return r.stopped_by != 0 ? core::kExitInterrupted : 0;
}

}  // namespace pz::cli
