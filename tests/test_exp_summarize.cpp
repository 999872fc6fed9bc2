// exp/report/summarize: table and CSV rows are never cut, whatever the label and seed-list lengths;
// a copied run is counted once.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/report/summarize.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "test_util.hpp"

using namespace pz;
namespace fs = std::filesystem;

TEST_SUITE("exp_summarize") {
  TEST_CASE("regression: rows longer than 511 bytes are printed whole") {
    exp::Summary s;
    s.metrics = {"return_mean"};
    exp::ConfigSummary c;
    c.label = "ppo.hidden=[" + std::string(600, '7') + "]";
    c.kind = "run";
    for (int i = 0; i < 200; ++i) c.seeds.push_back(1000 + i);
    c.stats["return_mean"] = exp::SeedStats{200, -1.5, 0.25, -1.4, -1.6, -1.4};
    s.configs.push_back(c);
    const std::string csv = exp::summary_csv(s);
    std::istringstream rows(csv);
    std::string header, row;
    std::getline(rows, header);
    std::getline(rows, row);
    CHECK(row.find(c.label) != std::string::npos);
    CHECK(row.find("1199,") != std::string::npos);         // the last seed, then the next field
    CHECK(std::count(row.begin(), row.end(), ',') == 11);  // all 12 fields, ci95_high last
    CHECK(std::stod(row.substr(row.rfind(',') + 1)) == -1.4);
    const std::string table = exp::summary_table(s);
    CHECK(table.find("[-1.6, -1.4]") != std::string::npos);
  }

  // Guards against a copied trial directory counting as one more seed ("seeds 1 1 2").
  TEST_CASE("regression: a second run of the same configuration and seed is counted once") {
    auto record = [](const std::string& file, int64_t seed, double ret) {
      exp::RunRecord r;
      r.file = file;
      r.kind = "run";
      r.seed = seed;
      r.resolved = "[experiment]\nseed = " + std::to_string(seed) + "\n";
      r.config_key = "ppo\n[ppo]\nlearning_rate = 0.001\n";
      r.final_step = 96;
      r.last_eval = {{"return_mean", ret}, {"global_step", 96}};
      return r;
    };
    const std::vector<exp::RunRecord> runs = {record("a/trial_0/run.h5", 1, -1.0),
                                              record("a/trial_1/run.h5", 2, -3.0),
                                              record("b/trial_0/run.h5", 1, -1.0)};
    const exp::Summary s = exp::summarize_runs(runs, {"return_mean"});
    REQUIRE(s.configs.size() == 1);
    CHECK(s.configs[0].seeds == std::vector<int64_t>{1, 2});
    CHECK(s.configs[0].stats.at("return_mean").n == 2);
    CHECK(s.configs[0].stats.at("return_mean").mean == doctest::Approx(-2.0));
    REQUIRE(s.left_out.size() == 1);
    CHECK(s.left_out[0].find(
              "b/trial_0/run.h5: the configuration and seed 1 of a/trial_0/run.h5") == 0);
    CHECK(exp::summary_table(s).find("left out: b/trial_0/run.h5") != std::string::npos);
  }

  TEST_CASE("summary.csv names the split of every row") {
    exp::RunRecord r;
    r.file = "a/run.h5";
    r.kind = "run";
    r.resolved = "[eval]\nsplits = [\"iid\", \"load_stress\"]\n";
    r.config_key = "run";
    r.final_step = 96;
    r.last_eval = {{"return_mean", -1.0}, {"load_stress/return_mean", -2.0}, {"global_step", 96}};
    const exp::Summary s = exp::summarize_runs({r}, {"return_mean", "load_stress/return_mean"});
    std::istringstream rows(exp::summary_csv(s));
    std::string header, a, b;
    std::getline(rows, header);
    std::getline(rows, a);
    std::getline(rows, b);
    CHECK(header.find(",metric,split,mean,") != std::string::npos);
    CHECK(a.find(",return_mean,iid,-1,") != std::string::npos);
    CHECK(b.find(",load_stress/return_mean,load_stress,-2,") != std::string::npos);
  }

  TEST_CASE("find_runs leaves out runs whose status says they did not finish, unless asked") {
    const fs::path d = test::tmp_dir("summarize", "status");
    auto make = [&](const std::string& name, const std::string& status, int64_t seed) {
      fs::create_directories(d / name);
      std::map<std::string, std::string> attrs;
      if (!status.empty()) attrs = {{"status", status}, {"status_reason", "why " + status}};
      auto f = io::RunFile::create((d / name / "run.h5").string(), attrs, {},
                                   "[experiment]\nseed = " + std::to_string(seed) + "\n");
      f.append_row("metrics/eval", {{"global_step", 10}, {"return_mean", -1.0 * seed}});
      f.close();
    };
    make("a", "finished", 1);
    make("b", "failed", 2);
    make("c", "interrupted", 3);
    make("d", "", 4);  // written before runs recorded a status: counted
    std::vector<std::string> pending, unfinished;
    auto runs = exp::find_runs(d.string(), &pending, &unfinished);
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].seed == 1);
    CHECK(runs[0].status == "finished");
    CHECK(runs[1].seed == 4);
    REQUIRE(unfinished.size() == 2);
    CHECK(unfinished[0] == (d / "b" / "run.h5").string() + ": failed (why failed)");
    CHECK(unfinished[1] == (d / "c" / "run.h5").string() + ": interrupted (why interrupted)");
    unfinished.clear();
    runs = exp::find_runs(d.string(), &pending, &unfinished, true);
    CHECK(runs.size() == 4);
    CHECK(unfinished.empty());
    CHECK(pending.empty());
  }

  // /config/resolved records the thread count a run used; the benchmark's TSO PPO seeds ran on 2
  // threads and seed 3 on 1, and the table split them into two configurations of 3 and 1 seeds.
  TEST_CASE("regression: runs differing only in vec.threads are seeds of one configuration") {
    const fs::path d = test::tmp_dir("summarize", "threads");
    auto make = [&](const std::string& name, int64_t seed, int threads, int n_envs) {
      fs::create_directories(d / name);
      const std::string resolved = "[experiment]\nseed = " + std::to_string(seed) +
                                   "\n[vec]\nn_envs = " + std::to_string(n_envs) +
                                   "\nthreads = " + std::to_string(threads) + "\n";
      auto f = io::RunFile::create((d / name / "run.h5").string(), {{"status", "finished"}}, {},
                                   resolved);
      f.append_row("metrics/eval", {{"global_step", 10}, {"return_mean", -1.0 * seed}});
      f.close();
    };
    make("a", 1, 2, 8);
    make("b", 2, 1, 8);
    make("c", 3, 2, 16);  // another n_envs: another configuration
    std::vector<std::string> pending, unfinished;
    const auto runs = exp::find_runs(d.string(), &pending, &unfinished);
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].config_key == runs[1].config_key);
    CHECK(runs[0].config_key != runs[2].config_key);
    const exp::Summary s = exp::summarize_runs(runs, {"return_mean"});
    REQUIRE(s.configs.size() == 2);
    const auto& two = s.configs[0].seeds.size() == 2 ? s.configs[0] : s.configs[1];
    CHECK(two.seeds == std::vector<int64_t>{1, 2});
    CHECK(two.stats.at("return_mean").mean == doctest::Approx(-1.5));
  }

  TEST_CASE("--split picks a split's columns; cost channels zero everywhere are left out") {
    auto record = [](int64_t seed, double iid, double stress) {
      exp::RunRecord r;
      r.file = "t" + std::to_string(seed) + "/run.h5";
      r.kind = "run";
      r.seed = seed;
      r.resolved = "[eval]\nsplits = [\"iid\", \"load_stress\"]\n";
      r.config_key = "ppo\n";
      r.last_eval = {{"return_mean", iid},
                     {"shaped_return_mean", iid},
                     {"cost/overload", 0.0},
                     {"cost/voltage", 0.5 * seed},
                     {"load_stress/return_mean", stress},
                     {"load_stress/shaped_return_mean", stress},
                     {"load_stress/cost/overload", 1.0}};
      return r;
    };
    const std::vector<exp::RunRecord> runs = {record(1, -1, -10), record(2, -3, -30)};
    const exp::Summary first = exp::summarize_runs(runs, {});
    CHECK(first.metrics ==
          std::vector<std::string>{"return_mean", "shaped_return_mean", "cost/voltage"});
    CHECK(exp::summarize_runs(runs, {}, "iid").metrics == first.metrics);  // the bare columns
    const exp::Summary stress = exp::summarize_runs(runs, {}, "load_stress");
    CHECK(stress.metrics == std::vector<std::string>{"load_stress/return_mean",
                                                     "load_stress/shaped_return_mean",
                                                     "load_stress/cost/overload"});
    CHECK(stress.configs[0].stats.at("load_stress/return_mean").mean == doctest::Approx(-20));
    CHECK(exp::summary_table(stress).find("eval split: load_stress") != std::string::npos);
    CHECK_THROWS_WITH_AS(exp::summarize_runs(runs, {}, "load_stres"),
                         "--split load_stres: no run evaluated on it (splits: iid, load_stress); "
                         "did you mean 'load_stress'?",
                         core::ConfigError);
  }

  // Guards against a run with eval.splits = ["train", "iid"] summarized under --split iid with
  // its train numbers (its bare columns are its first split's).
  TEST_CASE("regression: runs listing their splits in another order are read split by split") {
    auto record = [](int64_t seed, const std::string& splits, double iid, double train) {
      exp::RunRecord r;
      r.file = "t" + std::to_string(seed) + "/run.h5";
      r.kind = "run";
      r.seed = seed;
      r.resolved = "[eval]\nsplits = " + splits + "\n";
      r.config_key = "ppo\n";
      const bool iid_first = splits.find("iid") < splits.find("train");
      r.last_eval = {
          {"global_step", 96},
          {"return_mean", iid_first ? iid : train},
          {iid_first ? "train/return_mean" : "iid/return_mean", iid_first ? train : iid}};
      return r;
    };
    const std::vector<exp::RunRecord> runs = {record(1, R"(["iid", "train"])", -1, -10),
                                              record(2, R"(["train", "iid"])", -3, -30)};
    const auto iid = exp::summarize_runs(runs, {"return_mean"}, "iid");
    CHECK(iid.configs.at(0).stats.at("return_mean").mean == doctest::Approx(-2));
    const auto train = exp::summarize_runs(runs, {"return_mean"}, "train");
    CHECK(train.configs.at(0).stats.at("train/return_mean").mean == doctest::Approx(-20));
    CHECK(train.configs.at(0).stats.at("train/return_mean").n == 2);
    // Without --split: the first run's main split; "iid/return_mean" names the same column.
    CHECK(exp::summarize_runs(runs, {"return_mean"}).configs.at(0).stats.at("return_mean").mean ==
          doctest::Approx(-2));
    const auto named = exp::summarize_runs(runs, {"iid/return_mean"});
    CHECK(named.metrics == std::vector<std::string>{"return_mean"});
    CHECK(named.configs.at(0).stats.at("return_mean").mean == doctest::Approx(-2));
  }

  TEST_CASE("a long configuration label is shown as config <i> and spelled out below") {
    exp::Summary s;
    s.metrics = {"return_mean"};
    exp::ConfigSummary a, b;
    a.label = "ppo.learning_rate=0.0003 ppo.hidden=[256, 256] ppo.ent_coef=0.01 seed-free";
    a.kind = b.kind = "run";
    b.label = "ppo.learning_rate=0.001";
    a.stats["return_mean"] = b.stats["return_mean"] = exp::SeedStats{2, -1, 0.5, -1, -2, 0};
    s.configs = {a, b};
    const std::string t = exp::summary_table(s);
    CHECK(t.find("\n  config 1 ") != std::string::npos);
    CHECK(t.find("\n  ppo.learning_rate=0.001 ") != std::string::npos);
    CHECK(t.find("configurations:\n  config 1: " + a.label + "\n") != std::string::npos);
  }

  // Guards against eval files of one split (`powerzoo eval CKPT --split cooling_stress`, whose
  // spec lists iid first) summarized as iid: their main split is the file's eval_splits.
  TEST_CASE(
      "regression: an eval file of another split than the spec's first is read as that split") {
    const fs::path d = test::tmp_dir("summarize", "eval_split");
    for (int64_t seed : {1, 2}) {
      const fs::path f = d / ("trial_" + std::to_string(seed) + ".h5");
      auto rf = io::RunFile::create(
          f.string(),
          {{"status", "finished"}, {"checkpoint", "ckpt.h5"}, {"eval_splits", "stress"}}, {},
          "[experiment]\nseed = " + std::to_string(seed) +
              "\n\n[eval]\nsplits = [\"iid\", \"stress\"]\n");
      rf.append_row("metrics/eval", {{"global_step", 10}, {"stress/return_mean", -1.0 * seed}});
      rf.close();
    }
    const auto runs = exp::find_runs(d.string());
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].kind == "eval");
    CHECK(runs[0].splits == std::vector<std::string>{"stress"});
    const exp::Summary s = exp::summarize_runs(runs, {"return_mean"}, "stress");
    CHECK(s.configs.at(0).stats.at("return_mean").mean == doctest::Approx(-1.5));
    CHECK(exp::summary_csv(s).find(",return_mean,stress,-1.5,") != std::string::npos);
    CHECK_THROWS_AS(exp::summarize_runs(runs, {"return_mean"}, "iid"), core::ConfigError);
  }

  // Guards against benchmarks/results/dcmg_ppo_calendar_reference (one folder per split, one
  // eval file per seed) summarized as one split with the others "copies", and --split iid nan.
  TEST_CASE("regression: eval files of one checkpoint on several splits are one seed each") {
    const fs::path d = test::tmp_dir("summarize", "split_folders");
    for (const std::string split : {"cooling_stress", "iid"})
      for (int64_t seed : {0, 1}) {
        fs::create_directories(d / split);
        const fs::path f = d / split / ("trial_" + std::to_string(seed) + ".h5");
        auto rf = io::RunFile::create(
            f.string(), {{"status", "finished"}, {"checkpoint", "ckpt.h5"}, {"eval_splits", split}},
            {},
            "[experiment]\nname = \"dcmg_ppo\"\nseed = " + std::to_string(seed) +
                "\n\n[eval]\nsplits = [\"iid\", \"cooling_stress\"]\n");
        const double ret = (split == "iid" ? -10.0 : -100.0) - seed;
        rf.append_row("metrics/eval", {{"global_step", 10}, {split + "/return_mean", ret}});
        rf.close();
      }
    const auto runs = exp::find_runs(d.string());
    REQUIRE(runs.size() == 4);
    const exp::Summary s = exp::summarize_runs(runs, {"return_mean"});
    CHECK(s.left_out.empty());
    CHECK(s.main_split == "iid");  // the spec's first, though cooling_stress sorts first
    REQUIRE(s.configs.size() == 1);
    CHECK(s.configs[0].label == "dcmg_ppo");  // the name without its TOML quotes
    CHECK(s.configs[0].seeds == std::vector<int64_t>{0, 1});
    CHECK(s.configs[0].stats.at("return_mean").mean == doctest::Approx(-10.5));
    CHECK(exp::summary_table(s).find("eval split: iid (--split for the others: cooling_stress)") !=
          std::string::npos);
    CHECK(
        exp::summarize_runs(runs, {"return_mean"}, "iid").configs[0].stats.at("return_mean").mean ==
        doctest::Approx(-10.5));
    const exp::Summary cs = exp::summarize_runs(runs, {"return_mean"}, "cooling_stress");
    CHECK(cs.configs[0].stats.at("cooling_stress/return_mean").mean == doctest::Approx(-100.5));
    CHECK(cs.configs[0].stats.at("cooling_stress/return_mean").n == 2);
    CHECK(exp::summary_csv(cs).find("\ndcmg_ppo,eval,2,") != std::string::npos);  // unquoted
  }

  // Guards against `powerzoo eval` of one run's step_0.h5 and step_21504.h5 summarized as one
  // configuration with the trained checkpoint "left out ... (a copy?)" (a new-user trial).
  TEST_CASE("regression: evaluations of one run's checkpoints at two steps are two rows") {
    const fs::path d = test::tmp_dir("summarize", "two_ckpts");
    auto make = [&](const std::string& ckpt, int64_t step, int64_t episodes, double ret) {
      const std::string name = fs::path(ckpt).stem().string() + "_" + std::to_string(episodes);
      auto rf = io::RunFile::create(
          (d / (name + ".h5")).string(),
          {{"status", "finished"}, {"checkpoint", "run/ckpt/" + ckpt}, {"eval_splits", "iid"}},
          {{"n_episodes", episodes}, {"global_step", step}},
          "[experiment]\nname = \"q\"\nseed = 0\n");
      rf.append_row("metrics/eval",
                    {{"global_step", static_cast<double>(step)}, {"iid/return_mean", ret}});
      rf.close();
    };
    make("step_0.h5", 0, 16, -155.8);
    make("step_21504.h5", 21504, 16, -90.0);
    make("step_21504.h5", 21504, 5, -91.0);  // the same checkpoint on fewer episodes
    const auto runs = exp::find_runs(d.string());
    REQUIRE(runs.size() == 3);
    const exp::Summary s = exp::summarize_runs(runs, {"return_mean"});
    CHECK(s.left_out.empty());
    REQUIRE(s.configs.size() == 3);
    std::map<std::string, double> by_label;
    for (const auto& c : s.configs) by_label[c.label] = c.stats.at("return_mean").mean;
    CHECK(by_label.at("checkpoint.episodes=16 checkpoint.file=step_0.h5") ==
          doctest::Approx(-155.8));
    CHECK(by_label.at("checkpoint.episodes=16 checkpoint.file=step_21504.h5") ==
          doctest::Approx(-90.0));
    CHECK(by_label.at("checkpoint.episodes=5 checkpoint.file=step_21504.h5") ==
          doctest::Approx(-91.0));
    // One split: the table still names it.
    CHECK(exp::summary_table(s).find("eval split: iid\n") != std::string::npos);
  }

  // Guards against --split load_stress --metric load_stress/x read as load_stress/load_stress/x.
  TEST_CASE("regression: --split S with --metric S/x names the column S/x") {
    exp::RunRecord r;
    r.file = "a/run.h5";
    r.kind = "run";
    r.resolved = "[eval]\nsplits = [\"iid\", \"load_stress\"]\n";
    r.config_key = "run";
    r.last_eval = {{"return_mean", -1.0}, {"load_stress/return_mean", -2.0}};
    const exp::Summary s = exp::summarize_runs({r}, {"load_stress/return_mean"}, "load_stress");
    CHECK(s.metrics == std::vector<std::string>{"load_stress/return_mean"});
    CHECK(s.configs.at(0).stats.at("load_stress/return_mean").mean == doctest::Approx(-2.0));
    CHECK(exp::summarize_runs({r}, {"return_mean"}, "load_stress").metrics == s.metrics);
  }
}
