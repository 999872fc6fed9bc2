// Sweeps (expansion, ids, manifest, SLURM script quoting) and summaries (grouping, bootstrap CI).
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/report/summarize.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/sweep/sweep.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using pz::exp::Trial;

using pz::test::sh;
using pz::test::write;

namespace {

fs::path tmp_dir(const std::string& name) { return pz::test::tmp_dir("pz_sweep", name); }

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kTiny = pz::test::tiny_case5_spec(
    {.total_steps = 480, .eval_every_steps = 240, .eval_episodes = 2, .checkpoint_every_steps = 240});

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

std::string overrides_of(const std::vector<Trial>& ts) {
  std::string out;
  for (const auto& t : ts) out += join(t.overrides) + "\n";
  return out;
}

double value_of(const std::vector<std::string>& ovs, const std::string& key) {
  for (const auto& o : ovs)
    if (o.rfind(key + "=", 0) == 0) return std::stod(o.substr(key.size() + 1));
  FAIL("no override for " << key);
  return 0;
}

const std::string kBin = PZ_BINARY;

}  // namespace

TEST_SUITE("exp_sweep") {
  TEST_CASE("[sweep] grid: count, order (first key slowest), fixed entries, seed list") {
    const std::string spec = kTiny +
                             "[sweep]\nseed = [0, 1, 2]\n\"ppo.learning_rate\" = [1e-4, 3e-4]\n"
                             "\"vec.n_envs\" = 8\n";
    const auto ts = pz::exp::expand_sweep(spec, "s.toml", {});
    REQUIRE(ts.size() == 6);
    // toml tables iterate sorted by key: "ppo.learning_rate" < "seed" < "vec.n_envs" (fixed).
    const std::string expect =
        "vec.n_envs=8 ppo.learning_rate=0.0001 seed=0\n"
        "vec.n_envs=8 ppo.learning_rate=0.0001 seed=1\n"
        "vec.n_envs=8 ppo.learning_rate=0.0001 seed=2\n"
        "vec.n_envs=8 ppo.learning_rate=0.0003 seed=0\n"
        "vec.n_envs=8 ppo.learning_rate=0.0003 seed=1\n"
        "vec.n_envs=8 ppo.learning_rate=0.0003 seed=2\n";
    CHECK(overrides_of(ts) == expect);
    for (int i = 0; i < 6; ++i) CHECK(ts[i].index == i);
    // Each trial's overrides give the spec they describe.
    const auto s4 = pz::exp::parse_spec(spec, "s.toml", ts[4].overrides);
    CHECK(s4.experiment.seed == 1);
    CHECK(s4.learner_sections.at("ppo").number("learning_rate") == 3e-4);
    CHECK(s4.vec.n_envs == 8);
    // Nested table form is the same axis.
    const auto nested =
        pz::exp::expand_sweep(kTiny + "[sweep]\nppo = { learning_rate = [1e-4, 3e-4] }\n", "s", {});
    REQUIRE(nested.size() == 2);
    CHECK(join(nested[1].overrides) == "ppo.learning_rate=0.0003");
    // No [sweep] at all: one trial with no overrides.
    CHECK(pz::exp::expand_sweep(kTiny, "s", {}).size() == 1);
  }

  TEST_CASE("command-line grids: key=v1,v2 axes in order, replace [sweep] axes, single = fixed") {
    auto ts = pz::exp::expand_sweep(
        kTiny, "s", {"seed=0,1", "ppo.learning_rate=1e-4,3e-4", "learner.total_steps=960"});
    REQUIRE(ts.size() == 4);
    CHECK(join(ts[0].overrides) == "learner.total_steps=960 seed=0 ppo.learning_rate=1e-4");
    CHECK(join(ts[1].overrides) == "learner.total_steps=960 seed=0 ppo.learning_rate=3e-4");
    CHECK(join(ts[3].overrides) == "learner.total_steps=960 seed=1 ppo.learning_rate=3e-4");
    // A command-line grid replaces the [sweep] axis of the same key in place.
    const std::string spec = kTiny + "[sweep]\nseed = [0, 1, 2]\n\"ppo.n_epochs\" = [1, 2]\n";
    ts = pz::exp::expand_sweep(spec, "s", {"seed=7,8"});
    REQUIRE(ts.size() == 4);
    CHECK(join(ts[0].overrides) == "ppo.n_epochs=1 seed=7");
    CHECK(join(ts[3].overrides) == "ppo.n_epochs=2 seed=8");
    // A single command-line value fixes the key (removes the axis).
    ts = pz::exp::expand_sweep(spec, "s", {"seed=4"});
    REQUIRE(ts.size() == 2);
    CHECK(join(ts[1].overrides) == "seed=4 ppo.n_epochs=2");  // fixed overrides first
    // Commas inside brackets do not split.
    CHECK(pz::exp::split_grid_values("[16,16],[32, 32]") ==
          std::vector<std::string>{"[16,16]", "[32, 32]"});
    CHECK(pz::exp::split_grid_values("\"a,b\",c") == std::vector<std::string>{"\"a,b\"", "c"});
    ts = pz::exp::expand_sweep(kTiny, "s", {"ppo.hidden=[16,16],[8]"});
    REQUIRE(ts.size() == 2);
    CHECK(
        pz::exp::parse_spec(kTiny, "s", ts[1].overrides).learner_sections.at("ppo").at("hidden") ==
        pz::core::ParamValue(std::vector<int64_t>{8}));
    // Bad values are caught before anything runs, naming the trial and key.
    CHECK_THROWS_AS(pz::exp::expand_sweep(kTiny, "s", {"ppo.learning_rate=1e-4,-1"}),
                    pz::core::ConfigError);
    CHECK_THROWS_AS(pz::exp::expand_sweep(kTiny, "s", {"ppo.learning_rat=1,2"}),
                    pz::core::ConfigError);
    CHECK_THROWS_AS(pz::exp::expand_sweep(kTiny, "s", {"seed=1,"}), pz::core::ConfigError);
  }

  TEST_CASE("[sweep.random]: n samples in range, log-uniform, integers, reproducible") {
    const std::string spec = kTiny +
                             "[sweep]\nseed = [0, 1]\n[sweep.random]\nn = 20\n"
                             "\"ppo.learning_rate\" = { low = 1e-5, high = 1e-2, log = true }\n"
                             "\"ppo.n_epochs\" = { low = 1, high = 8 }\n\"ppo.clip_range\" = { low "
                             "= 0.1, high = 0.3 }\n";
    const auto a = pz::exp::expand_sweep(spec, "s", {});
    const auto b = pz::exp::expand_sweep(spec, "s", {});
    REQUIRE(a.size() == 40);  // 2 seeds x 20 samples, seed slowest
    CHECK(overrides_of(a) == overrides_of(b));
    std::set<double> lrs, epochs;
    int below_1e3 = 0;
    for (int i = 0; i < 20; ++i) {
      const double lr = value_of(a[i].overrides, "ppo.learning_rate");
      const double ep = value_of(a[i].overrides, "ppo.n_epochs");
      const double cr = value_of(a[i].overrides, "ppo.clip_range");
      CHECK(lr >= 1e-5);
      CHECK(lr <= 1e-2);
      below_1e3 += lr < 1e-3;
      CHECK(ep >= 1);
      CHECK(ep <= 8);
      CHECK(ep == std::floor(ep));
      CHECK(cr >= 0.1);
      CHECK(cr <= 0.3);
      lrs.insert(lr);
      epochs.insert(ep);
      // The same random configuration is paired with every seed.
      CHECK(value_of(a[i + 20].overrides, "ppo.learning_rate") == lr);
      CHECK(value_of(a[i].overrides, "seed") == 0);
      CHECK(value_of(a[i + 20].overrides, "seed") == 1);
    }
    CHECK(lrs.size() == 20);
    CHECK(epochs.size() > 2);
    CHECK(below_1e3 >= 8);  // log-uniform: 2/3 of the mass below 1e-3
    // Another base seed draws other samples.
    const auto c = pz::exp::expand_sweep(spec, "s", {"experiment.seed=6"});
    CHECK(overrides_of(c) != overrides_of(a));
    CHECK_THROWS_AS(pz::exp::expand_sweep(
                        kTiny + "[sweep.random]\nn = 2\nx = { low = 2, high = 1 }\n", "s", {}),
                    pz::core::ConfigError);
  }

  TEST_CASE("trial ids are stable, distinct and hash the overrides") {
    const auto a = pz::exp::expand_sweep(kTiny, "s", {"seed=0,1,2,3"});
    const auto b = pz::exp::expand_sweep(kTiny, "s", {"seed=0,1,2,3"});
    std::set<std::string> ids;
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].id == b[i].id);
      CHECK(a[i].id.rfind("t" + std::to_string(i) + "-", 0) == 0);
      CHECK(a[i].id.size() == 2 + std::to_string(i).size() + 8);
      ids.insert(a[i].id);
    }
    CHECK(ids.size() == 4);
    CHECK(pz::exp::trial_id(0, {"seed=0"}) == pz::exp::trial_id(0, {"seed=0"}));
    CHECK(pz::exp::trial_id(0, {"seed=0"}) != pz::exp::trial_id(0, {"seed=1"}));
    CHECK(pz::exp::trial_id(0, {"a=1", "b=2"}) != pz::exp::trial_id(0, {"a=1b=2"}));
  }

  TEST_CASE("sweep.json manifest: round trip, status updates, different sweep rejected") {
    const fs::path d = tmp_dir("manifest");
    const auto ts = pz::exp::expand_sweep(kTiny, "s", {"seed=0,1", "experiment.name=a \"b\" 'c'"});
    auto m = pz::exp::init_manifest(d.string(), "/x/s.toml", {"seed=0,1"}, ts);
    REQUIRE(m.trials.size() == 2);
    CHECK(m.trials[1].status == "pending");
    CHECK(m.trials[1].run_dir == "trial_1");
    pz::exp::update_trial_status(d.string(), 1, "running");
    pz::exp::update_trial_status(d.string(), 1, "done");
    pz::exp::update_trial_status(d.string(), 0, "failed", "exit code 1");
    const auto r = pz::exp::read_manifest((d / "sweep.json").string());
    CHECK(r.spec_file == "/x/s.toml");
    CHECK(r.args == std::vector<std::string>{"seed=0,1"});
    REQUIRE(r.trials.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
      CHECK(r.trials[i].trial.id == ts[i].id);
      CHECK(r.trials[i].trial.overrides == ts[i].overrides);
      CHECK(r.trials[i].trial.index == static_cast<int>(i));
    }
    CHECK(r.trials[1].status == "done");
    CHECK(r.trials[1].attempts == 1);
    CHECK(r.trials[0].status == "failed");
    CHECK(r.trials[0].message == "exit code 1");
    // Re-initialising the same sweep keeps statuses; a different sweep is refused.
    CHECK(pz::exp::init_manifest(d.string(), "/x/s.toml", {}, ts).trials[1].status == "done");
    const auto other = pz::exp::expand_sweep(kTiny, "s", {"seed=0,2"});
    CHECK_THROWS_AS(pz::exp::init_manifest(d.string(), "/x/s.toml", {}, other),
                    pz::core::ConfigError);
    // No temporary files left behind.
    for (const auto& e : fs::directory_iterator(d))
      CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
  }

  // Guards the emitted script's #SBATCH --output=SWEEP_DIR/logs/slurm-%A_%a.out: the sweep
  // directory check refused SLURM's own log file, so every array task failed at once.
  TEST_CASE("regression: SLURM's logs/slurm-<job>_<task>.out belongs to the sweep directory") {
    const fs::path d = tmp_dir("slurm_out");
    fs::create_directories(d / "logs");
    write((d / "logs" / "trial_0.log").string(), "x");
    write((d / "logs" / "slurm-5_0.out").string(), "x");
    CHECK_NOTHROW(pz::exp::check_sweep_dir(d.string()));
    write((d / "logs" / "notes.txt").string(), "x");
    CHECK_THROWS_AS(pz::exp::check_sweep_dir(d.string()), pz::core::ConfigError);
  }

  TEST_CASE("shell quoting and the SLURM script: bash -n, hostile values reach powerzoo intact") {
    CHECK(pz::exp::shell_quote("plain") == "'plain'");
    CHECK(pz::exp::shell_quote("it's") == "'it'\\''s'");
    const fs::path d = tmp_dir("slurm q");  // a space in every path
    const fs::path marker = d / "pwned";
    const std::string hostile =
        "experiment.name=my run 'x' \"y\" $(touch pwned) `touch pwned` ; rm -rf x & $HOME \\ *";
    for (const std::string s : {std::string("a b"), hostile, std::string("'"), std::string("")}) {
      const auto p = sh("printf '%s' " + pz::exp::shell_quote(s));
      CHECK(p.out == s);
    }
    const std::string spec_file = (d / "my spec's.toml").string();
    write(spec_file, kTiny);
    const std::vector<std::string> args = {"seed=0,1,2,3", hostile};
    const auto ts = pz::exp::expand_sweep(kTiny, spec_file, args);
    REQUIRE(ts.size() == 4);
    pz::exp::SlurmOptions so;
    so.partition = "debug";
    so.time = "00:10:00";
    so.cpus = 2;
    so.mem = "1G";
    so.parallel = 2;
    const std::string sweep_dir = (d / "out $(touch pwned2) 'q'").string();
    const fs::path stub = d / "stub powerzoo";
    const std::string script =
        pz::exp::slurm_script(stub.string(), spec_file, args, sweep_dir, "my run 'x'", 4, so);
    CHECK(script.find("#SBATCH --array=0-3%2\n") != std::string::npos);
    CHECK(script.find("#SBATCH --partition=debug\n") != std::string::npos);
    CHECK(script.find("#SBATCH --time=00:10:00\n") != std::string::npos);
    CHECK(script.find("#SBATCH --cpus-per-task=2\n") != std::string::npos);
    CHECK(script.find("#SBATCH --mem=1G\n") != std::string::npos);
    CHECK(script.find("export HDF5_USE_FILE_LOCKING=FALSE\n") != std::string::npos);
    CHECK(script.find("#SBATCH --job-name=my_run__x_\n") != std::string::npos);
    const std::string script_file = (d / "sweep.sbatch").string();
    write(script_file, script);
    const auto syntax = sh("bash -n " + pz::exp::shell_quote(script_file));
    CHECK_MESSAGE(syntax.code == 0, syntax.out);
    // The stub prints its arguments, one per line, into args.txt.
    const fs::path args_out = d / "args.txt";
    write(stub,
          "#!/bin/bash\nprintf '%s\\n' \"$@\" > " + pz::exp::shell_quote(args_out.string()) + "\n");
    fs::permissions(stub, fs::perms::owner_all);
    const auto run = sh("cd " + pz::exp::shell_quote(d.string()) +
                        " && SLURM_ARRAY_TASK_ID=2 SLURM_CPUS_PER_TASK=3 bash " +
                        pz::exp::shell_quote(script_file));
    CHECK_MESSAGE(run.code == 0, run.out);
    const std::string expect = "sweep\n" + spec_file + "\nseed=0,1,2,3\n" + hostile + "\n--out\n" +
                               sweep_dir + "\n--index\n2\n--threads\n3\n";
    CHECK(read(args_out) == expect);
    CHECK(!fs::exists(marker));
    CHECK(!fs::exists(d / "pwned2"));
    CHECK(fs::exists(fs::path(sweep_dir) / "logs" / "trial_2.log"));
    // --requeue: the grace signal, and a shell that waits for powerzoo and passes its exit code on
    // (3 = interrupted; no USR1 came, so no self-requeue).
    so.requeue = true;
    so.grace_seconds = 90;
    const std::string rq =
        pz::exp::slurm_script(stub.string(), spec_file, {}, sweep_dir, "n", 4, so);
    CHECK(rq.find("#SBATCH --signal=B:USR1@90\n#SBATCH --requeue\n") != std::string::npos);
    CHECK(rq.find("\nexec \"$POWERZOO\"") == std::string::npos);
    write(script_file, rq);
    write(stub, "#!/bin/bash\nexit 3\n");
    const auto rq_run = sh("cd " + pz::exp::shell_quote(d.string()) +
                           " && SLURM_ARRAY_TASK_ID=1 bash " + pz::exp::shell_quote(script_file));
    CHECK(rq_run.code == 3);
    CHECK(read(fs::path(sweep_dir) / "logs" / "trial_1.log").find("requeueing") ==
          std::string::npos);
    so.requeue = false;
    so.grace_seconds = 0;
    // Unsafe #SBATCH values are refused instead of being emitted.
    so.partition = "a b";
    CHECK_THROWS_AS(pz::exp::slurm_script("p", spec_file, args, sweep_dir, "n", 4, so),
                    pz::core::ConfigError);

    // Through the binary: exits 0, prints the script, writes the manifest and the logs directory.
    const std::string out_dir = (d / "cli sweep").string();
    const auto emit = sh(kBin + " sweep " + pz::exp::shell_quote(spec_file) + " seed=0,1,2,3 " +
                         pz::exp::shell_quote(hostile) + " --emit slurm --jobs 2 --out " +
                         pz::exp::shell_quote(out_dir) + " > " +
                         pz::exp::shell_quote((d / "cli.sbatch").string()));
    REQUIRE_MESSAGE(emit.code == 0, emit.out);
    const std::string cli_script = read(d / "cli.sbatch");
    CHECK(cli_script.find("#SBATCH --array=0-3%2") != std::string::npos);
    CHECK(sh("bash -n " + pz::exp::shell_quote((d / "cli.sbatch").string())).code == 0);
    CHECK(fs::exists(fs::path(out_dir) / "sweep.json"));
    CHECK(fs::is_directory(fs::path(out_dir) / "logs"));
    const auto man = pz::exp::read_manifest((fs::path(out_dir) / "sweep.json").string());
    REQUIRE(man.trials.size() == 4);
    CHECK(pz::exp::parse_spec(kTiny, "s", man.trials[0].trial.overrides).experiment.name ==
          hostile.substr(std::string("experiment.name=").size()));
  }

  TEST_CASE("seed_stats: mean, population std, IQM and bootstrap CI against hand computation") {
    // Two seeds a < b: a resample mean is a, (a+b)/2 or b with probabilities 1/4, 1/2, 1/4, so
    // about 2500 of 10,000 resampled means equal a: the 2.5th percentile (rank 250) is a and the
    // 97.5th is b.
    auto st = pz::exp::seed_stats({3.0, 1.0});
    CHECK(st.n == 2);
    CHECK(st.mean == 2.0);
    CHECK(st.std == 1.0);  // ddof 0
    CHECK(st.iqm == 2.0);
    CHECK(st.ci_low == 1.0);
    CHECK(st.ci_high == 3.0);
    // Three seeds: P(all three equal the min) = 1/27 = 3.7 % > 2.5 %: same argument.
    st = pz::exp::seed_stats({-4.0, 2.0, 5.0});
    CHECK(st.mean == doctest::Approx(1.0));
    CHECK(st.std == doctest::Approx(std::sqrt((25.0 + 1.0 + 16.0) / 3.0)));
    CHECK(st.ci_low == -4.0);
    CHECK(st.ci_high == 5.0);
    // Many seeds: the CI is inside [min, max], around the mean, and reproducible.
    std::vector<double> xs;
    for (int i = 0; i < 20; ++i) xs.push_back(i);
    st = pz::exp::seed_stats(xs);
    const auto st2 = pz::exp::seed_stats(xs);
    CHECK(st.ci_low == st2.ci_low);
    CHECK(st.ci_high == st2.ci_high);
    // Normal approximation: mean 9.5, standard error 5.77 / sqrt(20) = 1.29 -> CI ~ 9.5 -+ 2.53.
    CHECK(st.ci_low == doctest::Approx(9.5 - 2.53).epsilon(0.05));
    CHECK(st.ci_high == doctest::Approx(9.5 + 2.53).epsilon(0.05));
    CHECK(st.iqm == doctest::Approx(9.5));  // trims 5 from each end
    CHECK(std::isnan(pz::exp::seed_stats({1.0, NAN}).mean));
    const auto one = pz::exp::seed_stats({7.0});
    CHECK(one.ci_low == 7.0);
    CHECK(one.ci_high == 7.0);
    CHECK(one.std == 0.0);
  }

  TEST_CASE("summarize: two configurations x two seeds plus a baseline, table and CSV") {
    const fs::path d = tmp_dir("summarize");
    // Fake run files: config A (lr 1e-4) returns 1 and 3; config B (lr 3e-4) returns -2 and -6.
    struct R {
      const char* dir;
      const char* lr;
      int seed;
      double ret;
      double cost;
    };
    const std::vector<R> rs = {{"a0", "1e-4", 0, 1.0, 0.5},
                               {"a1", "1e-4", 1, 3.0, 1.5},
                               {"b0", "3e-4", 0, -2.0, 0.0},
                               {"b1", "3e-4", 1, -6.0, 2.0}};
    for (const auto& r : rs) {
      const auto spec = pz::exp::parse_spec(
          kTiny, "s",
          {std::string("ppo.learning_rate=") + r.lr, "seed=" + std::to_string(r.seed),
           std::string("experiment.name=n") + r.dir});
      fs::create_directories(d / r.dir / "ckpt");
      auto f =
          pz::io::RunFile::create((d / r.dir / "run.h5").string(), {}, {}, pz::exp::to_toml(spec));
      // An early eval row that must be ignored, then the final one.
      f.append_row("metrics/eval", {{"global_step", 240},
                                    {"return_mean", 100},
                                    {"shaped_return_mean", 100},
                                    {"cost/power_balance", 100}});
      f.append_row("metrics/eval", {{"global_step", 480},
                                    {"return_mean", r.ret},
                                    {"shaped_return_mean", r.ret - r.cost},
                                    {"cost/power_balance", r.cost}});
      f.close();
      // Checkpoints hold /config/resolved too; they must not be counted.
      pz::io::write_checkpoint((d / r.dir / "ckpt" / "best.h5").string(), {},
                               pz::exp::to_toml(spec));
    }
    {
      const auto spec = pz::exp::parse_spec(kTiny, "s", {"seed=0"});
      auto f =
          pz::io::RunFile::create((d / "baseline_zero.h5").string(), {{"policy", "zero_action"}},
                                  {{"seed", 0}}, pz::exp::to_toml(spec));
      f.append_row(
          "metrics/eval",
          {{"return_mean", -10.0}, {"shaped_return_mean", -11.0}, {"cost/power_balance", 1.0}});
      f.close();
    }
    const auto runs = pz::exp::find_runs(d.string());
    REQUIRE(runs.size() == 5);
    const auto s = pz::exp::summarize_runs(runs, {});
    CHECK(s.metrics ==
          std::vector<std::string>{"return_mean", "shaped_return_mean", "cost/power_balance"});
    REQUIRE(s.configs.size() == 3);
    // Files are visited in sorted order: a0, a1, b0, b1, baseline_zero.h5.
    const auto& A = s.configs[0];
    const auto& B = s.configs[1];
    const auto& Z = s.configs[2];
    CHECK(A.kind == "run");
    CHECK(A.label == "ppo.learning_rate=0.0001");
    CHECK(B.label == "ppo.learning_rate=0.0003");
    CHECK(Z.kind == "baseline:zero_action");
    CHECK(A.seeds == std::vector<int64_t>{0, 1});
    CHECK(A.stats.at("return_mean").mean == 2.0);
    CHECK(A.stats.at("return_mean").std == 1.0);
    CHECK(A.stats.at("return_mean").ci_low == 1.0);
    CHECK(A.stats.at("return_mean").ci_high == 3.0);
    CHECK(A.stats.at("shaped_return_mean").mean == 1.0);  // (0.5 + 1.5) / 2
    CHECK(B.stats.at("return_mean").mean == -4.0);
    CHECK(B.stats.at("return_mean").std == 2.0);
    CHECK(B.stats.at("return_mean").ci_low == -6.0);
    CHECK(B.stats.at("return_mean").ci_high == -2.0);
    CHECK(B.stats.at("cost/power_balance").mean == 1.0);
    CHECK(Z.stats.at("return_mean").n == 1);
    CHECK(Z.stats.at("return_mean").mean == -10.0);
    const std::string table = pz::exp::summary_table(s);
    CHECK(table.find("ppo.learning_rate=0.0001") != std::string::npos);
    CHECK(table.find("[-6, -2]") != std::string::npos);
    const std::string csv = pz::exp::summary_csv(s);
    CHECK(csv.find("ppo.learning_rate=0.0003,run,2,0 1,480,return_mean,iid,-4,2,-4,-6,-2\n") !=
          std::string::npos);
    // --metric selects columns; an unknown metric is an error with a suggestion.
    CHECK(pz::exp::summarize_runs(runs, {"return_mean"}).metrics.size() == 1);
    CHECK_THROWS_AS(pz::exp::summarize_runs(runs, {"return_maen"}), pz::core::ConfigError);

    // The command: prints the table and writes summary.csv in DIR.
    const auto p = sh(kBin + " summarize " + d.string() + " --metric return_mean");
    REQUIRE_MESSAGE(p.code == 0, p.out);
    CHECK(p.out.find("3 configuration(s)") != std::string::npos);
    CHECK(fs::exists(d / "summary.csv"));
    CHECK(sh(kBin + " summarize " + (d / "nothing").string()).code == 2);
  }

  TEST_CASE("powerzoo sweep --jobs 2 runs every trial once, re-running skips, summarize groups") {
    const fs::path d = tmp_dir("e2e");
    const auto spec = write(d / "tiny.toml", kTiny);
    const std::string out = (d / "sw").string();
    const std::string cmd = kBin + " sweep " + spec +
                            " seed=0,1 ppo.learning_rate=1e-4,3e-4 --jobs 2 --threads 1 --out " +
                            out;
    const auto list = sh(kBin + " sweep " + spec + " seed=0,1 ppo.learning_rate=1e-4,3e-4 --list");
    REQUIRE_MESSAGE(list.code == 0, list.out);
    CHECK(list.out.find("4 trials") == 0);
    CHECK(!fs::exists(d / "runs"));  // --list writes nothing
    const auto r1 = sh(cmd);
    REQUIRE_MESSAGE(r1.code == 0, r1.out);
    CHECK(r1.out.find("4 done, 0 failed") != std::string::npos);
    for (int i = 0; i < 4; ++i) {
      const auto f = (fs::path(out) / ("trial_" + std::to_string(i)) / "run.h5").string();
      REQUIRE(fs::exists(f));
      CHECK(pz::io::read_column(f, "metrics/eval/global_step").back() == 480);
    }
    auto m = pz::exp::read_manifest((fs::path(out) / "sweep.json").string());
    for (const auto& t : m.trials) CHECK(t.status == "done");
    // Re-running: nothing to do.
    const auto r2 = sh(cmd);
    REQUIRE_MESSAGE(r2.code == 0, r2.out);
    CHECK(r2.out.find("4 already done, 0 to run") != std::string::npos);
    // An interrupted trial (status running, partial directory) is run again.
    pz::exp::update_trial_status(out, 3, "running");
    const auto r3 = sh(cmd);
    REQUIRE_MESSAGE(r3.code == 0, r3.out);
    CHECK(r3.out.find("3 already done, 1 to run") != std::string::npos);
    m = pz::exp::read_manifest((fs::path(out) / "sweep.json").string());
    CHECK(m.trials[3].status == "done");
    // --index of a finished trial is a no-op.
    const auto r4 = sh(kBin + " sweep " + spec +
                       " seed=0,1 ppo.learning_rate=1e-4,3e-4 --index 1 --out " + out);
    CHECK_MESSAGE(r4.code == 0, r4.out);
    CHECK(r4.out.find("already done") != std::string::npos);
    // A different sweep into the same directory is refused (exit 2).
    CHECK(sh(kBin + " sweep " + spec + " seed=0,1,2 --out " + out).code == 2);
    const auto s = sh(kBin + " summarize " + out);
    REQUIRE_MESSAGE(s.code == 0, s.out);
    CHECK(s.out.find("2 configuration(s)") != std::string::npos);
    CHECK(s.out.find("ppo.learning_rate=0.0001") != std::string::npos);
    CHECK(s.out.find("ppo.learning_rate=0.0003") != std::string::npos);
  }
  TEST_CASE("re-running a sweep resumes a SIGKILLed trial; metrics equal the uninterrupted run") {
    const fs::path d = tmp_dir("resume");
    const auto spec = write(d / "tiny.toml", kTiny);
    const std::string args =
        " seed=3 learner.total_steps=96000 output.checkpoint_every_steps=4800"
        " eval.every_steps=4800 --threads 1 --quiet";
    const std::string ref = (d / "ref").string(), cut = (d / "cut").string();
    REQUIRE(sh(kBin + " sweep " + spec + args + " --out " + ref).code == 0);
    // Start trial 0, SIGKILL it once its first checkpoint exists.
    const auto k = sh("(" + kBin + " sweep " + spec + args + " --index 0 --out " + cut +
                      " & pid=$!; for i in $(seq 3000); do [ -f " + cut +
                      "/trial_0/ckpt/step_4800.h5 ] && break; sleep 0.01; done; kill -9 $pid; "
                      "wait $pid; echo killed=$?)");
    REQUIRE_MESSAGE(k.out.find("killed=137") != std::string::npos, k.out);
    auto m = pz::exp::read_manifest((fs::path(cut) / "sweep.json").string());
    CHECK(m.trials[0].status == "running");
    const auto r = sh(kBin + " sweep " + spec + args + " --out " + cut);
    REQUIRE_MESSAGE(r.code == 0, r.out);
    CHECK(r.out.find("0 already done, 1 to run") != std::string::npos);
    CHECK(read(fs::path(cut) / "logs" / "trial_0.log").find("resuming") != std::string::npos);
    m = pz::exp::read_manifest((fs::path(cut) / "sweep.json").string());
    CHECK(m.trials[0].status == "done");
    CHECK(m.trials[0].attempts == 2);
    const std::string f1 = ref + "/trial_0/run.h5", f2 = cut + "/trial_0/run.h5";
    for (const std::string col : {"metrics/eval/global_step", "metrics/eval/iid/return_mean",
                                  "metrics/train/global_step", "metrics/train/losses/actor"}) {
      const auto a = pz::io::read_column(f1, col), b = pz::io::read_column(f2, col);
      REQUIRE(a.size() == b.size());
      CHECK_MESSAGE(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0, col);
    }
  }

  TEST_CASE("scripts/plot_runs.py draws PNGs for a sweep (Debian python3-h5py + matplotlib)") {
    if (sh("/usr/bin/python3 -c 'import h5py, matplotlib'").code != 0) {
      MESSAGE("python3-h5py/python3-matplotlib not installed; skipping plot_runs.py");
      return;
    }
    const fs::path d = tmp_dir("plot");
    const auto spec = write(d / "tiny.toml", kTiny);
    const std::string out = (d / "sw").string();
    REQUIRE(sh(kBin + " sweep " + spec +
               " seed=0,1 ppo.learning_rate=1e-4,3e-4 --jobs 2 --threads 1 --quiet --out " + out)
                .code == 0);
    const auto p = sh("/usr/bin/python3 " PZ_SOURCE_DIR "/scripts/plot_runs.py " + out);
    REQUIRE_MESSAGE(p.code == 0, p.out);
    CHECK(p.out.find("4 runs, 2 configuration(s)") != std::string::npos);
    CHECK(fs::file_size(fs::path(out) / "plots" / "eval_return_mean.png") > 1000);

    // A live run: two seeds of one configuration, one still running with fewer evaluations.
    const fs::path live = d / "live";
    // Copies both seeds of learning_rate 1e-4 to live/{a,b}; b becomes a running run with one
    // evaluation so far.
    const std::string py =
        "import glob, os, shutil, h5py\n"
        "runs = sorted(p for p in glob.glob('" +
        out +
        "/**/run.h5', recursive=True)\n"
        "  if 'learning_rate = 0.0001' in h5py.File(p, 'r')['config/resolved'][()].decode())\n"
        "assert len(runs) == 2, runs\n"
        "for name, p in zip('ab', runs):\n"
        "  os.makedirs('" +
        live.string() +
        "/' + name)\n"
        "  shutil.copy(p, '" +
        live.string() +
        "/' + name + '/run.h5')\n"
        "f = h5py.File('" +
        live.string() +
        "/b/run.h5', 'r+')\n"
        "f.attrs['status'] = 'running'\n"
        "g = f['metrics/eval']\n"
        "g.visititems(lambda n, o: o.resize((1,)) if isinstance(o, h5py.Dataset) else None)\n";
    const auto prep = sh("/usr/bin/python3 " + write(d / "live.py", py));
    REQUIRE_MESSAGE(prep.code == 0, prep.out);
    const auto q = sh("/usr/bin/python3 " PZ_SOURCE_DIR "/scripts/plot_runs.py " + live.string());
    REQUIRE_MESSAGE(q.code == 0, q.out);
    CHECK_MESSAGE(q.out.find("2 runs, 1 configuration(s), 1 still running") != std::string::npos,
                  q.out);

    // Regression: the benchmark's TSO PPO seeds, written by binaries before and after a spec key
    // was added and on 2 and 1 threads, were drawn as two configurations. Run b drops a key line
    // and records another thread count: still one configuration.
    const std::string older =
        "import h5py\n"
        "f = h5py.File('" +
        live.string() +
        "/b/run.h5', 'r+')\n"
        "t = f['config/resolved'][()].decode()\n"
        "assert 'threads = 1' in t and 'rollout_length = ' in t, t\n"
        "t = t.replace('threads = 1', 'threads = 2')\n"
        "t = '\\n'.join(l for l in t.splitlines() if not l.startswith('rollout_length = '))\n"
        "del f['config/resolved']\n"
        "f['config/resolved'] = t.encode()\n";
    const auto prep2 = sh("/usr/bin/python3 " + write(d / "older.py", older));
    REQUIRE_MESSAGE(prep2.code == 0, prep2.out);
    const auto r = sh("/usr/bin/python3 " PZ_SOURCE_DIR "/scripts/plot_runs.py " + live.string());
    REQUIRE_MESSAGE(r.code == 0, r.out);
    CHECK_MESSAGE(r.out.find("2 runs, 1 configuration(s), 1 still running") != std::string::npos,
                  r.out);
  }
}
