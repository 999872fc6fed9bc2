// powerzoo: dispatches subcommands and maps errors to exit codes (0 ok, 1 run failed, 2 bad input).
#include <boost/program_options/errors.hpp>
#include <csignal>
#include <cstring>
#include <iostream>

#include "cli/commands.hpp"
#include "powerzoo/core/build_info.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/io/hdf5.hpp"

namespace {

constexpr const char* kUsage =
    "usage: powerzoo COMMAND [ARGS...]\n\n"
    "commands:\n"
    "  run SPEC.toml [key=value ...]   train one configuration\n"
    "  validate SPEC.toml [key=value]  check a spec as run would (nothing written)\n"
    "  config SPEC.toml [key=value]    print the resolved spec with every default\n"
    "  keys [SECTION]                  every spec key: kind, default, range, description\n"
    "  eval CHECKPOINT_OR_RUN_DIR      deterministic evaluation of a checkpoint\n"
    "  envs                            list environments with their dimensions\n"
    "  cases                           list bundled MATPOWER cases\n"
    "  baseline SPEC.toml --policy P   evaluate a non-learning policy (zero_action)\n"
    "  rollout SPEC.toml --actions F   replay a fixed action sequence through the eval protocol\n"
    "  sweep SPEC.toml [key=v1,v2 ...] expand a sweep into trials; run, list or emit SLURM script\n"
    "  summarize DIR                   mean, std and bootstrap 95% CI over seeds per "
    "configuration\n"
    "  grid dcpf|dcopf|acpf|acopf|distflow CASE   power flows / OPFs of a case (MATPOWER names)\n"
    "  grid contingencies|scopf CASE   N-1 branch screen (LODF) / security-constrained DC-OPF\n"
    "  bench [SPEC.toml]               env steps/s, learner samples/s, DC-OPF solve times\n\n"
    "`powerzoo COMMAND --help` describes each command. Exit codes: 0 success, 1 run failed,\n"
    "2 bad usage or bad input, 3 run interrupted by a signal after a checkpoint.\n";

// A message as printed: each line cut and made printable (it may echo a binary file or a
// megabyte-long argument that a check further down did not cut).
std::string shown(const std::string& msg) {
  std::string out;
  size_t b = 0;
  while (b <= msg.size()) {
    size_t e = msg.find('\n', b);
    if (e == std::string::npos) e = msg.size();
    out += (b ? "\n" : "") + pz::core::echo(std::string_view(msg).substr(b, e - b), 1500);
    b = e + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) must fail the write (EFBIG, reported and exit 1), not kill the
  // process with SIGXFSZ halfway through a file.
  std::signal(SIGXFSZ, SIG_IGN);
  pz::io::skip_hdf5_exit_cleanup();
  pz::core::select_blas_kernel(argv);
  pz::core::limit_blas_threads(1);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "powerzoo " << pz::core::version() << " (" << pz::core::git_sha() << ")\n";
    return 0;
  }
  const std::string cmd = argv[1];
  const pz::cli::Args args(argv + 2, argv + argc);
  try {
    if (cmd == "run") return pz::cli::cmd_run(args);
    if (cmd == "eval") return pz::cli::cmd_eval(args);
    if (cmd == "envs") return pz::cli::cmd_envs(args);
    if (cmd == "cases") return pz::cli::cmd_cases(args);
    if (cmd == "grid") return pz::cli::cmd_grid(args);
    if (cmd == "baseline") return pz::cli::cmd_baseline(args);
    if (cmd == "rollout") return pz::cli::cmd_rollout(args);
    if (cmd == "sweep") return pz::cli::cmd_sweep(args);
    if (cmd == "summarize") return pz::cli::cmd_summarize(args);
    if (cmd == "bench") return pz::cli::cmd_bench(args);
    if (cmd == "validate") return pz::cli::cmd_validate(args);
    if (cmd == "config") return pz::cli::cmd_config(args);
    if (cmd == "keys") return pz::cli::cmd_keys(args);
    std::cerr << "powerzoo: unknown command '" << shown(cmd) << "'\n\n" << kUsage;
    return 2;
  } catch (const pz::cli::UsageError& e) {
    std::cerr << "powerzoo " << cmd << ": " << shown(e.message) << "\n(see `powerzoo " << cmd
              << " --help`)\n";
    return 2;
  } catch (const boost::program_options::error& e) {
    std::cerr << "powerzoo " << cmd << ": " << shown(e.what()) << "\n(see `powerzoo " << cmd
              << " --help`)\n";
    return 2;
  } catch (const pz::core::ConfigError& e) {
    std::cerr << "powerzoo " << cmd << ": error: " << shown(e.what()) << "\n";
    return 2;
  } catch (const pz::core::RunError& e) {
    std::cerr << "powerzoo " << cmd << ": run failed: " << shown(e.what()) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "powerzoo " << cmd << ": run failed: " << shown(e.what()) << "\n";
    return 1;
  }
}
