// A run's data files: spec-relative paths work from any directory, their hashes are recorded,
// eval warns and --resume refuses when a file changed. Security: no writing through links out of
// the run or sweep directory; emitted SLURM scripts pass hostile values through unchanged.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/sha256.hpp"
#include "powerzoo/exp/spec/data_files.hpp"
#include "powerzoo/exp/sweep/sweep.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using pz::test::sh;

namespace {

fs::path tmp(const std::string& name) { return pz::test::tmp_dir("pz_data_files", name); }

const std::string kBin = PZ_BINARY;

const char* kSpec = R"([experiment]
name = "mine"
seed = 2
[env]
case = "data/mine.m"
horizon = 12
reward_scale = 1e-4
[vec]
n_envs = 4
[learner]
total_steps = 192
rollout_length = 12

[ppo]
n_minibatches = 2
hidden = [8, 8]
[eval]
every_steps = 96
n_episodes = 2
[output]
checkpoint_every_steps = 96
)";

}  // namespace

TEST_SUITE("exp_data_files") {
  TEST_CASE("a spec-relative case works from any directory; edits warn in eval, stop --resume") {
    const fs::path d = tmp("edit");
    fs::create_directories(d / "specs" / "data");
    const fs::path mine = d / "specs" / "data" / "mine.m";
    fs::copy_file(fs::path(PZ_SOURCE_DIR) / "data/cases/case5.m", mine);
    const std::string spec = pz::test::write(d / "specs" / "mine.toml", kSpec);
    const std::string out = (d / "run").string();
    // Started from / : the relative case is found next to the spec, not in the working directory.
    auto r = sh("cd / && " + kBin + " run " + spec + " --quiet --threads 1 --out " + out +
                " learner.total_steps=96");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string recorded = pz::io::read_string_attr(out + "/run.h5", "data_files");
    CHECK(recorded.find("env.case\t" + mine.string() + "\t" + pz::core::sha256_file(mine.string()) +
                        "\n") == 0);
    CHECK(recorded.find("env.profile\t") != std::string::npos);  // the bundled profile too
    CHECK(pz::io::read_string(out + "/run.h5", "config/resolved")
              .find("case = \"" + mine.string() + "\"") != std::string::npos);
    CHECK(pz::exp::data_file_changes(recorded, recorded).empty());
    // A damaged record or one for other keys is refused, not read leniently.
    CHECK_THROWS_WITH_AS(pz::exp::data_file_changes("garbage", recorded),
                         doctest::Contains("expected key<TAB>path<TAB>sha256"),
                         pz::core::ConfigError);
    CHECK_THROWS_WITH_AS(pz::exp::data_file_changes("", recorded),
                         doctest::Contains("expected the data files env.case, env.profile"),
                         pz::core::ConfigError);
    // Guards issue 36: a recorded file gone now (a moved scenario file: the spec as it reads now
    // skips it) is reported as missing, not as a record of other keys; one that is there is not
    // the spec's file.
    const std::string zeros(64, '0');
    CHECK(pz::exp::data_file_changes(
              recorded + "env.outages\t" + (d / "gone.csv").string() + "\t" + zeros + "\n",
              recorded) == "env.outages: " + (d / "gone.csv").string() +
                               " (sha256 000000000000… when recorded, missing or unreadable now)");
    CHECK_THROWS_WITH_AS(
        pz::exp::data_file_changes(recorded + "env.outages\t" + mine.string() + "\t" + zeros + "\n",
                                   recorded),
        doctest::Contains("expected the data files env.case, env.profile (those its spec reads), "
                          "found env.case, env.profile, env.outages"),
        pz::core::ConfigError);

    // Edit the case (one generator costs more): eval warns and records it, resume refuses.
    const std::string before = pz::test::read_text(mine);
    std::string after = before;
    after.replace(after.find("2\t0\t0\t2\t14\t0;"), 13, "2\t0\t0\t2\t19\t0;");
    std::ofstream(mine, std::ios::binary) << after;
    const std::string ckpt = out + "/ckpt/step_96.h5";
    r = sh(kBin + " eval " + ckpt + " --out " + (d / "e.h5").string());
    CHECK_MESSAGE(r.code == 0, r.out);
    CHECK(r.out.find(
              "warning: a data file changed since " + ckpt +
              " was written, so this is not the run's own evaluation: env.case: " + mine.string() +
              " (sha256 " + pz::core::sha256_hex(before).substr(0, 12) + "… when recorded, " +
              pz::core::sha256_hex(after).substr(0, 12) + "… now)") != std::string::npos);
    CHECK(pz::io::read_string_attr((d / "e.h5").string(), "data_changed_since_checkpoint")
              .starts_with("env.case: " + mine.string()));
    r = sh(kBin + " run " + spec + " --quiet --resume --out " + out);
    CHECK(r.code == 2);
    CHECK(r.out.find("--resume: a data file changed since " + ckpt +
                     " was written: env.case: " + mine.string()) != std::string::npos);
    CHECK(pz::io::read_column(out + "/run.h5", "metrics/train/global_step").back() == 96);
    // Restored, the run continues.
    std::ofstream(mine, std::ios::binary) << before;
    r = sh(kBin + " run " + spec + " --quiet --resume --out " + out);
    CHECK_MESSAGE(r.code == 0, r.out);
    CHECK(pz::io::read_column(out + "/run.h5", "metrics/train/global_step").back() == 192);
  }

  TEST_CASE("a run never writes through a symlink out of its directory") {
    const fs::path d = tmp("links");
    fs::create_directories(d / "data");
    fs::copy_file(fs::path(PZ_SOURCE_DIR) / "data/cases/case5.m", d / "data" / "mine.m");
    const std::string spec = pz::test::write(d / "mine.toml", kSpec);
    const fs::path outside = d / "outside";
    fs::create_directories(outside);
    const std::string precious = pz::test::write(outside / "precious.txt", "keep me\n");
    // run.h5 -> a file outside; ckpt -> a directory outside; eval/x.h5 -> a file outside.
    fs::create_directories(d / "r1");
    fs::create_symlink(precious, d / "r1" / "run.h5");
    auto r = sh(kBin + " run " + spec + " --quiet --resume --out " + (d / "r1").string());
    CHECK(r.code == 2);
    CHECK(r.out.find((d / "r1" / "run.h5").string() +
                     ": expected a file or directory of the run, found a symbolic link") !=
          std::string::npos);
    fs::create_directories(d / "r2");
    fs::create_symlink(outside, d / "r2" / "ckpt");
    r = sh(kBin + " run " + spec + " --quiet --out " + (d / "r2").string());
    CHECK(r.code == 2);
    CHECK(r.out.find("r2/ckpt: expected a file or directory of the run") != std::string::npos);
    CHECK(pz::test::read_text(precious) == "keep me\n");
    CHECK(fs::directory_iterator(outside)->path().filename() == "precious.txt");
    // A sweep whose trial directory is a link elsewhere.
    fs::create_directories(d / "sw");
    fs::create_symlink(outside, d / "sw" / "trial_0");
    r = sh(kBin + " sweep " + spec + " --out " + (d / "sw").string() + " --index 0");
    CHECK(r.code == 2);
    CHECK(r.out.find("sw/trial_0: expected a file or directory of the sweep, found a symbolic "
                     "link") != std::string::npos);
    CHECK(std::distance(fs::directory_iterator(outside), fs::directory_iterator()) == 1);
  }

  TEST_CASE("an emitted SLURM script passes hostile values to powerzoo byte for byte") {
    const fs::path d = tmp("slurm");
    // A stand-in for powerzoo that records its arguments, NUL-separated.
    const std::string fake = pz::test::write(d / "fake powerzoo's",
                                             "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$ARGV_FILE\"\n");
    fs::permissions(fake, fs::perms::owner_all);
    const std::string spec = (d / "my \"spec\" $(touch pwned1).toml").string();
    const std::vector<std::string> args = {
        "experiment.name=$(touch pwned2)", "ppo.learning_rate=1e-4;touch pwned3",
        "env.case=`touch pwned4`.m", "seed=1,2", "x='quoted' \"double\" \\back\nslash"};
    const std::string sweep = (d / "sweep dir; touch pwned5").string();
    const std::string script =
        pz::exp::slurm_script(fake, spec, args, sweep, "n$(touch pwned6)", 2, {});
    pz::test::write(d / "job.sh", script);
    const auto r =
        sh("cd " + d.string() + " && SLURM_ARRAY_TASK_ID=1 ARGV_FILE=" + (d / "argv").string() +
           " bash job.sh");
    CHECK_MESSAGE(r.code == 0, (r.out + "\n" + script));
    const std::string got = pz::test::read_text(d / "argv");
    std::vector<std::string> argv;
    for (size_t b = 0, e; (e = got.find('\0', b)) != std::string::npos; b = e + 1)
      argv.push_back(got.substr(b, e - b));
    std::vector<std::string> want = {"sweep", spec};
    want.insert(want.end(), args.begin(), args.end());
    for (const char* s : {"--out", "", "--index", "1", "--threads", "1"}) want.push_back(s);
    want[want.size() - 5] = sweep;
    CHECK(argv == want);
    for (int i = 1; i <= 6; ++i)
      for (const auto& e : fs::recursive_directory_iterator(d))
        CHECK_MESSAGE(e.path().filename().string().find("pwned" + std::to_string(i)) != 0,
                      e.path().string());
  }
}
