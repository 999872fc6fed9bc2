// exp/run/eval_layout: every split under metrics/eval/<split>/, shared columns bare, and files of
// the older layout (the main split bare) read to the same flat names.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "powerzoo/exp/report/summarize.hpp"
#include "powerzoo/exp/run/eval_layout.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "test_util.hpp"

using namespace pz;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kSplits = {"iid", "load_stress"};

// A flat evaluation row as train() builds it: main split bare, load_stress prefixed.
std::map<std::string, double> flat_row(double step) {
  return {{"global_step", step},
          {"wall_time", 2.5},
          {"throughput/eval_sps", 900},
          {"return_mean", -1.0 - step},
          {"cost/voltage", 0.25},
          {"agent_return/battery_0", -0.5},
          {"load_stress/return_mean", -2.0 - step},
          {"load_stress/cost/voltage", 0.75}};
}

}  // namespace

TEST_SUITE("exp_eval_layout") {
  TEST_CASE("every split's columns go under its name; shared columns stay bare") {
    const auto row = exp::per_split_eval_row(flat_row(10), kSplits);
    const std::map<std::string, double> expected = {{"global_step", 10},
                                                    {"wall_time", 2.5},
                                                    {"throughput/eval_sps", 900},
                                                    {"iid/return_mean", -11},
                                                    {"iid/cost/voltage", 0.25},
                                                    {"iid/agent_return/battery_0", -0.5},
                                                    {"load_stress/return_mean", -12},
                                                    {"load_stress/cost/voltage", 0.75}};
    CHECK(row == expected);
    // Flat names and paths translate both ways; the old layout's paths are the flat names.
    const exp::EvalLayout per_split{true, kSplits}, old{};
    for (const auto& [flat, v] : flat_row(10)) {
      const std::string path = exp::eval_column_path(per_split, flat);
      CHECK_MESSAGE(row.count(path) == 1, flat);
      CHECK(exp::flat_eval_name(per_split, path) == flat);
      CHECK(exp::eval_column_path(old, flat) == flat);
      CHECK(exp::flat_eval_name(old, flat) == flat);
    }
    // A column whose first part only starts like a split's name stays in the main split.
    CHECK(exp::per_split_eval_row({{"load_stressed/x", 1}}, kSplits).count("iid/load_stressed/x"));
  }

  TEST_CASE("summarize reads the per-split layout and the older one to the same numbers") {
    const fs::path d = test::tmp_dir("eval_layout", "both");
    const std::string resolved =
        "[experiment]\nseed = 1\n[eval]\nsplits = [\"iid\", \"load_stress\"]\n";
    fs::create_directories(d / "new");
    fs::create_directories(d / "old");
    {
      auto f = io::RunFile::create(
          (d / "new" / "run.h5").string(),
          {{"status", "finished"}, {exp::kEvalSplitsAttr, "iid,load_stress"}}, {}, resolved);
      exp::append_eval_row(f, flat_row(10), kSplits);
      exp::append_eval_row(f, flat_row(20), kSplits);
      f.close();
      auto g = io::RunFile::create((d / "old" / "run.h5").string(), {{"status", "finished"}}, {},
                                   resolved);
      g.append_row("metrics/eval", flat_row(10));  // the layout before eval_splits
      g.append_row("metrics/eval", flat_row(20));
      g.close();
    }
    const std::string nf = (d / "new" / "run.h5").string();
    const exp::EvalLayout l = exp::read_eval_layout(nf);
    CHECK(l.per_split);
    CHECK(l.splits == kSplits);
    CHECK_FALSE(exp::read_eval_layout((d / "old" / "run.h5").string()).per_split);
    CHECK(io::read_column(nf, "metrics/eval/iid/return_mean") == std::vector<double>{-11, -21});
    CHECK(io::read_column(nf, "metrics/eval/global_step") == std::vector<double>{10, 20});
    CHECK(io::list_group(nf, "metrics/eval") ==
          std::vector<std::string>{"global_step", "iid", "load_stress", "throughput", "wall_time"});

    std::vector<std::string> pending, unfinished;
    const auto runs = exp::find_runs(d.string(), &pending, &unfinished);
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].last_eval == runs[1].last_eval);
    CHECK(runs[0].last_eval.at("return_mean") == -21);
    CHECK(runs[0].last_eval.at("load_stress/cost/voltage") == 0.75);
    const exp::Summary stress = exp::summarize_runs(runs, {}, "load_stress");
    CHECK(stress.configs.at(0).stats.at("load_stress/return_mean").mean == -22);
  }
}
