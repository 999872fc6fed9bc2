// exp::RunDirectory: choice of a new directory, checkpoint resolution for eval, rotation of step
// checkpoints, and the resume rebuild of progress.csv.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/run/run_dir.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "test_util.hpp"

using namespace pz;
namespace fs = std::filesystem;

namespace {
std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
exp::RunFileHeader header() { return {{{"schema_version", "1"}}, {{"seed", 0}}, "x = 1\n"}; }
}  // namespace

TEST_SUITE("exp_run_dir") {
  TEST_CASE("choose: --out is used as is, never over an existing run") {
    const fs::path d = test::tmp_dir("rundir", "choose");
    const exp::Spec spec = exp::parse_spec("", "t.toml");
    CHECK(exp::RunDirectory::choose(spec, (d / "a").string(), false) == (d / "a").string());
    test::write(d / "f", "x");
    CHECK_THROWS_WITH_AS(exp::RunDirectory::choose(spec, (d / "f").string(), false),
                         doctest::Contains("expected a directory, found a file"),
                         core::ConfigError);
    fs::create_directories(d / "b");
    test::write(d / "b" / "run.h5", "");
    CHECK_THROWS_WITH_AS(exp::RunDirectory::choose(spec, (d / "b").string(), false),
                         doctest::Contains("found an existing run"), core::ConfigError);
    CHECK(exp::RunDirectory::choose(spec, (d / "b").string(), true) == (d / "b").string());
  }

  TEST_CASE("resolve_checkpoint prefers best.h5, else the newest step, and names what is missing") {
    const fs::path d = test::tmp_dir("rundir", "resolve");
    CHECK_THROWS_WITH_AS(exp::RunDirectory::resolve_checkpoint((d / "nope").string()),
                         doctest::Contains("not found"), core::ConfigError);
    CHECK_THROWS_WITH_AS(exp::RunDirectory::resolve_checkpoint(d.string()),
                         doctest::Contains("expected ckpt/best.h5 or ckpt/step_<n>.h5"),
                         core::ConfigError);
    fs::create_directories(d / "ckpt");
    test::write(d / "ckpt" / "step_90.h5", "");
    test::write(d / "ckpt" / "step_100.h5", "");
    CHECK(exp::RunDirectory::resolve_checkpoint(d.string()) ==
          (d / "ckpt" / "step_100.h5").string());
    CHECK(exp::RunDirectory::has_step_checkpoint(d.string()));
    test::write(d / "ckpt" / "best.h5", "");
    CHECK(exp::RunDirectory::resolve_checkpoint(d.string()) == (d / "ckpt" / "best.h5").string());
    CHECK(exp::RunDirectory::of_checkpoint((d / "ckpt" / "best.h5").string()) == d.string());
  }

  TEST_CASE("start fresh, rotate step checkpoints, resume drops later rows and checkpoints") {
    const fs::path d = test::tmp_dir("rundir", "start");
    {
      exp::RunDirectory dir(d.string());
      auto f = dir.start(header(), nullptr, 0);
      auto touch = [](const std::string& p) { test::write(p, "ck"); };
      for (long long s : {0, 10, 20, 30}) {
        dir.add_step_checkpoint(s, 2, touch);
        dir.progress_train({{"global_step", s},
                            {"wall_time", 0.5},
                            {"throughput/train_sps", 100},
                            {"episode_return", -1},
                            {"losses/actor", 0.25}});
      }
      dir.progress_eval({{"global_step", 30},
                         {"wall_time", 1.0},
                         {"return_mean", -2},
                         {"shaped_return_mean", -3},
                         {"cost/x", 7}});
      f.close();
    }
    CHECK_FALSE(fs::exists(d / "ckpt" / "step_10.h5"));
    CHECK(fs::exists(d / "ckpt" / "step_20.h5"));
    CHECK(fs::exists(d / "ckpt" / "step_30.h5"));
    const std::string progress = read_all(d / "progress.csv");
    // Every train scalar is a column; an evaluation fills its two and leaves the others empty.
    CHECK(progress.rfind(std::string(exp::RunDirectory::kProgressHeader) + ",losses/actor\n", 0) ==
          0);
    CHECK(progress.find("\n20,0.5,100,-1,,,0.25\n") != std::string::npos);
    CHECK(progress.find("\n30,1,,,-2,-3,\n") != std::string::npos);

    exp::MetricHistory h;
    h.train.push_back({{"global_step", 10}, {"losses/actor", 1.5}});
    h.train.push_back({{"global_step", 20}, {"losses/actor", 2.5}});
    h.eval.push_back({{"global_step", 0}, {"return_mean", -4}});
    h.eval.push_back({{"global_step", 20}, {"return_mean", -5}});
    exp::RunDirectory dir(d.string());
    auto f = dir.start(header(), &h, 20);
    f.close();
    CHECK(fs::exists(d / "ckpt" / "step_20.h5"));
    CHECK_FALSE(fs::exists(d / "ckpt" / "step_30.h5"));
    // Rewritten from the checkpoint's history, in the order the run wrote it.
    CHECK(read_all(d / "progress.csv") == std::string(exp::RunDirectory::kProgressHeader) +
                                              ",losses/actor\n0,,,,-4,,\n10,,,,,,1.5\n"
                                              "20,,,,,,2.5\n20,,,,-5,,\n");
    CHECK(io::list_group(dir.run_file(), "metrics").size() == 2);  // train and eval
  }

  // Guards resume after a kill that left progress.csv empty or cut in half a row: the resumed
  // file had rows without a header, and the next resume refused its own file.
  TEST_CASE("regression: resume rebuilds progress.csv with its header from the history") {
    const fs::path d = test::tmp_dir("rundir", "progress_kill");
    {
      exp::RunDirectory dir(d.string());
      auto f = dir.start(header(), nullptr, 0);
      f.close();
    }
    test::write((d / "progress.csv").string(), "10,0.5,100,-1,,\n20,0.5,100,-1,,\n3");
    CHECK_NOTHROW(exp::RunDirectory(d.string()).check_layout());  // its own file, headerless
    exp::MetricHistory h;
    h.train.push_back({{"global_step", 10}});
    exp::RunDirectory dir(d.string());
    auto f = dir.start(header(), &h, 20);
    f.close();
    CHECK(read_all(d / "progress.csv") ==
          std::string(exp::RunDirectory::kProgressHeader) + "\n10,,,,,\n");
    test::write((d / "progress.csv").string(), "a,b\n1,2\n");  // a user's file
    CHECK_THROWS_AS(exp::RunDirectory(d.string()).check_layout(), core::ConfigError);
  }
}
