// Non-finite values from a learner (learning_rate 10) or an env (a reward scale that overflows
// float): the run stops with exit 1 naming env, step and quantity, writes nothing non-finite, and
// leaves a checkpoint from before the fault that --resume continues from.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "powerzoo/io/hdf5.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using pz::test::sh;

namespace {

const std::string kBin = PZ_BINARY;
const std::string kSpec = std::string(PZ_SOURCE_DIR) + "/tests/bad_inputs/specs/tiny.toml";

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

TEST_SUITE("exp_nonfinite") {
  TEST_CASE("learning_rate 10: stopped at the first non-finite action, resumable from before it") {
    const fs::path d = pz::test::tmp_dir("pz_nonfinite", "lr");
    const std::string out = (d / "run").string();
    const std::string cmd =
        kBin + " run " + kSpec + " ppo.learning_rate=10 learner.total_steps=2000 --quiet --out " + out;
    const auto r = sh(cmd);
    CHECK(r.code == 1);
    CHECK(r.out.find("run failed: non-finite action from the learner for env ") !=
          std::string::npos);
    const std::string note = "the newest checkpoint, " + out +
                             "/ckpt/step_96.h5 (global step 96)"
                             ", is from before the fault: the same command with --resume "
                             "continues from it)";
    CHECK_MESSAGE(r.out.find("at global step 96: action[") != std::string::npos, r.out);
    CHECK(r.out.find(note) != std::string::npos);
    // The checkpoint reads back (no non-finite tensor in it) and run.h5 holds only finite rows.
    std::string resolved;
    const auto sd = pz::io::read_checkpoint(out + "/ckpt/step_96.h5", &resolved);
    CHECK(sd.i64.at("counters/global_step") == std::vector<int64_t>{96});
    const auto steps = pz::io::read_column(out + "/run.h5", "metrics/train/global_step");
    CHECK(steps.back() == 96);
    CHECK(all_finite(pz::io::read_column(out + "/run.h5", "metrics/train/losses/actor")));
    CHECK_FALSE(fs::exists(out + "/ckpt/step_144.h5"));
    // Resuming continues from step 96 and meets the same fault at the same place.
    const auto again = sh(cmd + " --resume");
    CHECK(again.code == 1);
    CHECK(again.out == r.out);
  }

  TEST_CASE("a reward scale that overflows float: env 0, step 0, the reward named") {
    const fs::path d = pz::test::tmp_dir("pz_nonfinite", "reward");
    const std::string out = (d / "run").string();
    const auto r = sh(kBin + " run " + kSpec + " env.reward_scale=1e40 --quiet --out " + out);
    CHECK(r.code == 1);
    CHECK(r.out.find("run failed: non-finite reward from env 0 at global step 0: reward = -inf "
                     "(run stopped at global step 0, iteration 0; the newest checkpoint, " +
                     out + "/ckpt/step_0.h5 (global step 0), is from before the fault") !=
          std::string::npos);
    CHECK(pz::io::list_group(out + "/run.h5", "metrics/train").empty());  // no row written
    CHECK(pz::io::read_string(out + "/run.h5", "config/resolved").find("reward_scale = 1e+40") !=
          std::string::npos);
  }
}
