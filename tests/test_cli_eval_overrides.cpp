// `powerzoo eval CHECKPOINT key=value ...`: an [env] override that keeps the observation and
// action layout changes the metrics and is recorded in the eval file; one that changes the layout,
// or a key of another section, is refused with exit 2 and nothing written.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include "powerzoo/io/hdf5.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

using pz::test::sh;
using pz::test::write;

namespace {

const std::string kTinySpec =
    pz::test::tiny_case5_spec({.name = "tiny_eval", .seed = 3, .total_steps = 480});

const std::string kBin = PZ_BINARY;

// A tiny DSO training (case33bw, 192 steps) with `env_extra` lines in its [env]; returns its
// last checkpoint.
std::string train_tiny_dso(const fs::path& d, const std::string& env_extra) {
  const auto spec =
      write(d / "dso.toml",
            "[experiment]\nname = \"dso_n1\"\nseed = 2\n[env]\ntask = \"dso\"\n" + env_extra +
                "[vec]\nn_envs = 2\n[learner]\ntotal_steps = 192\nrollout_length = "
                "48\n[ppo]\nn_minibatches = 2\nhidden = [8, 8]\n[eval]\nevery_steps "
                "= 192\nn_episodes = 1\n[output]\ncheckpoint_every_steps = 192\n");
  const auto r = sh(kBin + " run " + spec + " --quiet --threads 1 --out " + (d / "run").string());
  REQUIRE_MESSAGE(r.code == 0, r.out);
  return (d / "run" / "ckpt" / "step_192.h5").string();
}

// The last `n` observation values of every step of an eval file's trajectories of `split` (all
// of them when n is at least the observation size).
std::vector<float> obs_tail(const std::string& file, const std::string& split, int n) {
  const auto py = sh("/usr/bin/python3 -c \"import h5py; o = h5py.File('" + file +
                     "', 'r')['trajectories/" + split +
                     "/obs'][...]; print(' '.join(str(x) "
                     "for x in o[..., -" +
                     std::to_string(n) + ":].ravel()))\"");
  REQUIRE_MESSAGE(py.code == 0, py.out);
  std::vector<float> out;
  std::istringstream in(py.out);
  for (float x; in >> x;) out.push_back(x);
  return out;
}

}  // namespace

