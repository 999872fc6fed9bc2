// End-to-end tests of the powerzoo binary: determinism across threads, eval of a checkpoint,
// HDF5 readable from h5py, and bad input (exit code 2, nothing written).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "powerzoo/io/hdf5.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

using pz::test::sh;
using pz::test::write;

namespace {

fs::path tmp_dir(const std::string& name) { return pz::test::tmp_dir("pz_cli", name); }

const std::string kTinySpec = pz::test::tiny_case5_spec();

const std::string kBin = PZ_BINARY;

}  // namespace

TEST_SUITE("cli") {
  TEST_CASE("same spec with threads = 1 and threads = 2 gives byte-identical metrics") {
    const fs::path d = tmp_dir("det");
    const auto spec = write(d / "tiny.toml", kTinySpec);
    const auto r1 = sh(kBin + " run " + spec + " --quiet --threads 1 --out " + (d / "t1").string());
    const auto r2 = sh(kBin + " run " + spec + " --quiet --threads 2 --out " + (d / "t2").string());
    REQUIRE_MESSAGE(r1.code == 0, r1.out);
    REQUIRE_MESSAGE(r2.code == 0, r2.out);
    const std::string f1 = (d / "t1" / "run.h5").string(), f2 = (d / "t2" / "run.h5").string();
    int compared = 0;
    for (const std::string col :
         {"global_step", "losses/actor", "losses/critic", "losses/critic_R^2", "grad_norm",
          "rollout/reward_mean", "rollout/cost_power_balance", "episode_return"}) {
      const auto a = pz::io::read_column(f1, "metrics/train/" + col);
      const auto b = pz::io::read_column(f2, "metrics/train/" + col);
      REQUIRE(a.size() == 20);  // 960 steps / (4 envs x 12 steps)
      CHECK_MESSAGE(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0, col);
      ++compared;
    }
    for (const std::string col : {"return_mean", "shaped_return_mean", "cost/power_balance"}) {
      const auto a = pz::io::read_column(f1, "metrics/eval/iid/" + col);
      const auto b = pz::io::read_column(f2, "metrics/eval/iid/" + col);
      REQUIRE(a.size() == 3);  // step 0, 480, 960
      CHECK_MESSAGE(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0, col);
    }
    CHECK(compared == 8);
    // /config/resolved records the thread count the run used (it recorded vec.threads, 0).
    CHECK(pz::io::read_string(f1, "config/resolved").find("threads = 1\n") != std::string::npos);
    CHECK(pz::io::read_string(f2, "config/resolved").find("threads = 2\n") != std::string::npos);
    CHECK(fs::exists(d / "t1" / "ckpt" / "best.h5"));
    CHECK(fs::exists(d / "t1" / "ckpt" / "step_960.h5"));
    CHECK(fs::exists(d / "t1" / "progress.csv"));

    // Evaluating the final checkpoint twice gives the same numbers and its own file.
    const auto e1 = sh(kBin + " eval " + (d / "t1" / "ckpt" / "step_960.h5").string() +
                       " --split iid --episodes 3 --out " + (d / "e1.h5").string());
    const auto e2 = sh(kBin + " eval " + (d / "t1" / "ckpt" / "step_960.h5").string() +
                       " --split iid --episodes 3 --out " + (d / "e2.h5").string());
    REQUIRE_MESSAGE(e1.code == 0, e1.out);
    REQUIRE_MESSAGE(e2.code == 0, e2.out);
    const auto x1 = pz::io::read_column((d / "e1.h5").string(), "metrics/eval/iid/return_mean");
    const auto x2 = pz::io::read_column((d / "e2.h5").string(), "metrics/eval/iid/return_mean");
    REQUIRE(x1.size() == 1);
    CHECK(x1 == x2);
    // The training run's last eval (same checkpoint, same episodes) agrees with `powerzoo eval`.
    const auto last = pz::io::read_column(f1, "metrics/eval/iid/return_mean");
    CHECK(x1[0] == doctest::Approx(last.back()).epsilon(1e-12));
    // Regression (fresh-user pass): without --episodes eval used 16, not the run's
    // eval.n_episodes; a --split typo was blamed on a line of the checkpoint's stored spec.
    const std::string ck = (d / "t1" / "ckpt" / "step_960.h5").string();
    const auto e3 = sh(kBin + " eval " + ck + " --out " + (d / "e3.h5").string());
    REQUIRE_MESSAGE(e3.code == 0, e3.out);
    CHECK(e3.out.find("3 episodes") != std::string::npos);
    const auto bad = sh(kBin + " eval " + ck + " --split iidd --out " + (d / "e4.h5").string());
    CHECK(bad.code == 2);
    CHECK(bad.out.find("--split: expected one of train, iid") != std::string::npos);
    CHECK(bad.out.find("did you mean 'iid'") != std::string::npos);
    CHECK_FALSE(fs::exists(d / "e4.h5"));
  }

  TEST_CASE("baseline --split evaluates one split and refuses an unknown one") {
    const auto b = sh(kBin + " baseline experiments/ders_ippo_short.toml --policy no_control " +
                      "--split load_stress --episodes 1 --threads 1");
    REQUIRE_MESSAGE(b.code == 0, b.out);
    CHECK(b.out.find("on split load_stress, 1 episode") != std::string::npos);
    CHECK(b.out.find("on split iid") == std::string::npos);
    const auto bad = sh(kBin + " baseline experiments/ders_ippo_short.toml --policy no_control " +
                        "--split load_stres --episodes 1");
    CHECK(bad.code == 2);
    CHECK_MESSAGE(bad.out.find("--split: expected one of ") != std::string::npos, bad.out);
    CHECK_MESSAGE(
        bad.out.find("found 'load_stres' (did you mean 'load_stress'?)") != std::string::npos,
        bad.out);
  }

  TEST_CASE("eval of a minibatch IPPO checkpoint (regression: refused its 1-env columns)") {
    // IPPO checks that n_minibatches divides n_envs x agents; eval builds the learner for one env,
    // so every checkpoint of ders_ippo_minibatch*.toml (8 minibatches) was refused with exit 2.
    const fs::path d = tmp_dir("eval_ippo_mb");
    const auto r = sh(kBin + " run experiments/ders_ippo_minibatch_short.toml " +
                      "learner.total_steps=3072 vec.n_envs=16 eval.every_steps=3072 " +
                      "eval.n_episodes=2 output.checkpoint_every_steps=3072 --quiet --threads 1 " +
                      "--out " + (d / "run").string());
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string ck = (d / "run" / "ckpt" / "step_3072.h5").string();
    const auto e = sh(kBin + " eval " + ck + " --split iid --out " + (d / "e.h5").string());
    REQUIRE_MESSAGE(e.code == 0, e.out);
    const auto x = pz::io::read_column((d / "e.h5").string(), "metrics/eval/iid/mean_p_loss_mw");
    const auto last =
        pz::io::read_column((d / "run" / "run.h5").string(), "metrics/eval/iid/mean_p_loss_mw");
    REQUIRE(x.size() == 1);
    CHECK(x[0] > 0.1);
    CHECK(x[0] == doctest::Approx(last.back()).epsilon(1e-12));
  }

  // The test binary registers test envs of its own: the shipped text comes from the shipped binary.
  TEST_CASE("docs/spec-reference.md is what `powerzoo keys --markdown` prints") {
    const fs::path d = tmp_dir("keys_md");
    const auto r = sh(kBin + " keys --markdown > " + (d / "ref.md").string());
    REQUIRE(r.code == 0);
    auto slurp = [](const fs::path& p) {
      std::ifstream in(p);
      std::stringstream t;
      t << in.rdbuf();
      return t.str();
    };
    const std::string shipped = slurp("docs/spec-reference.md");
    REQUIRE_FALSE(shipped.empty());
    CHECK_MESSAGE(shipped == slurp(d / "ref.md"),
                  "regenerate it: build/powerzoo keys --markdown > docs/spec-reference.md");
  }

  TEST_CASE("run.h5 is readable with Debian's python3-h5py") {
    if (sh("/usr/bin/python3 -c 'import h5py'").code != 0) {
      MESSAGE("python3-h5py not installed; skipping the h5py check");
      return;
    }
    const fs::path d = tmp_dir("h5py");
    const auto spec = write(d / "tiny.toml", kTinySpec);
    REQUIRE(sh(kBin + " run " + spec + " --quiet --out " + (d / "r").string()).code == 0);
    const auto py = sh(
        "/usr/bin/python3 -c \"import h5py; f = h5py.File('" + (d / "r" / "run.h5").string() +
        "', 'r'); cfg = f['config/resolved'][()].decode(); gs = f['metrics/train/global_step'][:]; "
        "er = f['metrics/eval/iid/return_mean'][:]; assert 'case5' in cfg and 'tiny' in cfg; "
        "print(len(gs), int(gs[-1]), len(er), f.attrs['env_id'])\"");
    CHECK_MESSAGE(py.code == 0, py.out);
    CHECK(py.out.find("20 960 3 trans_grid") != std::string::npos);

    // Eval trajectories [T, K, ...] by default; the latest training rollout with train-sample.
    const auto traj =
        sh("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + (d / "r" / "run.h5").string() +
           "', 'r'); g = f['trajectories/iid/step_960']; print(g['obs'].shape, "
           "g['costs'].shape, int(g['truncated'][:].sum()), g['final_obs'].shape, "
           "g['info/unit_p_mw'].shape, g['info/branch_p_mw'].shape, "
           "list(f['network/bus_id'][:]), list(f['network/branch_to_bus'][:]))\"");
    // case5: 5 units, 6 branches (1-2 1-4 1-5 2-3 3-4 4-5) between buses 1..5.
    CHECK_MESSAGE(traj.out.find("(12, 3, 16) (12, 3, 4) 3 (3, 16) (12, 3, 5) (12, 3, 6) "
                                "[1, 2, 3, 4, 5] [2, 4, 5, 3, 4, 5]") != std::string::npos,
                  traj.out);
    REQUIRE(sh(kBin + " run " + spec + " output.trajectories=train-sample --quiet --out " +
               (d / "s").string())
                .code == 0);
    const auto ts =
        sh("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + (d / "s" / "run.h5").string() +
           "', 'r'); g = f['trajectories/train/step_480']; print(g['obs'].shape, "
           "g['action'].shape, g['reward'].dtype, 'iid' in f['trajectories'])\"");
    CHECK_MESSAGE(ts.out.find("(12, 4, 16) (12, 4, 5) float32 False") != std::string::npos, ts.out);
  }

  TEST_CASE(
      "baseline --out records each split's episodes and the feeder; plot_episode draws them") {
    if (sh("/usr/bin/python3 -c 'import h5py, matplotlib'").code != 0) {
      MESSAGE("python3-h5py or python3-matplotlib not installed; skipping");
      return;
    }
    const fs::path d = tmp_dir("baseline_traj");
    const std::string out = (d / "droop.h5").string();
    const auto b =
        sh(kBin + " baseline experiments/ders_ippo_short.toml --policy volt_droop " +
           "'eval.splits=[\"iid\", \"load_stress\", \"train\"]' --episodes 2 --threads 1 --out " +
           out);
    REQUIRE_MESSAGE(b.code == 0, b.out);
    const auto py = sh("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + out +
                       "', 'r'); g = f['trajectories/load_stress/step_0']; print(g['obs'].shape, "
                       "g['final_obs'].shape, g['info/bus_vm_pu'].shape, "
                       "g['info/battery_soc_frac'].shape, len(f['network/bus_id']), "
                       "f.attrs['env_id'])\"");
    CHECK_MESSAGE(py.out.find("(48, 2, 180) (2, 180) (48, 2, 141) (48, 2, 4) 141 dist_grid_marl") !=
                      std::string::npos,
                  py.out);
    const auto png = (d / "ep.png").string();
    const auto plot = sh("/usr/bin/python3 scripts/plot_episode.py " + out +
                         " --split load_stress --episode 1 --step 30 --out " + png);
    REQUIRE_MESSAGE(plot.code == 0, plot.out);
    CHECK(fs::file_size(png) > 10000);
    CHECK(fs::file_size(d / "ep_network_t30.png") > 10000);
    // A bad --step is refused before any picture is written.
    const auto bad = sh("/usr/bin/python3 scripts/plot_episode.py " + out + " --step 48");
    CHECK(bad.code == 2);
    CHECK_MESSAGE(bad.out.find("--step 48: expected an integer in [0, 47]") != std::string::npos,
                  bad.out);
    CHECK_FALSE(fs::exists(d / "plots"));
    // Without --out, a file's pictures carry its name (files side by side keep theirs).
    const auto def = sh("/usr/bin/python3 scripts/plot_episode.py " + out + " --split train");
    REQUIRE_MESSAGE(def.code == 0, def.out);
    CHECK(fs::exists(d / "plots" / "droop_episode_train_step0_ep0.png"));
    // --all-splits draws every eval split, one named "train" included.
    fs::remove(d / "plots" / "droop_episode_train_step0_ep0.png");
    const auto all = sh("/usr/bin/python3 scripts/plot_episode.py " + out + " --all-splits");
    REQUIRE_MESSAGE(all.code == 0, all.out);
    for (const char* s : {"iid", "load_stress", "train"})
      CHECK(fs::exists(d / "plots" / ("droop_episode_" + std::string(s) + "_step0_ep0.png")));
  }

  TEST_CASE("bad input exits with code 2, names the problem and writes nothing") {
    const fs::path d = tmp_dir("bad");
    const std::string out = (d / "out").string();
    auto expect_bad = [&](const std::string& spec_text, const std::string& needle,
                          const std::string& extra = "") {
      const auto spec = write(d / "bad.toml", spec_text);
      const auto r = sh(kBin + " run " + spec + " --quiet --out " + out + " " + extra);
      CHECK_MESSAGE(r.code == 2, r.out);
      CHECK_MESSAGE(r.out.find(needle) != std::string::npos,
                    "expected '" << needle << "' in: " << r.out);
      CHECK_FALSE(fs::exists(out));
    };
    const std::string base = kTinySpec;
    auto with = [&](const std::string& from, const std::string& to) {
      std::string s = base;
      s.replace(s.find(from), from.size(), to);
      return s;
    };
    expect_bad(with("rollout_length = 12", "rollout_lenght = 12"), "rollout_length");
    expect_bad(with("n_envs = 4", "n_envs = -4"), "n_envs");
    expect_bad(with("n_envs = 4", "n_envs = \"four\""), "n_envs");
    expect_bad(with("case = \"case5\"", "case = \"" + (d / "missing.m").string() + "\""),
               "missing.m");
    // A truncated .m file: the bus matrix is never closed.
    std::ifstream in(std::string(PZ_SOURCE_DIR) + "/data/cases/case5.m");
    std::string m((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    write(d / "cut.m", m.substr(0, m.find("mpc.gen")));
    expect_bad(with("case = \"case5\"", "case = \"" + (d / "cut.m").string() + "\""), "cut.m");
    // A profile CSV with a malformed row.
    write(d / "bad.csv", "startTime,Actual\n2025-04-01T00:00:00Z,100\n2025-04-01T00:30:00Z,1x0\n");
    expect_bad(with("case = \"case5\"",
                    "case = \"case5\"\nprofile = \"" + (d / "bad.csv").string() + "\""),
               "bad.csv:3");
    expect_bad(with("power_balance = 0.02", "power_balanse = 0.02"), "power_balance");
    expect_bad(base, "ppo.lerning_rate", "ppo.lerning_rate=1e-3");
    const auto r = sh(kBin + " run " + (d / "nope.toml").string());
    CHECK(r.code == 2);
    CHECK(r.out.find("nope.toml") != std::string::npos);
    CHECK(sh(kBin + " frobnicate").code == 2);
    // Regression: hostile inputs found by a fresh-user pass.
    write(d / "empty.toml", "");
    auto e = sh(kBin + " run " + (d / "empty.toml").string() + " --out " + out);
    CHECK(e.code == 2);
    CHECK(e.out.find("empty file") != std::string::npos);
    e = sh(kBin + " run " + d.string() + " --out " + out);
    CHECK(e.code == 2);
    CHECK(e.out.find("directory") != std::string::npos);
    const auto good = write(d / "good.toml", kTinySpec);
    CHECK(sh(kBin + " run " + good + " --threads -1 --out " + out).code == 2);
    CHECK(sh(kBin + " run " + good + " --threads 100000 --out " + out).code == 2);
    CHECK_FALSE(fs::exists(out));
    CHECK(sh(kBin + " run " + good + " --out " + good).code == 2);  // --out is a file
    // An existing run directory is never overwritten.
    REQUIRE(sh(kBin + " run " + good + " --quiet learner.total_steps=48 eval.every_steps=0 --out " +
               out)
                .code == 0);
    const auto before = fs::last_write_time(fs::path(out) / "run.h5");
    const auto again = sh(kBin + " run " + good + " --quiet --out " + out);
    CHECK(again.code == 2);
    CHECK(again.out.find("existing run") != std::string::npos);
    CHECK(fs::last_write_time(fs::path(out) / "run.h5") == before);
    CHECK(sh(kBin + " run --threads x " + (d / "bad.toml").string()).code == 2);
  }

  // Regression: a total_steps that is not a whole number of iterations was rounded up silently.
  TEST_CASE("the banner says when total_steps rounds up to whole iterations") {
    const fs::path d = tmp_dir("round");
    const auto spec = write(d / "tiny.toml", kTinySpec);
    const auto r = sh(kBin + " run " + spec + " learner.total_steps=50 eval.every_steps=0 --out " +
                      (d / "r").string());
    REQUIRE_MESSAGE(r.code == 0, r.out);
    CHECK_MESSAGE(r.out.find("learner.total_steps 50 is not a multiple of n_envs x rollout_length "
                             "(48): the run ends after 96 steps") != std::string::npos,
                  r.out);
    CHECK(r.out.find("done: 96 steps") != std::string::npos);
    const auto exact = sh(kBin + " run " + spec +
                          " learner.total_steps=96 eval.every_steps=0 --out " + (d / "e").string());
    REQUIRE_MESSAGE(exact.code == 0, exact.out);
    CHECK(exact.out.find("is not a multiple") == std::string::npos);
  }

  // Regression: `bench --envs 0 SPEC` printed an empty section and exited 0, and the --seconds
  // message did not say what it found.
  TEST_CASE("bench refuses bad options with code 2 and names what it found") {
    const auto check = [&](const std::string& args, const std::string& needle) {
      const auto r = sh(kBin + " bench " + args);
      CHECK_MESSAGE(r.code == 2, r.out);
      CHECK_MESSAGE(r.out.find(needle) != std::string::npos,
                    "expected '" << needle << "' in: " << r.out);
    };
    check("--seconds -1", "found -1");
    check("--envs 0 experiments/quickstart.toml",
          "--envs: expected integers in [1, 65536], found 0");
    check("--envs 3x experiments/quickstart.toml", "found '3x'");
    check("--threads 2000", "found 2000");
    check("--only learnr", "found 'learnr'");
    check("--benchmarks --rounds 0", "--rounds: expected an integer in [1, 100], found 0");
    check("--benchmarks --iterations 0", "--iterations: expected an integer in [1, 100000]");
    check("--benchmarks --json --markdown", "expected either --json or --markdown, found both");
    check("--rows dso_ppo", "--rows: only with --benchmarks");
    check("--benchmarks --only env", "found --only");
  }

  TEST_CASE("grid dcpf --json and the listing commands") {
    const auto r = sh(kBin + " grid dcpf case5 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    CHECK(r.out.find("\"branch_pf_mw\"") != std::string::npos);
    const auto at = r.out.find("\"success\":");
    REQUIRE(at != std::string::npos);
    CHECK(r.out.find_first_not_of(" ", at + 10) == r.out.find("true", at));
    const auto c = sh(kBin + " cases");
    CHECK(c.code == 0);
    CHECK(c.out.find("case118") != std::string::npos);
    const auto e = sh(kBin + " envs");
    CHECK(e.code == 0);
    CHECK(e.out.find("trans_grid") != std::string::npos);
    for (const char* cmd : {"run", "eval", "envs", "cases", "grid"})
      CHECK(sh(kBin + " " + cmd + " --help").code == 0);
  }
}
