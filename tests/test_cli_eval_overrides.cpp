// `powerzoo eval CHECKPOINT key=value ...`: an [env] override that keeps the observation and
// action layout changes the metrics and is recorded in the eval file; one that changes the layout,
// or a key of another section, is refused with exit 2 and nothing written.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include "powerzoo/core/sha256.hpp"
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

// The names of an eval file's trajectories/iid/info datasets, sorted, with their shapes.
std::string info_datasets(const std::string& file) {
  const auto py = sh("/usr/bin/python3 -c \"import h5py; g = h5py.File('" + file +
                     "', 'r')['trajectories/iid/info']; print(sorted((k, g[k].shape) for k in "
                     "g))\"");
  REQUIRE_MESSAGE(py.code == 0, py.out);
  return py.out;
}

// Every value of an eval file's trajectories/<split>/info/<name>.
std::vector<float> info_values(const std::string& file, const std::string& name,
                               const std::string& split = "iid") {
  const auto py =
      sh("/usr/bin/python3 -c \"import h5py; o = h5py.File('" + file + "', 'r')['trajectories/" +
         split + "/info/" + name + "'][...]; print(' '.join(str(x) for x in o.ravel()))\"");
  REQUIRE_MESSAGE(py.code == 0, py.out);
  std::vector<float> out;
  std::istringstream in(py.out);
  for (float x; in >> x;) out.push_back(x);
  return out;
}

// A root attribute of comma-separated names, split.
std::vector<std::string> names_attr(const std::string& file, const std::string& attr) {
  std::vector<std::string> out;
  std::istringstream in(pz::io::read_string_attr(file, attr));
  for (std::string n; std::getline(in, n, ',');) out.push_back(n);
  return out;
}

