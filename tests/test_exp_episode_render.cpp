// exp/eval/episode_render: the cadence of pictures during training, the background drawing's
// command line and failures, and a run that draws its evaluations with plot_episode.py.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/eval/episode_render.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "test_util.hpp"

using namespace pz;
namespace fs = std::filesystem;

namespace {

// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(std::string n, const std::string& v) : name(std::move(n)) {
    setenv(name.c_str(), v.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const std::string kTiny = std::string(PZ_SOURCE_DIR) + "/tests/bad_inputs/specs/tiny.toml";

}  // namespace

TEST_SUITE("exp_episode_render") {
  TEST_CASE("pictures at the first evaluation, each passed multiple, and the final one") {
    // every 1000 steps, evaluations every 480 of a 5000-step run
    CHECK(exp::render_due(0, -480, 1000, 5000));       // first evaluation of the run
    CHECK_FALSE(exp::render_due(480, 0, 1000, 5000));  // no multiple of 1000 passed
    CHECK(exp::render_due(960, 480, 1000, 5000) == false);
    CHECK(exp::render_due(1440, 960, 1000, 5000));  // passed 1000
    CHECK_FALSE(exp::render_due(1920, 1440, 1000, 5000));
    CHECK(exp::render_due(2400, 1920, 1000, 5000));  // passed 2000
    CHECK(exp::render_due(5000, 4800, 1000, 5000));  // the final evaluation
    CHECK(exp::render_due(3000, 2999, 1000, 5000));  // exactly on a multiple
    CHECK_FALSE(exp::render_due(0, -480, 0, 5000));  // off
  }

  TEST_CASE(
      "the drawing runs plot_episode.py --all-splits in the background; failures are counted") {
    const fs::path d = test::tmp_dir("pz_render", "fake");
    // A stand-in drawing script: records its arguments, writes the picture when its directory's
    // code file says "draw", else exits with that code without drawing.
    test::write(d / "plot_episode.py",
                "import sys, pathlib\n"
                "p = pathlib.Path(sys.argv[0]).parent\n"
                "(p / 'args.txt').open('a').write(' '.join(sys.argv[1:]) + '\\n')\n"
                "code = (p / 'code').read_text()\n"
                "if code == 'draw':\n"
                "  png = 'episode_iid_step' + sys.argv[-1] + '_ep0.png'\n"
                "  (pathlib.Path(sys.argv[1]).parent / 'plots' / png).write_bytes(b'png')\n"
                "sys.exit(0 if code == 'draw' else int(code))\n");
    test::write(d / "code", "draw");
    const ScopedEnv scripts("POWERZOO_SCRIPTS", d.string());
    const fs::path run = d / "run";
    fs::create_directories(run);
    {
      exp::EpisodeRenderer r(run.string());
      r.draw(0);
      r.draw(480);  // waits for the first drawing
      CHECK(r.finish() == 0);
      test::write(d / "code", "3");
      r.draw(960);
      CHECK(r.finish() == 1);
      test::write(d / "code", "0");  // exits 0 but draws nothing: a failure too
      r.draw(1440);
      CHECK(r.finish() == 2);
    }
    const std::string run_h5 = (run / "run.h5").string();
    CHECK(slurp(d / "args.txt") == run_h5 + " --all-splits --eval-step 0\n" + run_h5 +
                                       " --all-splits --eval-step 480\n" + run_h5 +
                                       " --all-splits --eval-step 960\n" + run_h5 +
                                       " --all-splits --eval-step 1440\n");
    CHECK(fs::exists(run / "plots" / "episode_iid_step480_ep0.png"));
    CHECK(slurp(run / "plots" / "render.log").find("== evaluation at global step 960: ") !=
          std::string::npos);
  }

  TEST_CASE("a missing interpreter or script is bad input naming the key") {
    const fs::path d = test::tmp_dir("pz_render", "missing");
    {
      const ScopedEnv py("POWERZOO_PYTHON", (d / "no_python3").string());
      const std::string needle =
          "[eval] render_every_steps: draws with " + (d / "no_python3").string();
      CHECK_THROWS_WITH_AS(exp::check_render_tool(), doctest::Contains(needle.c_str()),
                           core::ConfigError);
    }
    {
      const ScopedEnv scripts("POWERZOO_SCRIPTS", d.string());
      CHECK_THROWS_WITH_AS(exp::check_render_tool(), doctest::Contains("found nothing there"),
                           core::ConfigError);
    }
    // An interpreter without matplotlib: its ImportError is quoted.
    test::write(d / "fake_python",
                "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'h5py'\" >&2\nexit 1\n");
    fs::permissions(d / "fake_python", fs::perms::owner_all);
    const ScopedEnv py("POWERZOO_PYTHON", (d / "fake_python").string());
    CHECK_THROWS_WITH_AS(exp::check_render_tool(),
                         doctest::Contains("found ModuleNotFoundError: No module named 'h5py'"),
                         core::ConfigError);
    CHECK_THROWS_AS(exp::validate_train(exp::load_spec(
                        kTiny, {"eval.every_steps=48", "eval.render_every_steps=48"})),
                    core::ConfigError);
  }

  TEST_CASE("a run with render_every_steps draws its evaluations into plots/") {
    if (test::sh("/usr/bin/python3 -c 'import h5py, matplotlib'").code != 0) {
      MESSAGE("python3-h5py or python3-matplotlib not installed; skipping");
      return;
    }
    const fs::path d = test::tmp_dir("pz_render", "run");
    auto spec = exp::load_spec(
        kTiny, {"learner.total_steps=144", "eval.every_steps=48", "eval.render_every_steps=96"});
    exp::TrainOptions opt;
    opt.out_dir = (d / "run").string();
    opt.quiet = true;
    const auto r = exp::train(spec, opt);
    const fs::path plots = d / "run" / "plots";
    // Evaluations at 0, 48, 96, 144: pictures at 0 (first), 96 (passed 96) and 144 (final).
    for (const int step : {0, 96, 144}) {
      const fs::path png = plots / ("episode_iid_step" + std::to_string(step) + "_ep0.png");
      CHECK_MESSAGE(fs::exists(png), png.string() << "\n" << slurp(plots / "render.log"));
      if (fs::exists(png)) CHECK(fs::file_size(png) > 10000);
    }
    CHECK_FALSE(fs::exists(plots / "episode_iid_step48_ep0.png"));
    // case5 is a grid: each drawing also has its network picture.
    int network = 0;
    for (const auto& e : fs::directory_iterator(plots))
      network += e.path().filename().string().find("_network_t") != std::string::npos;
    CHECK(network == 3);
    CHECK(io::read_string_attr(r.run_file, "status") == "finished");
    // Regression: a run directory with plots/ refused --resume ("which no run writes"). The
    // cadence may change on resume; the budget grows to 192.
    opt.resume = true;
    exp::train(exp::load_spec(kTiny, {"learner.total_steps=192", "eval.every_steps=48",
                                      "eval.render_every_steps=48"}),
               opt);
    CHECK(fs::exists(plots / "episode_iid_step192_ep0.png"));
    CHECK(io::read_string_attr(r.run_file, "status") == "finished");
    // Regression: plot_episode.py failed with IndexError on `powerzoo eval` files (their
    // trajectories have no step_<n> level).
    const std::string ev = (d / "e.h5").string();
    REQUIRE(test::sh(std::string(PZ_BINARY) + " eval " +
                     (d / "run" / "ckpt" / "step_192.h5").string() + " --episodes 2 --out " + ev)
                .code == 0);
    const auto p = test::sh("/usr/bin/python3 " PZ_SOURCE_DIR "/scripts/plot_episode.py " + ev +
                            " --all-splits");
    CHECK_MESSAGE(p.code == 0, p.out);
    CHECK(fs::exists(d / "plots" / "e_episode_iid_step192_ep0.png"));
  }
}
