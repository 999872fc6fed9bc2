// Files written by the version before [learner] (tests/data/legacy/README.md): their specs are
// refused naming the new keys, their checkpoints evaluate to what that version printed, and a
// run of it resumes: its rows kept byte for byte, its training continued to float rounding.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/eval/eval_command.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/spec/spec_migrate.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "test_run_util.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kLegacy = std::string(PZ_SOURCE_DIR) + "/tests/data/legacy/";

/// "  key = value" lines of `powerzoo eval` output.
std::map<std::string, double> printed_metrics(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    const size_t eq = l.find(" = ");
    if (l.rfind("  ", 0) != 0 || eq == std::string::npos) continue;
    out[l.substr(2, eq - 2)] = std::stod(l.substr(eq + 3));
  }
  return out;
}

// Evaluates a legacy checkpoint and compares every metric with the old binary's printout
// (printed with 10 significant digits) to relative `eps`.
void check_eval_as_before(const std::string& ckpt, const std::string& printed, double eps) {
  const fs::path out = fs::temp_directory_path() / ("pz_legacy_eval_" + std::to_string(::getpid()));
  pz::exp::EvalCommandOptions opt;
  opt.path = kLegacy + ckpt;
  opt.episodes = 2;
  opt.threads = 1;
  opt.out = (out / "e.h5").string();
  fs::create_directories(out);
  const auto r = pz::exp::run_eval_command(opt);
  const auto old = printed_metrics(pz::test::read_text(kLegacy + printed));
  REQUIRE(old.size() > 8);
  for (const auto& [k, v] : old) {
    CAPTURE(k);
    REQUIRE(r.metrics.count(k));
    CHECK(r.metrics.at(k) == doctest::Approx(v).epsilon(eps));
  }
  fs::remove_all(out);
}

}  // namespace

TEST_SUITE("exp_legacy") {
  TEST_CASE("a spec of the previous layout is refused naming the new key") {
    CHECK_THROWS_WITH_AS(pz::exp::load_spec(kLegacy + "ppo_tiny.toml"),
                         (kLegacy + "ppo_tiny.toml:12: [ppo] total_steps moved to [learner] "
                                    "total_steps (see docs/spec-reference.md)")
                             .c_str(),
                         pz::core::ConfigError);
    CHECK_THROWS_WITH_AS(pz::exp::load_spec(kLegacy + "sac_tiny.toml"),
                         doctest::Contains("sac_tiny.toml:11: [ppo] algo moved to [learner] algo"),
                         pz::core::ConfigError);
    CHECK_THROWS_WITH_AS(pz::exp::parse_spec("", "s.toml", {"ppo.total_steps=10"}),
                         "command line override 'ppo.total_steps=10': ppo.total_steps moved to "
                         "[learner] total_steps (override learner.total_steps=...)",
                         pz::core::ConfigError);
    CHECK_THROWS_WITH_AS(pz::exp::parse_spec("[ppo]\nlambda_lr = 0.1\n", "s.toml"),
                         doctest::Contains("s.toml:2: [ppo] lambda_lr moved to [lagrangian] "
                                           "lambda_lr"),
                         pz::core::ConfigError);
    CHECK_THROWS_WITH_AS(pz::exp::parse_spec("[ppo]\nsaute_unsafe_reward = -1\n", "s.toml"),
                         doctest::Contains("moved to [saute] unsafe_reward"),
                         pz::core::ConfigError);
  }

  TEST_CASE(
      "stored specs of the previous layout migrate: moved keys, SAC's [ppo] keys, unread "
      "sections dropped") {
    std::string resolved;
    pz::io::read_checkpoint(kLegacy + "sac_step_192.h5", &resolved);
    REQUIRE(resolved.find("\nalgo = \"sac\"") != std::string::npos);
    REQUIRE(resolved.find("[learner]") == std::string::npos);
    const auto s = pz::exp::parse_spec(pz::exp::migrate_stored_spec(resolved, "x"), "x", {}, true);
    CHECK(s.learner.algo == "sac");
    CHECK(s.learner.total_steps == 192);
    CHECK(s.learner.rollout_length == 12);
    REQUIRE(s.learner_sections.size() == 1);
    const auto& sac = s.learner_sections.at("sac");
    CHECK(sac.number("learning_rate") == 1e-3);  // was [ppo] learning_rate
    CHECK(sac.at("hidden") == pz::core::ParamValue(std::vector<int64_t>{8, 8}));
    CHECK(sac.integer("buffer_size") == 256);
    // Text already in the current layout is left alone.
    const std::string now = pz::exp::to_toml(s);
    CHECK(pz::exp::migrate_stored_spec(now, "x") == now);
  }

  TEST_CASE("eval of a SAC checkpoint of the previous version gives what it printed") {
    check_eval_as_before("sac_step_192.h5", "sac_eval_old.txt", 1e-9);
  }

  TEST_CASE("eval of an IPPO checkpoint of the previous version gives what it printed") {
    // The learner's tanh rounds differently since d88eaab (fused Horner steps; SAC's networks are
    // ReLU): the same policy, its actions and metrics equal to float rounding.
    check_eval_as_before("ippo_step_96.h5", "ippo_eval_old.txt", 1e-6);
  }

  TEST_CASE("--resume of a run of the previous version keeps its rows and continues its training") {
    const fs::path d =
        fs::temp_directory_path() / ("pz_legacy_resume_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::copy(kLegacy + "ppo_run", d, fs::copy_options::recursive);
    // run.h5 holds the old version's uninterrupted run to 96 steps; resume from step 48.
    const std::string ref = d.string() + "_reference.h5";
    fs::copy_file(d / "run.h5", ref);
    std::string text = pz::test::read_text(kLegacy + "ppo_tiny.toml");
    text.replace(text.find("[ppo]\ntotal_steps"), 17, "[learner]\ntotal_steps");
    text.replace(text.find("n_minibatches"), 13, "[ppo]\nn_minibatches");
    const auto spec = pz::exp::parse_spec(text, kLegacy + "ppo_tiny.toml");
    pz::exp::TrainOptions opt;
    opt.out_dir = d.string();
    opt.resume = true;
    opt.quiet = true;
    opt.threads = 1;
    pz::exp::train(spec, opt);
    // Row 0 (step 48) was written before the checkpoint and stays byte for byte. Row 1 (step 96)
    // is this version's training from the old checkpoint: the old version's row up to the float
    // rounding of the learner's tanh, which moved on purpose in d88eaab (scripts/check_numbers.py).
    int compared = 0;
    for (const auto& c : pz::test::datasets(ref, "metrics/train")) {
      if (pz::test::timing_column(c)) continue;
      const auto a = pz::io::read_column(ref, c);
      const auto b = pz::io::read_column((d / "run.h5").string(), c);
      CAPTURE(c);
      REQUIRE(a.size() == 2);
      REQUIRE(b.size() == 2);
      CHECK(std::memcmp(&a[0], &b[0], sizeof(double)) == 0);
      CHECK(b[1] == doctest::Approx(a[1]).epsilon(1e-4).scale(1e-3));
      ++compared;
    }
    CHECK(compared > 10);
    fs::remove_all(d);
    fs::remove(ref);
  }
}
