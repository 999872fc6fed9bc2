// Tests for io/hdf5: run file metrics and arrays, string config, checkpoints, h5py readability.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/io/hdf5.hpp"

namespace fs = std::filesystem;
using pz::core::ConfigError;
using pz::io::RunFile;

namespace {

/// A fresh per-process scratch directory, removed at scope exit.
struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() /
          ("pz_test_io_hdf5_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

const char* kToml = "[experiment]\nname = \"t\"\nseed = 7\n# ünïcode\n";

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_SUITE("io_hdf5") {
  TEST_CASE("RunFile: metric rows, new columns back-filled, truncate, reopen") {
    TempDir tmp;
    const std::string path = tmp.file("run.h5");
    {
      RunFile rf = RunFile::create(path, {{"env_id", "trans_grid"}, {"git_sha", "abc"}},
                                   {{"seed", 7}, {"schema_version", 1}}, kToml);
      CHECK(rf.n_rows("metrics/train") == 0);
      rf.append_row("metrics/train", {{"global_step", 100}, {"loss", 1.5}});
      rf.append_row("metrics/train", {{"global_step", 200}, {"losses/actor", -0.25}});
      rf.append_row("metrics/train", {{"global_step", 300}, {"loss", 0.5}, {"losses/actor", 2}});
      CHECK(rf.n_rows("metrics/train") == 3);
      rf.flush();
      // Readable while the writer is open (same process shares the file).
      CHECK(pz::io::read_column(path, "metrics/train/global_step").size() == 3);
      rf.truncate_rows("metrics/train", 2);
      CHECK(rf.n_rows("metrics/train") == 2);
      CHECK_THROWS_AS(rf.truncate_rows("metrics/train", 5), pz::core::RunError);
      rf.close();
      rf.close();  // idempotent
    }
    auto step = pz::io::read_column(path, "metrics/train/global_step");
    CHECK(step == std::vector<double>{100, 200});
    auto loss = pz::io::read_column(path, "metrics/train/loss");
    REQUIRE(loss.size() == 2);
    CHECK(loss[0] == 1.5);
    CHECK(std::isnan(loss[1]));
    auto actor = pz::io::read_column(path, "metrics/train/losses/actor");
    REQUIRE(actor.size() == 2);
    CHECK(std::isnan(actor[0]));
    CHECK(actor[1] == -0.25);

    {
      RunFile rf = RunFile::open(path);
      CHECK(rf.n_rows("metrics/train") == 2);
      CHECK(rf.n_rows("metrics/eval") == 0);
      rf.append_row("metrics/train", {{"global_step", 300}, {"entropy", 0.1}});
      rf.append_row("metrics/eval", {{"return_mean", -3.0}});
      RunFile moved = std::move(rf);
      moved.flush();
    }
    step = pz::io::read_column(path, "metrics/train/global_step");
    CHECK(step == std::vector<double>{100, 200, 300});
    loss = pz::io::read_column(path, "metrics/train/loss");
    REQUIRE(loss.size() == 3);
    CHECK(std::isnan(loss[2]));
    auto ent = pz::io::read_column(path, "metrics/train/entropy");
    REQUIRE(ent.size() == 3);
    CHECK(std::isnan(ent[0]));
    CHECK(std::isnan(ent[1]));
    CHECK(ent[2] == 0.1);
    CHECK(pz::io::read_column(path, "metrics/eval/return_mean") == std::vector<double>{-3.0});

    CHECK(pz::io::read_string(path, "config/resolved") == kToml);
    CHECK_THROWS_AS(pz::io::read_column(path, "metrics/train/nope"), ConfigError);
    CHECK_THROWS_AS(pz::io::read_column(tmp.file("missing.h5"), "x"), ConfigError);
    CHECK_THROWS_AS(RunFile::open(tmp.file("missing.h5")), pz::core::RunError);
  }

  TEST_CASE("RunFile: write_f32 / write_u8 arrays, replace existing") {
    TempDir tmp;
    const std::string path = tmp.file("run.h5");
    RunFile rf = RunFile::create(path, {}, {}, "");
    std::vector<float> obs(4 * 3 * 2);
    for (size_t i = 0; i < obs.size(); ++i) obs[i] = 0.5f * static_cast<float>(i);
    rf.write_f32("trajectories/iid/step_0/obs", {4, 3, 2}, obs.data());
    std::vector<uint8_t> done = {0, 1, 0, 1};
    rf.write_u8("trajectories/iid/step_0/terminated", {4}, done.data());
    // Replacing with a different shape works.
    rf.write_f32("trajectories/iid/step_0/obs", {2, 2}, obs.data());
    std::vector<float> big(300000, 1.0f);  // larger than one chunk
    rf.write_f32("trajectories/big", {1000, 300}, big.data());
    rf.write_f32("trajectories/empty", {0, 3}, nullptr);
    rf.close();
    CHECK(pz::io::read_string(path, "config/resolved").empty());
  }

  TEST_CASE("RunFile::create_published: readers see complete copies; close leaves one file") {
    TempDir tmp;
    const std::string path = tmp.file("run.h5"), work = RunFile::working_path(path);
    CHECK(work == tmp.file(".run.h5.writing"));
    RunFile rf = RunFile::create_published(path, {{"k", "v"}}, {}, kToml, 1e9);
    CHECK(pz::io::read_string(path, "config/resolved") == kToml);  // published at once
    rf.append_row("metrics/train", {{"global_step", 1.0}});
    rf.flush();  // not due (1e9 s): the published copy has no row yet
    CHECK(pz::io::list_group(path, "metrics").empty());
    rf.publish();
    CHECK(pz::io::read_column(path, "metrics/train/global_step") == std::vector<double>{1.0});
    rf.append_row("metrics/train", {{"global_step", 2.0}});
    rf.close();
    CHECK(pz::io::read_column(path, "metrics/train/global_step") == std::vector<double>{1, 2});
    CHECK_FALSE(fs::exists(work));
    for (const auto& e : fs::directory_iterator(tmp.dir))
      CHECK_MESSAGE(e.path().filename() == "run.h5", e.path().string());
  }

  TEST_CASE("checkpoint round trip is bitwise exact and atomic") {
    TempDir tmp;
    const std::string path = tmp.file("step_100.h5");
    pz::core::StateDict sd;
    sd.f32["actor/l0/w"] = {1.0f, -0.0f, std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(), 3.14159265f};
    sd.f32["empty"] = {};
    sd.f64["normalizer/mean"] = {0.1, 1e-300, -2.5, std::numeric_limits<double>::max()};
    sd.i64["counters/global_step"] = {100, std::numeric_limits<int64_t>::min(),
                                      std::numeric_limits<int64_t>::max()};
    sd.str["rng/env/3"] = "12345 67890 state text";
    sd.str["rng/learner"] = "";
    const std::string resolved = "[ppo]\nlearning_rate = 0.0003\n";
    pz::io::write_checkpoint(path, sd, resolved);

    CHECK(fs::exists(path));
    for (const auto& e : fs::directory_iterator(tmp.dir)) {
      CHECK_MESSAGE(e.path().string().find(".tmp.") == std::string::npos, e.path().string());
    }
    std::string back_toml;
    pz::core::StateDict back = pz::io::read_checkpoint(path, &back_toml);
    CHECK(back_toml == resolved);
    REQUIRE(back.f32.size() == sd.f32.size());
    for (const auto& [k, v] : sd.f32) {
      REQUIRE(back.f32.count(k));
      REQUIRE(back.f32[k].size() == v.size());
      CHECK(
          (v.empty() || std::memcmp(back.f32[k].data(), v.data(), v.size() * sizeof(float)) == 0));
    }
    REQUIRE(back.f64.size() == 1);
    for (size_t i = 0; i < sd.f64["normalizer/mean"].size(); ++i) {
      CHECK(same_bits(back.f64["normalizer/mean"][i], sd.f64["normalizer/mean"][i]));
    }
    CHECK(back.i64 == sd.i64);
    CHECK(back.str == sd.str);

    // Overwriting an existing checkpoint replaces it.
    sd.i64["counters/global_step"] = {200};
    pz::io::write_checkpoint(path, sd, resolved);
    CHECK(pz::io::read_checkpoint(path, nullptr).i64.at("counters/global_step") ==
          std::vector<int64_t>{200});

    // A float32 entry (a learner tensor) holding a NaN or Inf is never written (the reader
    // refuses one by name, see the bad-input catalogue); the checkpoint at `path` stays as it was.
    sd.f32["actor/l0/w"][3] = std::numeric_limits<float>::infinity();
    try {
      pz::io::write_checkpoint(path, sd, resolved);
      FAIL("a non-finite float32 value was written");
    } catch (const pz::core::RunError& e) {
      CHECK(std::string(e.what()).find("entry 'actor/l0/w' holds a non-finite value (inf at "
                                       "index 3)") != std::string::npos);
    }
    sd.f32["actor/l0/w"][3] = 1.0f;
    CHECK(pz::io::read_checkpoint(path, nullptr).i64.at("counters/global_step") ==
          std::vector<int64_t>{200});

    // Failure (unwritable directory) leaves no temp file behind and throws RunError.
    CHECK_THROWS_AS(pz::io::write_checkpoint(tmp.file("nodir/ckpt.h5"), sd, resolved),
                    pz::core::RunError);
    // A string with a NUL cannot be stored; the temp file is removed.
    pz::core::StateDict bad;
    bad.str["x"] = std::string("a\0b", 3);
    CHECK_THROWS_AS(pz::io::write_checkpoint(tmp.file("bad.h5"), bad, ""), pz::core::RunError);
    for (const auto& e : fs::directory_iterator(tmp.dir)) {
      CHECK_MESSAGE(e.path().string().find(".tmp.") == std::string::npos, e.path().string());
    }
    CHECK_FALSE(fs::exists(tmp.file("bad.h5")));
  }

  TEST_CASE("read_checkpoint rejects missing and non-checkpoint files") {
    TempDir tmp;
    CHECK_THROWS_AS(pz::io::read_checkpoint(tmp.file("none.h5"), nullptr), ConfigError);
    const std::string run = tmp.file("run.h5");
    RunFile::create(run, {}, {}, "x").close();
    CHECK_THROWS_AS(pz::io::read_checkpoint(run, nullptr), ConfigError);
    const std::string text = tmp.file("text.h5");
    std::FILE* f = std::fopen(text.c_str(), "w");
    std::fputs("not hdf5", f);
    std::fclose(f);
    CHECK_THROWS_AS(pz::io::read_checkpoint(text, nullptr), ConfigError);
  }

  TEST_CASE("h5py can read config and metric columns") {
    if (std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") != 0) {
      MESSAGE("h5py not available for /usr/bin/python3; skipping the h5py check");
      return;
    }
    TempDir tmp;
    const std::string path = tmp.file("run.h5");
    {
      RunFile rf = RunFile::create(path, {{"env_id", "trans_grid"}}, {{"seed", 7}}, kToml);
      rf.append_row("metrics/train", {{"global_step", 1}, {"losses/actor", 0.5}});
      rf.append_row("metrics/train", {{"global_step", 2}, {"losses/actor", 0.25}});
      std::vector<uint8_t> done = {0, 1, 1};
      rf.write_u8("trajectories/terminated", {3}, done.data());
    }
    const std::string expected_path = tmp.file("expected.toml");
    {
      std::FILE* ef = std::fopen(expected_path.c_str(), "w");
      std::fputs(kToml, ef);
      std::fclose(ef);
    }
    const std::string script =
        "import h5py, sys\n"
        "want = open(sys.argv[2], encoding='utf-8').read()\n"
        "f = h5py.File(sys.argv[1], 'r')\n"
        "assert f['config/resolved'][()].decode() == want, f['config/resolved'][()]\n"
        "assert f['config/resolved'].asstr()[()] == want\n"
        "assert list(f['metrics/train/global_step'][:]) == [1.0, 2.0]\n"
        "assert list(f['metrics/train/losses/actor'][:]) == [0.5, 0.25]\n"
        "assert f['metrics/train/global_step'].maxshape == (None,)\n"
        "assert f.attrs['env_id'] == 'trans_grid', f.attrs['env_id']\n"
        "assert int(f.attrs['seed']) == 7\n"
        "assert list(f['trajectories/terminated'][:]) == [0, 1, 1]\n";
    const std::string script_path = tmp.file("check.py");
    {
      std::FILE* sf = std::fopen(script_path.c_str(), "w");
      std::fputs(script.c_str(), sf);
      std::fclose(sf);
    }
    const std::string run =
        "/usr/bin/python3 '" + script_path + "' '" + path + "' '" + expected_path + "'";
    CHECK(std::system(run.c_str()) == 0);
  }
}
