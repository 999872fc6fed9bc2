// `powerzoo validate`, `powerzoo config` and `powerzoo keys`: a spec checked, resolved and
// documented without training.
#include <boost/program_options.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/validate.hpp"

namespace po = boost::program_options;

namespace pz::cli {
namespace {

// SPEC.toml [key=value ...] of validate and config.
exp::Spec spec_from(const std::vector<std::string>& positional) {
  if (positional.empty()) throw UsageError{"expected a spec file (SPEC.toml), found none"};
  std::vector<std::string> overrides(positional.begin() + 1, positional.end());
  for (const auto& o : overrides)
    if (o.find('=') == std::string::npos)
      throw UsageError{"expected key=value overrides after the spec, found '" + core::echo(o) +
                       "'"};
  return exp::load_spec(positional[0], overrides);
}

}  // namespace

int cmd_validate(const Args& args) {
  po::options_description opts(
      "usage: powerzoo validate SPEC.toml [key=value ...]\n\n"
      "Checks everything `powerzoo run` checks before it trains (the spec and overrides, cases,\n"
      "profiles and data files, every split, the learner, safety channels and batching) and\n"
      "estimates the memory of the rollout and replay buffers against this machine's. Writes\n"
      "nothing. Exit 0 when `run` would start, 2 (with run's message) when it would not.\n\n"
      "options");
  opts.add_options()("help,h", "show this help");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  std::cout << exp::validate_spec(spec_from(positional));
  return 0;
}

int cmd_config(const Args& args) {
  po::options_description opts(
      "usage: powerzoo config SPEC.toml [key=value ...]\n\n"
      "Prints the fully resolved spec as TOML: every key of every section with its default\n"
      "filled in and the overrides applied (what run.h5 stores in /config/resolved).\n\noptions");
  opts.add_options()("help,h", "show this help");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  std::cout << exp::to_toml(spec_from(positional));
  return 0;
}

int cmd_keys(const Args& args) {
  po::options_description opts(
      "usage: powerzoo keys [SECTION] [--env ENV_OR_TASK] [--markdown]\n\n"
      "Every spec key with its kind, default, expected values and description, generated from\n"
      "the schema the spec reader uses. [env] keys are those of the default env, or of --env.\n"
      "--markdown prints the whole reference as docs/spec-reference.md holds it.\n\noptions");
  std::string env;
  opts.add_options()("help,h", "show this help")("env", po::value<std::string>(&env),
                                                 "env id or task whose [env] keys to list")(
      "markdown", "the full Markdown reference (docs/spec-reference.md)");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  if (positional.size() > 1)
    throw UsageError{"expected at most one section, found " + std::to_string(positional.size()) +
                     " arguments"};
  if (vm.count("markdown")) {
    if (!positional.empty() || vm.count("env"))
      throw UsageError{"--markdown prints the whole reference; expected no SECTION or --env"};
    std::cout << exp::spec_reference_markdown();
    return 0;
  }
  std::cout << exp::key_reference(env, positional.empty() ? "" : positional[0], false);
  return 0;
}

}  // namespace pz::cli