TEST_SUITE("cli_eval_overrides") {
  TEST_CASE(
      "eval with an [env] override: accepted, recorded; a layout change or [ppo] key: exit 2") {
    const fs::path d = pz::test::tmp_dir("pz_cli", "eval_overrides");
    const auto spec = write(d / "tiny.toml", kTinySpec);
    const auto r = sh(kBin + " run " + spec + " --quiet --threads 1 --out " + (d / "run").string());
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string ck = (d / "run" / "ckpt" / "step_480.h5").string();
    const std::string plain = (d / "plain.h5").string(), scaled = (d / "scaled.h5").string();
    const auto e0 = sh(kBin + " eval " + ck + " --threads 1 --out " + plain);
    REQUIRE_MESSAGE(e0.code == 0, e0.out);
    const auto e1 = sh(kBin + " eval " + ck + " env.load_scale=1.3 --threads 1 --out " + scaled);
    REQUIRE_MESSAGE(e1.code == 0, e1.out);
    CHECK(e1.out.find("overrides: env.load_scale=1.3") != std::string::npos);
    // 30 % more load costs more generation: the return (−1e-4 · cost) is lower.
    const auto x0 = pz::io::read_column(plain, "metrics/eval/iid/return_mean");
    const auto x1 = pz::io::read_column(scaled, "metrics/eval/iid/return_mean");
    REQUIRE(x0.size() == 1);
    REQUIRE(x1.size() == 1);
    CHECK(x1[0] < x0[0] - 1e-3);
    CHECK(pz::io::read_string_attr(scaled, "overrides") == "env.load_scale=1.3");
    CHECK(pz::io::read_string_attr(plain, "overrides") == "");
    CHECK(pz::io::read_string_attr(scaled, "status") == "finished");
    CHECK(!pz::io::read_string_attr(scaled, "git_sha").empty());
    CHECK(pz::io::read_string(scaled, "config/resolved").find("load_scale = 1.3") !=
          std::string::npos);
    CHECK(pz::io::read_column(scaled, "metrics/eval/global_step") == std::vector<double>{480.0});
    // `powerzoo summarize` lists eval files as their own rows, one configuration per override
    // set, so a sweep's checkpoints evaluated under changed conditions get a mean and CI.
    fs::create_directories(d / "evals");
    fs::copy_file(plain, d / "evals" / "plain.h5");
    fs::copy_file(scaled, d / "evals" / "scaled.h5");
    const std::string csv = (d / "evals.csv").string();
    const auto s0 = sh(kBin + " summarize " + (d / "evals").string() +
                       " --split iid -m return_mean --csv " + csv);
    REQUIRE_MESSAGE(s0.code == 0, s0.out);
    // configuration,kind,n_seeds,seeds,final_step,metric,split,mean,...: one row per file.
    std::istringstream rows(pz::test::read_text(csv));
    std::string line;
    int n_eval = 0;
    while (std::getline(rows, line)) {
      if (line.find(",eval,1,3,480,return_mean,iid,") == std::string::npos) continue;
      ++n_eval;
      const size_t at = line.find(",iid,") + 5;
      const double mean = std::stod(line.substr(at, line.find(',', at) - at));
      const bool is_scaled = line.find("load_scale=1.3") != std::string::npos;
      CHECK_MESSAGE(mean == (is_scaled ? x1[0] : x0[0]), line);
    }
    CHECK(n_eval == 2);
    // Without --out the file is named after the overrides, beside the checkpoint's own eval.
    const auto e2 = sh(kBin + " eval " + ck + " env.load_scale=1.3 --episodes 1 --threads 1");
    REQUIRE_MESSAGE(e2.code == 0, e2.out);
    CHECK(fs::exists(d / "run" / "eval" / "step_480_iid_env.load_scale_1.3.h5"));

    // Refused: a case with other buses and generators changes the observation and action.
    const std::string bad = (d / "bad.h5").string();
    const auto b1 = sh(kBin + " eval " + ck + " env.case=case14 --threads 1 --out " + bad);
    CHECK(b1.code == 2);
    CHECK_MESSAGE(b1.out.find("with overrides 'env.case=case14': the env has an observation of") !=
                      std::string::npos,
                  b1.out);
    // Refused: a learner key (the checkpoint fixes the learner).
    const auto b2 = sh(kBin + " eval " + ck + " ppo.learning_rate=1e-3 --out " + bad);
    CHECK(b2.code == 2);
    CHECK_MESSAGE(
        b2.out.find("expected an [env] or [eval] key, found a [ppo] key") != std::string::npos,
        b2.out);
    // Refused: an unknown env key, with the checkpoint's spec named.
    const auto b3 = sh(kBin + " eval " + ck + " env.load_scal=1.3 --out " + bad);
    CHECK(b3.code == 2);
    CHECK_MESSAGE(b3.out.find("load_scal") != std::string::npos, b3.out);
    CHECK_FALSE(fs::exists(bad));
  }
}