// The number of cost channels of an eval file's trajectories/<split>/costs [T, N, k].
int cost_columns(const std::string& file, const std::string& split) {
  const auto py = sh("/usr/bin/python3 -c \"import h5py; print('k', h5py.File('" + file +
                     "', 'r')['trajectories/" + split + "/costs'].shape[-1])\"");
  REQUIRE_MESSAGE(py.code == 0, py.out);
  return std::stoi(py.out.substr(py.out.find("k ") + 2));
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

    // Refused: exit 2, the message saying `says`, and no eval file written.
    const std::string bad = (d / "bad.h5").string();
    auto refused = [&](const std::string& args, const std::string& says) {
      const auto b = sh(kBin + " eval " + ck + " " + args + " --out " + bad);
      const std::string what = args + ": " + b.out;
      CHECK_MESSAGE(b.code == 2, what);
      CHECK_MESSAGE(b.out.find(says) != std::string::npos, what);
      return b.out;
    };
    // A case with other buses and generators changes the observation and action.
    refused("env.case=case14 --threads 1",
            "with overrides 'env.case=case14': the env has an observation of");
    // A learner key (the checkpoint fixes the learner).
    refused("ppo.learning_rate=1e-3",
            "expected an [env] or [eval] key, found the [ppo] key ppo.learning_rate");
    // Regression (a new-user trial): another env or task blamed a key of the checkpoint's stored
    // spec ("config/resolved:10: unknown key [env] case"), and seed=3 was called a [seed] key.
    for (const std::string o : {"env.id=dist_grid", "env.task=tso"})
      CHECK(refused(o, "eval override '" + o + "': the checkpoint was trained in env")
                .find("config/resolved") == std::string::npos);
    refused("seed=3", "found 'seed' (experiment.seed, the seed of the run)");
    // Regression (a new-user trial): keys the evaluation does not read were accepted and
    // recorded as if applied (env.split: the numbers were iid's; eval.n_episodes beside
    // --episodes: the file said 4 episodes, 6 ran).
    refused("env.split=load_stress --episodes 1", "eval override 'env.split=load_stress'");
    refused("eval.every_steps=10", "eval override 'eval.every_steps=10'");
    refused("eval.n_episodes=4 --episodes 6", "eval override 'eval.n_episodes=4'");
    // Regression (a new-user trial): "[env] profile: [env] profile: expected ...".
    refused("env.profile=nosuch_profile",
            "'env.profile=nosuch_profile': [env] profile: expected a bundled");
    // An unknown env key, with the checkpoint's spec named.
    refused("env.load_scal=1.3", "load_scal");
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
    // Guards issue 36: eval files named neither their cost columns (the split adds
    // unserved_load, maybe spilled_generation) nor the observation and action, as run files do.
    const std::string run_h5 = (d / "run" / "run.h5").string();
    const auto costs = names_attr(n1, "cost_names");
    CHECK(static_cast<int>(costs.size()) == cost_columns(n1, "n1_branch"));
    CHECK(costs.size() > names_attr(run_h5, "cost_names").size());
    CHECK(std::find(costs.begin(), costs.end(), "unserved_load") != costs.end());
    CHECK(names_attr(n1, "obs_names") == names_attr(run_h5, "obs_names"));
    CHECK(names_attr(n1, "obs_names").size() == 195);
    CHECK(names_attr(n1, "action_names") == names_attr(run_h5, "action_names"));
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
    // Guards issue 36: the traces lost info/branch_status, which the observation keeps. Kept, all
    // in service, as the env whose outages never strike writes them.
    CHECK(info_datasets(off) == info_datasets(rare));
    const auto traced = info_values(off, "branch_status");
    REQUIRE(traced.size() == 48 * 2 * 32);
    CHECK(std::all_of(traced.begin(), traced.end(), [](float x) { return x == 1.0f; }));
    CHECK(traced == info_values(rare, "branch_status"));

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

  // Guards issue 36 (a third user trial): a TSO checkpoint trained with random branch outages
  // was refused on n1_gen ("it adds gen_status [54], which the checkpoint's policy was trained
  // without"), while one trained without outages evaluated there blind. It acts blind to the
  // unit outage now: its own observation, the unit status in the traces.
  TEST_CASE("a checkpoint trained with branch outages evaluates on n1_gen, blind to the units") {
    const fs::path d = pz::test::tmp_dir("pz_cli", "eval_blind_kind");
    const auto spec = write(
        d / "tso.toml",
        "[experiment]\nname = \"tso_branch\"\nseed = 4\n[env]\ntask = \"tso\"\n"
        "outage_rate = 0.002\noutage_duration_steps = 4\noutage_elements = \"branch\"\n[vec]\n"
        "n_envs = 2\n[learner]\ntotal_steps = 96\nrollout_length = 48\n[ppo]\nn_minibatches = "
        "2\nhidden = [8, 8]\n"
        "[eval]\nevery_steps = 96\nn_episodes = 1\n[output]\ncheckpoint_every_steps = 96\n");
    const auto r = sh(kBin + " run " + spec + " --quiet --threads 1 --out " + (d / "run").string());
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const std::string ck = (d / "run" / "ckpt" / "step_96.h5").string();
    const std::string out = (d / "n1.h5").string();
    const auto e =
        sh(kBin + " eval " + ck + " --split n1_gen --episodes 2 --threads 1 --out " + out);
    REQUIRE_MESSAGE(e.code == 0, e.out);
    CHECK_MESSAGE(e.out.find("note: the env of split n1_gen observes ") != std::string::npos,
                  e.out);
    CHECK_MESSAGE(e.out.find("gen_status [") != std::string::npos, e.out);
    CHECK_MESSAGE(e.out.find("the policy acts blind to them; the trajectories record them "
                             "(info/gen_status)") != std::string::npos,
                  e.out);
    // The observation is the checkpoint's: its names, no gen_status among them.
    const auto names = names_attr(out, "obs_names");
    CHECK(names == names_attr((d / "run" / "run.h5").string(), "obs_names"));
    CHECK(std::none_of(names.begin(), names.end(), [](const std::string& n) {
      return n.find("gen_status") != std::string::npos;
    }));
    CHECK(std::any_of(names.begin(), names.end(), [](const std::string& n) {
      return n.find("branch_status") != std::string::npos;
    }));
    // The traces show the unit outage of each episode: some unit out at some step.
    const auto gen = info_values(out, "gen_status", "n1_gen");
    REQUIRE(!gen.empty());
    CHECK(std::count(gen.begin(), gen.end(), 0.0f) > 0);
    CHECK(std::all_of(gen.begin(), gen.end(), [](float x) { return x == 0.0f || x == 1.0f; }));
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

  // Guards issue 36 (a user trial): a checkpoint whose scenario file had moved was refused with
  // "'data/files': expected the data files env.case, env.profile (those its spec reads), found
  // env.case, env.profile, env.outages", with an env.outages override too.
  TEST_CASE("a checkpoint whose scenario file moved: named as missing; an override replaces it") {
    const fs::path d = pz::test::tmp_dir("pz_cli", "eval_moved_outages");
    fs::create_directories(d / "csv");
    fs::create_directories(d / "moved");
    write(d / "csv" / "mut.csv", "step,element,index,status\n4,branch,10,0\n");
    const std::string ck = train_tiny_dso(d, "outages = \"csv/mut.csv\"\n");
    const std::string was = (d / "csv" / "mut.csv").string(),
                      now = (d / "moved" / "mut.csv").string();
    fs::rename(was, now);
    const std::string bad = (d / "bad.h5").string();
    const auto b = sh(kBin + " eval " + ck + " --threads 1 --out " + bad);
    CHECK(b.code == 2);
    CHECK_MESSAGE(
        b.out.find(ck +
                   ": [env] outages: expected the data file the checkpoint was "
                   "trained on, " +
                   was +
                   ", found it missing or unreadable (moved or "
                   "deleted since); to evaluate, give its new place or another file "
                   "as env.outages=FILE, or none as env.outages='\"\"'") != std::string::npos,
        b.out);
    CHECK_FALSE(fs::exists(bad));

    // Its new place: the run's own evaluation (the file is the same), without a warning.
    const std::string moved = (d / "moved.h5").string();
    const auto e1 =
        sh(kBin + " eval " + ck + " env.outages=" + now + " --threads 1 --out " + moved);
    REQUIRE_MESSAGE(e1.code == 0, e1.out);
    CHECK_MESSAGE(e1.out.find("warning") == std::string::npos, e1.out);
    CHECK(pz::io::read_string_attr(moved, "data_changed_since_checkpoint").empty());
    CHECK(pz::io::read_string_attr(moved, "data_files")
              .find("env.outages\t" + now + "\t" + pz::core::sha256_file(now) + "\n") !=
          std::string::npos);
    const auto own =
        pz::io::read_column((d / "run" / "run.h5").string(), "metrics/eval/iid/return_mean");
    REQUIRE(!own.empty());
    CHECK(pz::io::read_column(moved, "metrics/eval/iid/return_mean") ==
          std::vector<double>{own.back()});
    // The eval file names the unserved_load column the scenario adds.
    CHECK(names_attr(moved, "cost_names").back() == "unserved_load");
    CHECK(static_cast<int>(names_attr(moved, "cost_names").size()) == cost_columns(moved, "iid"));

    // Another scenario (line 5 out from step 2): accepted; the checkpoint's file is not read, so
    // neither its absence nor its content is reported.
    const auto other = write(d / "other.csv", "step,element,index,status\n2,branch,5,0\n");
    const std::string oth = (d / "other.h5").string();
    const auto e2 =
        sh(kBin + " eval " + ck + " env.outages=" + other + " --threads 1 --out " + oth);
    REQUIRE_MESSAGE(e2.code == 0, e2.out);
    CHECK_MESSAGE(e2.out.find("warning") == std::string::npos, e2.out);
    CHECK(pz::io::read_string_attr(oth, "data_changed_since_checkpoint").empty());
    // None: the policy observed branch_status [32] (auto with a scenario), whose kinds only the
    // file knew, so the layout rebuilt without it is not the policy's: refused, naming the fix.
    const auto b2 = sh(kBin + " eval " + ck + " env.outages='\"\"' --threads 1 --out " + bad);
    CHECK(b2.code == 2);
    CHECK_MESSAGE(b2.out.find("expected [195, 12, 8, 8], found [227, 12, 8, 8] (its [env] outages "
                              "file is gone, so its env was rebuilt with env.outages='\"\"' for "
                              "the layout; give the file's new place as env.outages=FILE)") !=
                      std::string::npos,
                  b2.out);
    CHECK_FALSE(fs::exists(bad));
    // Back in place but edited: an evaluation that reads it warns, one that replaces it does not.
    fs::rename(now, was);
    write(was, "step,element,index,status\n4,branch,11,0\n");
    const auto e3 = sh(kBin + " eval " + ck + " --threads 1 --out " + (d / "edited.h5").string());
    REQUIRE_MESSAGE(e3.code == 0, e3.out);
    CHECK_MESSAGE(e3.out.find("warning: a data file changed since " + ck) != std::string::npos,
                  e3.out);
    const auto e4 = sh(kBin + " eval " + ck + " env.outages=" + other + " --threads 1 --out " +
                       (d / "other2.h5").string());
    REQUIRE_MESSAGE(e4.code == 0, e4.out);
    CHECK_MESSAGE(e4.out.find("warning") == std::string::npos, e4.out);
    CHECK(pz::io::read_column((d / "other2.h5").string(), "metrics/eval/iid/return_mean") ==
          pz::io::read_column(oth, "metrics/eval/iid/return_mean"));

    // A policy blind to the status (outage_status_obs = false): its scenario removed, evaluated
    // as without outages, with no word about the gone file.
    const fs::path d2 = d / "blind";
    fs::create_directories(d2 / "csv");
    write(d2 / "csv" / "mut.csv", "step,element,index,status\n4,branch,10,0\n");
    const std::string ck2 =
        train_tiny_dso(d2, "outages = \"csv/mut.csv\"\noutage_status_obs = false\n");
    fs::remove(d2 / "csv" / "mut.csv");
    const std::string none = (d / "none.h5").string();
    const auto e5 = sh(kBin + " eval " + ck2 + " env.outages='\"\"' --threads 1 --out " + none);
    REQUIRE_MESSAGE(e5.code == 0, e5.out);
    CHECK_MESSAGE(e5.out.find("warning") == std::string::npos, e5.out);
    CHECK(pz::io::read_string_attr(none, "data_files").find("env.outages") == std::string::npos);
    CHECK(names_attr(none, "obs_names").size() == 195);
    // The layout rebuilt without the file has no outage channel: none is reported.
    const auto costs = names_attr(none, "cost_names");
    CHECK(std::find(costs.begin(), costs.end(), "unserved_load") == costs.end());
    CHECK(static_cast<int>(costs.size()) == cost_columns(none, "iid"));
  }
}
