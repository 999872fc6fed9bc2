// `powerzoo summarize DIR`: per configuration mean, std and bootstrap 95 % CI over seeds.
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/report/summarize.hpp"
#include "powerzoo/exp/run/run_dir.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace pz::cli {

int cmd_summarize(const Args& args) {
  po::options_description opts(
      "usage: powerzoo summarize DIR [--metric NAME ...] [--split S] [--csv FILE]\n\n"
      "Finds every run.h5 under DIR (and the files of `powerzoo baseline --out` and `powerzoo\n"
      "eval --out`, listed as their own rows: kind baseline:<policy> and eval), groups runs by\n"
      "configuration (the resolved spec, with eval's overrides, checkpoint file name and\n"
      "episodes, without experiment.seed/name/out_dir and vec.threads, which changes no number;\n"
      "eval files of one checkpoint written one split per file are one seed) and prints, per\n"
      "metric at the last eval row, mean, std (ddof 0), IQM and a percentile-bootstrap 95 % CI\n"
      "of the mean over seeds (10,000 resamples, fixed rng seed 42). Runs that did not finish\n"
      "(run.h5 status running, failed or interrupted) are left out and listed. Writes\n"
      "DIR/summary.csv (or --csv FILE).\n\noptions");
  std::vector<std::string> metrics;
  std::string csv, split;
  opts.add_options()("help,h", "show this help")(
      "split", po::value<std::string>(&split),
      "eval split to summarize (default: the first of eval.splits)")(
      "metric,m", po::value<std::vector<std::string>>(&metrics)->composing(),
      "metrics/eval column (repeatable; default: return_mean, shaped_return_mean and every "
      "cost/* channel that is non-zero in some run)")(
      "csv", po::value<std::string>(&csv), "CSV file to write (default: DIR/summary.csv)")(
      "include-failed",
      "also count runs whose run.h5 says running, failed or interrupted (left out by default)");
  po::variables_map vm;
  std::vector<std::string> positional;
  if (!parse_command(args, opts, vm, positional)) return 0;
  check_path_option(vm, "csv");
  if (positional.size() != 1)
    throw UsageError{"expected one directory of runs, found " + std::to_string(positional.size()) +
                     " arguments"};
  const std::string dir = positional[0];
  if (!csv.empty())
    exp::RunDirectory::check_output_file(csv, "--csv", exp::RunDirectory::OutputKind::kSummaryCsv);
  if (!csv.empty()) {  // before the work: it used to fail with exit 1 after printing everything
    const fs::path parent = fs::absolute(fs::path(csv)).parent_path();
    if (!fs::is_directory(parent))
      throw UsageError{"--csv " + core::echo(csv) +
                       ": expected a file in an existing directory, "
                       "found no directory " +
                       core::echo(parent.string())};
  }
  for (size_t i = 0; i < metrics.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (metrics[i] == metrics[j])
        throw UsageError{"--metric: expected each metric once, found '" + core::echo(metrics[i]) +
                         "' twice"};
  std::vector<std::string> pending, unfinished;
  const bool include_failed = vm.count("include-failed") > 0;
  const auto runs = exp::find_runs(dir, &pending, &unfinished, include_failed);
  if (!unfinished.empty()) {
    std::cerr << "powerzoo summarize: note: " << unfinished.size()
              << (unfinished.size() == 1 ? " run did" : " runs did") << " not finish and "
              << (unfinished.size() == 1 ? "is" : "are")
              << " left out (--include-failed counts them):\n";
    for (const auto& u : unfinished) std::cerr << "  " << core::echo(u, 400) << "\n";
  }
  std::string waiting;
  for (const auto& p : pending) waiting += (waiting.empty() ? "" : ", ") + p;
  if (runs.empty())
    throw core::ConfigError(
        dir + ": expected run.h5 (or baseline) files with an evaluation below " + "it, found none" +
        (pending.empty() ? std::string() : " (no evaluation yet in " + waiting + ")") +
        (unfinished.empty() ? std::string()
                            : " (" + std::to_string(unfinished.size()) +
                                  " unfinished left out; --include-failed counts them)"));
  if (!pending.empty())
    std::cerr << "powerzoo summarize: note: " << pending.size()
              << (pending.size() == 1 ? " run has" : " runs have")
              << " no evaluation yet and are left out: " << waiting << std::endl;
  const auto s = exp::summarize_runs(runs, metrics, split);
  std::cout << runs.size() << " result files under " << dir << "\n" << exp::summary_table(s);
  if (csv.empty()) csv = (fs::path(dir) / "summary.csv").string();
  {
    const std::string tmp = csv + ".tmp";
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw core::RunError(csv + ": cannot write");
    out << exp::summary_csv(s);
    out.close();
    if (!out) throw core::RunError(csv + ": write failed");
    fs::rename(tmp, csv);
  }
  std::cout << "\nsummary: " << csv << std::endl;
  return 0;
}

}  // namespace pz::cli
