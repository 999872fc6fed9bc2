// Shared Boost.Program_options parsing for the subcommands (options plus positional arguments).
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace pz::cli {

/// Parses args against `opts` (which must contain "help,h") plus any number of positional
/// arguments, returned in `positional`. Returns false when --help is given (after printing `opts`
/// if print_help).
/// Throws boost::program_options::error on unknown or repeated options, and UsageError
/// ("--rounds: expected an integer, found 'abc'") on a value of the wrong type (both exit 2).
bool parse_command(const Args& args, const boost::program_options::options_description& opts,
                   boost::program_options::variables_map& vm, std::vector<std::string>& positional,
                   bool print_help = true);

/// Throws UsageError unless a given path option (`--out`, `--csv`) is non-empty printable text
/// without control characters: `--out ''` silently wrote to the default directory, and a newline
/// made a directory no run name may have.
void check_path_option(const boost::program_options::variables_map& vm, const char* name);

/// Throws UsageError unless `--threads` is in [0, 1024] (0 = all cores).
void check_threads_option(int threads);

}  // namespace pz::cli
