// Subcommand entry points of the powerzoo binary; each returns the process exit code.
#pragma once

#include <string>
#include <vector>

namespace pz::cli {

using Args = std::vector<std::string>;  // arguments after the subcommand name

int cmd_run(const Args& args);
int cmd_eval(const Args& args);
int cmd_envs(const Args& args);
int cmd_cases(const Args& args);
int cmd_grid(const Args& args);
int cmd_baseline(const Args& args);
int cmd_rollout(const Args& args);
int cmd_sweep(const Args& args);
int cmd_summarize(const Args& args);
int cmd_bench(const Args& args);
int cmd_validate(const Args& args);
int cmd_config(const Args& args);
int cmd_keys(const Args& args);

/// Thrown for bad command-line usage (exit code 2).
struct UsageError {
  std::string message;
};

}  // namespace pz::cli