TEST_SUITE("cli_eval_overrides") {
  // Guards the provenance of baseline files (they recorded no status, sha, version or overrides).
  TEST_CASE("baseline --out records status, git sha, version, global step and the overrides") {
    const fs::path d = pz::test::tmp_dir("pz_cli", "baseline_attrs");
    const std::string out = (d / "b.h5").string();
    const auto b = sh(kBin + " baseline experiments/quickstart.toml --policy zero_action " +
                      "env.load_scale=1.1 --episodes 1 --threads 1 --out " + out);
    REQUIRE_MESSAGE(b.code == 0, b.out);
    CHECK(pz::io::read_string_attr(out, "status") == "finished");
    CHECK(pz::io::read_string_attr(out, "overrides") == "env.load_scale=1.1");
    CHECK(!pz::io::read_string_attr(out, "git_sha").empty());
    CHECK(!pz::io::read_string_attr(out, "powerzoo_version").empty());
    const auto py = sh("/usr/bin/python3 -c \"import h5py; print('gs', h5py.File('" + out +
                       "', 'r').attrs['global_step'])\"");
    CHECK_MESSAGE(py.out.find("gs 0") != std::string::npos, py.out);
  }

  // Guards issue 36: a checkpoint trained without outages was refused on the n1 splits (the
  // split added branch_status to the observation). outage_status_obs = auto keeps its
  // observation there; the outage is in the physics and the unserved_load channel.
  TEST_CASE("a checkpoint trained without outages evaluates on n1_branch, blind to the outage") {
    const fs::path d = pz::test::tmp_dir("pz_cli", "eval_n1_blind");
    const std::string ck = train_tiny_dso(d, "");
    CHECK(pz::io::read_string(ck, "config/resolved").find("outage_status_obs = \"false\"") !=
          std::string::npos);
    const std::string n1 = (d / "n1.h5").string();
    const auto e =
        sh(kBin + " eval " + ck + " --split n1_branch --episodes 4 --threads 1 --out " + n1);
    REQUIRE_MESSAGE(e.code == 0, e.out);
    const auto unserved = pz::io::read_column(n1, "metrics/eval/n1_branch/cost/unserved_load");
    REQUIRE(unserved.size() == 1);
    CHECK(unserved[0] > 0);  // every line of the radial feeder cuts off some load
    // Showing the status changes the observation the policy was trained on: refused as before.
    const auto seeing = sh(kBin + " eval " + ck + " env.outage_status_obs=true --split n1_branch " +
                           "--episodes 1 --threads 1 --out " + (d / "seeing.h5").string());
    CHECK(seeing.code == 2);
    CHECK_MESSAGE(seeing.out.find("the env has an observation of 227 values instead of the "
                                  "checkpoint's 195: it adds branch_status [32], which the "
                                  "checkpoint's policy was trained without") != std::string::npos,
                  seeing.out);
    CHECK(!fs::exists(d / "seeing.h5"));

    // Guards issue 36: outages added by an override (a scenario file, a rate) were refused for
    // the unserved_load channel they add, which the n1 split adds too. Both evaluate now, the
    // channel reported in the eval file.
    const auto csv = write(d / "line10.csv", "step,element,index,status\n4,branch,10,0\n");
    const std::string sched = (d / "sched.h5").string(), rate = (d / "rate.h5").string();
    const auto e1 = sh(kBin + " eval " + ck + " env.outages=" + csv +
                       " --episodes 2 --threads 1 --out " + sched);
    REQUIRE_MESSAGE(e1.code == 0, e1.out);
    const auto u1 = pz::io::read_column(sched, "metrics/eval/iid/cost/unserved_load");
    REQUIRE(u1.size() == 1);
    CHECK(u1[0] > 0);  // line 10 of the radial feeder out from step 4 cuts off buses 11..18
    const auto e2 = sh(kBin + " eval " + ck +
                       " env.outage_rate=0.05 env.outage_duration_steps=6 --episodes 2 "
                       "--threads 1 --out " +
                       rate);
    REQUIRE_MESSAGE(e2.code == 0, e2.out);
    const auto u2 = pz::io::read_column(rate, "metrics/eval/iid/cost/unserved_load");
    REQUIRE(u2.size() == 1);
    CHECK(u2[0] > 0);
    CHECK(pz::io::read_string(rate, "config/resolved").find("outage_duration_steps = 6") !=
          std::string::npos);
    // The policy stays blind: its observation keeps the checkpoint's 195 values, no status.
    CHECK(obs_tail(rate, "iid", 1000).size() == 2 * 48 * 195);

    // Guards issue 36: a forecast added on forecast_error was refused with "found 0", about the
    // checkpoint's spec on that split; the message now says what the override changes.
    const auto fc = sh(kBin + " eval " + ck + " --split forecast_error env.forecast_horizon=4 " +
                       "--episodes 1 --threads 1 --out " + (d / "fc.h5").string());
    CHECK(fc.code == 2);
    CHECK_MESSAGE(
        fc.out.find("eval on split forecast_error with overrides "
                    "'env.forecast_horizon=4': the env has an observation of 199 values "
                    "instead of the checkpoint's 195: it adds load_forecast [4], which the "
                    "checkpoint's policy was trained without") != std::string::npos,
        fc.out);
    CHECK(!fs::exists(d / "fc.h5"));
  }

  // Guards issue 36: a checkpoint trained with random outages could not be evaluated with
  // env.outage_rate=0: its own outage_duration_steps was refused as the user's key without
  // effect, and without outages its status field and unserved_load channel vanished.
  TEST_CASE("a checkpoint trained with random outages evaluates with outage_rate = 0") {
    const fs::path d = pz::test::tmp_dir("pz_cli", "eval_outages_off");
    const std::string ck = train_tiny_dso(d, "outage_rate = 0.02\noutage_duration_steps = 6\n");
    CHECK(pz::io::read_string(ck, "config/resolved").find("outage_status_obs = \"true\"") !=
          std::string::npos);
    const std::string off = (d / "off.h5").string(), rare = (d / "rare.h5").string();
    const auto e =
        sh(kBin + " eval " + ck + " env.outage_rate=0 --episodes 2 --threads 1 --out " + off);
    REQUIRE_MESSAGE(e.code == 0, e.out);
    CHECK_MESSAGE(
        e.out.find("note: [env] outage_duration_steps of the checkpoint's spec has no effect "
                   "under the overrides") != std::string::npos,
        e.out);
    CHECK(pz::io::read_string(off, "config/resolved").find("outage_duration_steps") ==
          std::string::npos);
    CHECK(pz::io::read_column(off, "metrics/eval/iid/cost/unserved_load") ==
          std::vector<double>{0.0});
    // The policy still sees branch_status [32], the last field: every line in service.
    const auto status = obs_tail(off, "iid", 32);
    REQUIRE(status.size() == 2 * 48 * 32);
    CHECK(std::all_of(status.begin(), status.end(), [](float x) { return x == 1.0f; }));
    // Equal to the env that tracks outages that never strike (its own status fields, all 1):
    // the DSO env draws nothing else from its stream, so only the outage draws differ.
    const auto e2 = sh(kBin + " eval " + ck + " env.outage_rate=1e-12 --episodes 2 --threads 1 " +
                       "--out " + rare);
    REQUIRE_MESSAGE(e2.code == 0, e2.out);
    CHECK(pz::io::read_column(off, "metrics/eval/iid/return_mean") ==
          pz::io::read_column(rare, "metrics/eval/iid/return_mean"));
    CHECK(obs_tail(off, "iid", 227) == obs_tail(rare, "iid", 227));

    const std::string bad = (d / "bad.h5").string();
    // A key the user gives without effect is still refused, naming the override.
    const auto b1 = sh(kBin + " eval " + ck + " env.outage_rate=0 env.outage_duration_steps=3 " +
                       "--out " + bad);
    CHECK(b1.code == 2);
    CHECK_MESSAGE(b1.out.find("command line override 'env.outage_duration_steps=3': [env] "
                              "outage_duration_steps: has no effect here") != std::string::npos,
                  b1.out);
    // Hiding the status the policy was trained with changes its observation: refused.
    const auto b2 = sh(kBin + " eval " + ck + " env.outage_status_obs=false --out " + bad);
    CHECK(b2.code == 2);
    CHECK_MESSAGE(b2.out.find("it lacks branch_status [32], which the checkpoint's policy was "
                              "trained with") != std::string::npos,
                  b2.out);
    CHECK_FALSE(fs::exists(bad));
  }

  // Guards issue 36: a checkpoint of outage_status_obs = true without outage keys on an n1 split
  // was refused by the learner's state check ("learner layout"), not by the observation.
  TEST_CASE("a checkpoint that observed no status fields on an n1 split: the fields named") {
    const fs::path d = pz::test::tmp_dir("pz_cli", "eval_n1_status");
    const std::string ck = train_tiny_dso(d, "outage_status_obs = true\n");
    const auto e = sh(kBin + " eval " + ck + " --split n1_branch --episodes 1 --threads 1 --out " +
                      (d / "n1.h5").string());
    CHECK(e.code == 2);
    CHECK_MESSAGE(e.out.find("eval on split n1_branch: the env has an observation of 227 values "
                             "instead of the checkpoint's 195: it adds branch_status [32], which "
                             "the checkpoint's policy was trained without") != std::string::npos,
                  e.out);
    CHECK(!fs::exists(d / "n1.h5"));
  }
}
