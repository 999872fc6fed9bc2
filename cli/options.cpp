// Shared option parsing for the subcommands.
#include "cli/options.hpp"

#include <algorithm>
#include <iostream>

#include "powerzoo/core/echo.hpp"

namespace po = boost::program_options;

namespace pz::cli {
namespace {

/// The text given to option `name` ("--rounds") in args, as `--rounds X` or `--rounds=X`.
std::string given_value(const Args& args, const std::string& name) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == name && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind(name + "=", 0) == 0) return args[i].substr(name.size() + 1);
  }
  return "";
}

/// "--rounds: expected an integer, found 'abc'" for a value Boost could not convert (its own
/// message names neither the expected type nor quotes the value as the other errors do).
std::string bad_value_message(const po::options_description& opts, const Args& args,
                              const std::string& name) {
  std::string expected = "a valid value";
  const size_t dashes = std::min(name.find_first_not_of('-'), name.size());
  if (const auto* d = opts.find_nothrow(name.substr(dashes), false)) {
    const auto* sem = d->semantic().get();
    if (dynamic_cast<const po::typed_value<int>*>(sem) ||
        dynamic_cast<const po::typed_value<long>*>(sem))
      expected = "an integer";
    else if (dynamic_cast<const po::typed_value<double>*>(sem))
      expected = "a number";
  }
  return name + ": expected " + expected + ", found '" + core::echo(given_value(args, name)) + "'";
}

}  // namespace

bool parse_command(const Args& args, const po::options_description& opts, po::variables_map& vm,
                   std::vector<std::string>& positional, bool print_help) {
  po::options_description hidden;
  hidden.add_options()("positional", po::value<std::vector<std::string>>(), "");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("positional", -1);
  // No guessing: an abbreviated or misspelt option (--thread) is an error, not another option.
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).style(style).run(), vm);
  } catch (const po::invalid_option_value& e) {
    throw UsageError{bad_value_message(opts, args, e.get_option_name())};
  }
  po::notify(vm);
  if (vm.count("help")) {
    if (print_help) std::cout << opts << "\n";
    return false;
  }
  positional.clear();
  if (vm.count("positional")) positional = vm["positional"].as<std::vector<std::string>>();
  return true;
}

void check_path_option(const boost::program_options::variables_map& vm, const char* name) {
  if (!vm.count(name)) return;
  const std::string& v = vm[name].as<std::string>();
  bool control = false;
  for (unsigned char c : v) control = control || c < 0x20 || c == 0x7f;
  if (v.empty() || control || !core::printable_utf8(v))
    throw UsageError{std::string("--") + name +
                     ": expected a path of printable characters, found " +
                     (v.empty() ? std::string("an empty one") : "'" + core::echo(v) + "'")};
}

void check_threads_option(int threads) {
  if (threads < 0 || threads > 1024)
    throw UsageError{"--threads: expected an integer in [0, 1024], found " +
                     std::to_string(threads)};
}

}  // namespace pz::cli
