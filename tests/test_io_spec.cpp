// Tests for io/spec: defaults, the DESIGN.md §3 example, strict errors, overrides, round trip.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/spec/spec.hpp"

using pz::core::ConfigError;
using pz::exp::parse_spec;
using pz::exp::Spec;

namespace {

/// The example of DESIGN.md §3, verbatim.
const char* kDesignExample = R"(
[experiment]
name = "case5-dispatch"
seed = 0
out_dir = "runs"             # run directory = out_dir/name/<trial or timestamp>

[env]
id = "trans_grid"            # see `powerzoo envs`; or task = "tso" for a frozen task preset
case = "case5"               # bundled name or path to a MATPOWER .m file
profile = "gb_demand"        # bundled profile or path to CSV
split = "train"
horizon = 48                 # steps per episode
dt_hours = 0.5

[vec]
n_envs = 64
threads = 0                  # 0 = all cores

[learner]
total_steps = 1_000_000
rollout_length = 48

[ppo]
n_epochs = 4
n_minibatches = 4
learning_rate = 3e-4
gamma = 0.995
gae_lambda = 0.95
clip_range = 0.2
entropy_coef = 0.01
critic_loss_weight = 0.5
max_grad_norm = 0.5
hidden = [64, 64]

[eval]
every_steps = 50_000
n_episodes = 16
splits = ["iid"]

[output]
trajectories = "eval"        # none | eval | train-sample
checkpoint_every_steps = 100_000
keep_checkpoints = 3

[sweep]
seed = [0, 1, 2, 3, 4]
"ppo.learning_rate" = [1e-4, 3e-4]
)";

/// The ConfigError message of `fn`, or "" if it did not throw one.
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// Field-by-field equality of two specs (PpoConfig has no operator==).
/// A [ppo] value of a spec, comparable with plain values.
struct PV {
  const pz::core::ParamValue& v;
  bool operator==(double x) const {
    return std::holds_alternative<double>(v) ? std::get<double>(v) == x
                                             : static_cast<double>(std::get<int64_t>(v)) == x;
  }
  bool operator==(int x) const { return operator==(static_cast<double>(x)); }
  bool operator==(const std::string& x) const { return std::get<std::string>(v) == x; }
  bool operator==(const std::vector<int>& x) const {
    return std::get<std::vector<int64_t>>(v) == std::vector<int64_t>(x.begin(), x.end());
  }
  operator bool() const { return std::get<bool>(v); }
};
PV P(const Spec& s, const char* key) { return PV{s.learner_sections.at("ppo").at(key)}; }

void check_same(const Spec& a, const Spec& b) {
  CHECK(a.experiment.name == b.experiment.name);
  CHECK(a.experiment.seed == b.experiment.seed);
  CHECK(a.experiment.out_dir == b.experiment.out_dir);
  CHECK(a.env.id == b.env.id);
  CHECK(a.env.task == b.env.task);
  CHECK(a.env.split == b.env.split);
  CHECK(a.env.params == b.env.params);
  CHECK(a.vec.n_envs == b.vec.n_envs);
  CHECK(a.vec.threads == b.vec.threads);
  CHECK(a.learner.total_steps == b.learner.total_steps);
  CHECK(a.learner.rollout_length == b.learner.rollout_length);
  CHECK(a.learner.algo == b.learner.algo);
  CHECK(a.learner_sections == b.learner_sections);
  CHECK(a.penalty == b.penalty);
  CHECK(a.eval.every_steps == b.eval.every_steps);
  CHECK(a.eval.n_episodes == b.eval.n_episodes);
  CHECK(a.eval.splits == b.eval.splits);
  CHECK(a.output.trajectories == b.output.trajectories);
  CHECK(a.output.checkpoint_every_steps == b.output.checkpoint_every_steps);
  CHECK(a.output.keep_checkpoints == b.output.keep_checkpoints);
  CHECK(a.sweep_toml == b.sweep_toml);
}

}  // namespace

TEST_SUITE("io_spec") {
  TEST_CASE("empty spec gives the documented defaults") {
    Spec s = parse_spec("", "empty.toml");
    Spec d;
    check_same(s, d);
    CHECK(s.source_path == "empty.toml");
    CHECK(s.experiment.name == "experiment");
    CHECK(s.env.params.str("case") == "case5");
    CHECK(s.vec.n_envs == 64);
    CHECK(P(s, "hidden") == std::vector<int>{64, 64});
    CHECK(P(s, "truncation") == std::string("bootstrap"));
    CHECK(s.eval.splits == std::vector<std::string>{"iid"});
    CHECK(s.penalty.empty());
    CHECK(s.sweep_toml.empty());
  }

  TEST_CASE("DESIGN.md example parses with the right values") {
    Spec s = parse_spec(kDesignExample, "spec.toml");
    CHECK(s.experiment.name == "case5-dispatch");
    CHECK(s.experiment.seed == 0);
    CHECK(s.experiment.out_dir == "runs");
    CHECK(s.env.id == "trans_grid");
    CHECK(s.env.params.str("case") == "case5");
    CHECK(s.env.params.str("profile") == "gb_demand");
    CHECK(s.env.split == "train");
    CHECK(s.env.params.integer("horizon") == 48);
    CHECK(s.env.params.number("dt_hours") == 0.5);
    CHECK(s.vec.n_envs == 64);
    CHECK(s.vec.threads == 0);
    CHECK(s.learner.total_steps == 1'000'000);
    CHECK(s.learner.rollout_length == 48);
    CHECK(P(s, "n_epochs") == 4);
    CHECK(P(s, "n_minibatches") == 4);
    CHECK(P(s, "learning_rate") == 3e-4);
    CHECK(P(s, "gamma") == 0.995);
    CHECK(P(s, "gae_lambda") == 0.95);
    CHECK(P(s, "clip_range") == 0.2);
    CHECK(P(s, "entropy_coef") == 0.01);
    CHECK(P(s, "critic_loss_weight") == 0.5);
    CHECK(P(s, "max_grad_norm") == 0.5);
    CHECK(P(s, "hidden") == std::vector<int>{64, 64});
    CHECK(s.eval.every_steps == 50'000);
    CHECK(s.eval.n_episodes == 16);
    CHECK(s.eval.splits == std::vector<std::string>{"iid"});
    CHECK(s.output.trajectories == "eval");
    CHECK(s.output.checkpoint_every_steps == 100'000);
    CHECK(s.output.keep_checkpoints == 3);
    CHECK(contains(s.sweep_toml, "seed = [0, 1, 2, 3, 4]"));
    CHECK(contains(s.sweep_toml, "\"ppo.learning_rate\" = [0.0001, 0.0003]"));
  }

  TEST_CASE("remaining keys, TOML integers with underscores, ints for floats, penalty table") {
    Spec s = parse_spec(R"(
[env]
task = "tso"
load_scale = 2
reward_scale = 0.1
[learner]
total_steps = 1_000_000

[ppo]
weight_decay = 0.01
adam_eps = 1e-5
init_log_std = -1
normalize_obs = false
normalize_advantages = false
normalize_rewards = true
truncation = "zero_td"

[reward]
penalty = { thermal_overload = 10, reserve_shortfall = 2.5 }
)",
                        "spec.toml");
    CHECK(s.env.task == "tso");
    CHECK(s.env.params.number("load_scale") == 2.0);
    CHECK(s.learner.total_steps == 1'000'000);
    CHECK(P(s, "weight_decay") == 0.01);
    CHECK(P(s, "adam_eps") == 1e-5);
    CHECK(P(s, "init_log_std") == -1.0);
    CHECK_FALSE(P(s, "normalize_obs"));
    CHECK_FALSE(P(s, "normalize_advantages"));
    CHECK(P(s, "normalize_rewards"));
    CHECK(P(s, "truncation") == std::string("zero_td"));
    CHECK(s.penalty.at("thermal_overload") == 10.0);
    CHECK(s.penalty.at("reserve_shortfall") == 2.5);
  }

  TEST_CASE("unknown key: did-you-mean and line number") {
    std::string e = error_of([] {
      parse_spec("[experiment]\nname = \"x\"\n\n[ppo]\ngamma = 0.9\nlerning_rate = 1e-3\n",
                 "spec.toml");
    });
    CHECK(e == "spec.toml:6: unknown key [ppo] lerning_rate (did you mean 'learning_rate'?)");
    e = error_of([] { parse_spec("[ppoo]\ngamma = 0.9\n", "spec.toml"); });
    CHECK(contains(e, "spec.toml:1: unknown section [ppoo] (did you mean 'ppo'?)"));
    e = error_of([] { parse_spec("seed = 3\n", "spec.toml"); });
    CHECK(contains(e, "spec.toml:1:"));
    CHECK(contains(e, "[experiment] seed"));
    e = error_of([] { parse_spec("[vec]\nzzzz = 1\n", "spec.toml"); });
    CHECK(contains(e, "valid keys: n_envs, threads"));
  }

  TEST_CASE("wrong type names key, expected and found") {
    std::string e = error_of([] { parse_spec("[ppo]\nlearning_rate = \"fast\"\n", "spec.toml"); });
    CHECK(e == "spec.toml:2: [ppo] learning_rate: expected a number > 0, found \"fast\"");
    e = error_of([] { parse_spec("\n\n[ppo]\nlearning_rate = -0.001\n", "spec.toml"); });
    CHECK(e == "spec.toml:4: [ppo] learning_rate: expected a number > 0, found -0.001");
    e = error_of([] { parse_spec("[learner]\ntotal_steps = 1.5\n", "spec.toml"); });
    CHECK(contains(e, "[learner] total_steps: expected an integer >= 1, found 1.5"));
    e = error_of([] { parse_spec("[ppo]\nhidden = [64, 0]\n", "spec.toml"); });
    CHECK(contains(e, "[ppo] hidden"));
    e = error_of([] { parse_spec("[ppo]\nhidden = []\n", "spec.toml"); });
    CHECK(contains(e, "non-empty array"));
    e = error_of([] { parse_spec("[ppo]\ngamma = 1.5\n", "spec.toml"); });
    CHECK(contains(e, "[ppo] gamma: expected a number in [0, 1], found 1.5"));
    e = error_of([] { parse_spec("[ppo]\ntruncation = \"none\"\n", "spec.toml"); });
    CHECK(contains(e, "one of \"bootstrap\", \"zero_td\""));
    e = error_of([] { parse_spec("[ppo]\nnormalize_obs = 1\n", "spec.toml"); });
    CHECK(contains(e, "expected true or false, found 1"));
    e = error_of([] { parse_spec("[experiment]\nname = \"a/b\"\n", "spec.toml"); });
    CHECK(contains(e, "[experiment] name"));
    e = error_of([] { parse_spec("[env]\ndt_hours = 25\n", "spec.toml"); });
    CHECK(contains(e, "(0, 24]"));
    e = error_of([] { parse_spec("[output]\ntrajectories = \"all\"\n", "spec.toml"); });
    CHECK(contains(e, "\"train-sample\""));
    e = error_of([] { parse_spec("[reward]\npenalty = { x = -1 }\n", "spec.toml"); });
    CHECK(contains(e, "[reward] penalty.x: expected a number >= 0, found -1"));
    e = error_of([] { parse_spec("[eval]\nsplits = []\n", "spec.toml"); });
    CHECK(contains(e, "[eval] splits"));
    e = error_of([] { parse_spec("ppo = 3\n", "spec.toml"); });
    CHECK(contains(e, "[ppo] must be a table"));
    e = error_of([] { parse_spec("[ppo]\nlearning_rate = nan\n", "spec.toml"); });
    CHECK(contains(e, "found nan"));
  }

  // Issue 36 (a user trial): env.outage_duration_steps=8.0, =1e1 and env.horizon=4.8e1 were read
  // as integers. Every integer key reads a TOML integer only (1_000 and "1000" on the command
  // line still do), in the spec file and in overrides.
  TEST_CASE("integer keys refuse float notation") {
    std::string e = error_of([] { parse_spec("[env]\nhorizon = 4.8e1\n", "spec.toml"); });
    CHECK(e ==
          "spec.toml:2: [env] horizon: expected an integer >= 1, found 48.0 (a float: write the "
          "integer without a decimal point or exponent, 48)");
    e = error_of([] { parse_spec("", "spec.toml", {"env.horizon=4.8e1"}); });
    CHECK(e ==
          "command line override 'env.horizon=4.8e1': [env] horizon: expected an integer >= 1, "
          "found 48.0 (a float: write the integer without a decimal point or exponent, 48)");
    e = error_of([] {
      parse_spec("", "spec.toml", {"env.outage_rate=0.1", "env.outage_duration_steps=8.0"});
    });
    CHECK(e ==
          "command line override 'env.outage_duration_steps=8.0': [env] outage_duration_steps: "
          "expected an integer in [1, 1000000], found 8.0 (a float: write the integer without a "
          "decimal point or exponent, 8)");
    e = error_of([] {
      parse_spec("", "spec.toml", {"env.outage_rate=0.1", "env.outage_duration_steps=1e1"});
    });
    CHECK(contains(e, "found 10.0 (a float: write the integer"));
    e = error_of([] { parse_spec("[learner]\ntotal_steps = 1e6\n", "spec.toml"); });
    CHECK(contains(e, "spec.toml:2: [learner] total_steps: expected an integer >= 1, found"));
    CHECK(contains(e, "write the integer without a decimal point or exponent, 1000000)"));
    // Array elements too; a non-integral float has no integer to suggest.
    e = error_of([] { parse_spec("[ppo]\nhidden = [64, 6.4e1]\n", "spec.toml"); });
    CHECK(contains(e,
                   "spec.toml:2: [ppo] hidden: expected a non-empty array of integers in [1, "
                   "4096], found element 64.0 (a float: write the integer"));
    e = error_of([] { parse_spec("[vec]\nn_envs = 4.5\n", "spec.toml"); });
    CHECK(e == "spec.toml:2: [vec] n_envs: expected an integer in [1, 65536], found 4.5");
    // Integers stay accepted: underscores, and overrides written as integers.
    const Spec s = parse_spec("[learner]\ntotal_steps = 1_000\n", "spec.toml",
                              {"env.horizon=24", "vec.n_envs=1_6"});
    CHECK(s.learner.total_steps == 1000);
    CHECK(s.env.params.integer("horizon") == 24);
    CHECK(s.vec.n_envs == 16);
  }

  // Issue 36: env.outage_rate=1e-400 silently became 0 (toml++ reads an underflowing literal as
  // 0, in a spec file too); 1e400 on the command line was read as the string "1e400".
  TEST_CASE("number literals a double cannot hold") {
    std::string e = error_of([] { parse_spec("", "spec.toml", {"env.outage_rate=1e-400"}); });
    CHECK(e ==
          "command line override 'env.outage_rate=1e-400': expected a number a double can hold, "
          "found 1e-400 (below the smallest double, ±4.9e-324: it would be read as 0)");
    e = error_of([] { parse_spec("[env]\n\noutage_rate = 1e-400  # tiny\n", "spec.toml"); });
    CHECK(e ==
          "spec.toml:3: [env] outage_rate: expected a number a double can hold, found 1e-400 "
          "(below the smallest double, ±4.9e-324: it would be read as 0)");
    e = error_of([] { parse_spec("[ppo]\nlearning_rate = 1e400\n", "spec.toml"); });
    CHECK(contains(e, "spec.toml: TOML syntax error at line 2"));
    CHECK(contains(e, "'1e400'"));
    e = error_of([] { parse_spec("", "spec.toml", {"ppo.learning_rate=1e400"}); });
    CHECK(e ==
          "command line override 'ppo.learning_rate=1e400': expected a number a double can "
          "hold, found 1e400 (beyond the largest double, ±1.8e308)");
    e = error_of([] { parse_spec("[reward]\npenalty = { x = 5e-999 }\n", "spec.toml"); });
    CHECK(contains(e, "spec.toml:2: [reward] penalty.x: expected a number a double can hold"));
    // Zeros and subnormals are what they say; a string key keeps its text.
    const Spec s = parse_spec("[env]\noutage_rate = 0.0e5\nreward_scale = 1e-320\n", "spec.toml",
                              {"experiment.name=1e-400"});
    CHECK(s.env.params.number("outage_rate") == 0.0);
    CHECK(s.env.params.number("reward_scale") == 1e-320);
    CHECK(s.experiment.name == "1e-400");
  }

  TEST_CASE("range checks: n_envs and n_minibatches divisibility") {
    std::string e = error_of([] { parse_spec("[vec]\nn_envs = -4\n", "spec.toml"); });
    CHECK(e == "spec.toml:2: [vec] n_envs: expected an integer in [1, 65536], found -4");
    e = error_of([] { parse_spec("[vec]\nn_envs = 65537\n", "spec.toml"); });
    CHECK(contains(e, "[vec] n_envs"));
    e = error_of([] { parse_spec("[vec]\nn_envs = 10\n[ppo]\nn_minibatches = 4\n", "spec.toml"); });
    CHECK(contains(e, "spec.toml:4:"));
    CHECK(contains(e, "n_minibatches"));
    CHECK(contains(e, "n_envs"));
    CHECK_NOTHROW(parse_spec("[vec]\nn_envs = 12\n[ppo]\nn_minibatches = 3\n", "spec.toml"));
  }

  TEST_CASE("TOML syntax errors report line and column") {
    std::string e = error_of([] { parse_spec("[ppo]\ngamma = \n", "spec.toml"); });
    CHECK(contains(e, "spec.toml: TOML syntax error at line 2"));
    CHECK(contains(e, "column"));
  }

  TEST_CASE("overrides") {
    Spec s = parse_spec(kDesignExample, "spec.toml",
                        {"ppo.learning_rate=1e-4", "seed=3", "ppo.hidden=[32,32]",
                         "env.case=case14", "experiment.name=2024", "reward.penalty.x=2",
                         "ppo.normalize_obs=false", "learner.total_steps=2_000"});
    CHECK(P(s, "learning_rate") == 1e-4);
    CHECK(s.experiment.seed == 3);
    CHECK(P(s, "hidden") == std::vector<int>{32, 32});
    CHECK(s.env.params.str("case") == "case14");
    CHECK(s.experiment.name == "2024");
    CHECK(s.penalty.at("x") == 2.0);
    CHECK_FALSE(P(s, "normalize_obs"));
    CHECK(s.learner.total_steps == 2000);

    std::string e = error_of([] { parse_spec("", "spec.toml", {"ppo.lr=3"}); });
    CHECK(e ==
          "command line override 'ppo.lr=3': unknown key ppo.lr (did you mean "
          "'ppo.learning_rate'?)");
    e = error_of([] { parse_spec("", "spec.toml", {"ppo.learning_rate=-1"}); });
    CHECK(e ==
          "command line override 'ppo.learning_rate=-1': [ppo] learning_rate: expected a number "
          "> 0, found -1");
    e = error_of([] { parse_spec("", "spec.toml", {"ppo.n_minibatches=5"}); });
    CHECK(contains(e, "command line override 'ppo.n_minibatches=5'"));
    e = error_of([] { parse_spec("", "spec.toml", {"ppp.gamma=0.9"}); });
    CHECK(contains(e, "did you mean 'ppo.gamma'"));
    e = error_of([] { parse_spec("", "spec.toml", {"gamma=0.9"}); });
    CHECK(contains(e, "did you mean 'ppo.gamma'"));
    e = error_of([] { parse_spec("", "spec.toml", {"ppo.gamma"}); });
    CHECK(contains(e, "expected key=value"));
    e = error_of([] { parse_spec("", "spec.toml", {"ppo.hidden=[32,"}); });
    CHECK(contains(e, "not valid TOML"));
    // Sweep overrides go into the free-form table.
    Spec sw = parse_spec("", "spec.toml", {"sweep.seed=[1,2]"});
    CHECK(contains(sw.sweep_toml, "seed = [1, 2]"));
  }

  TEST_CASE("load_spec reads files and reports missing ones") {
    std::string path = "/tmp/pz_test_io_spec_" + std::to_string(::getpid()) + ".toml";
    {
      std::ofstream out(path);
      out << kDesignExample;
    }
    Spec s = pz::exp::load_spec(path, {"vec.n_envs=8"});
    CHECK(s.source_path == path);
    CHECK(s.vec.n_envs == 8);
    std::remove(path.c_str());
    std::string e = error_of([&] { pz::exp::load_spec(path); });
    CHECK(contains(e, path));
  }

  TEST_CASE("to_toml round trip") {
    Spec s = parse_spec(kDesignExample, "spec.toml");
    s.experiment.name = "quote\"back\\slash\ttab-ünï";
    s.experiment.out_dir = "line\nbreak";
    s.set_learner_key("ppo", "learning_rate",
                      0.1 + 0.2);  // not exactly representable in short decimal
    s.set_learner_key("ppo", "gamma", 1.0);
    s.set_learner_key("ppo", "init_log_std", -0.5);
    s.set_learner_key("ppo", "adam_eps", 1e-8);
    s.set_learner_key("ppo", "truncation", std::string("zero_td"));
    s.penalty = {{"thermal_overload", 10.0}, {"odd name", 0.125}};
    s.set_learner_key("ppo", "hidden", std::vector<int64_t>{128, 64, 32});
    s.eval.splits = {"iid", "train"};
    std::string text = pz::exp::to_toml(s);
    Spec back = parse_spec(text, "spec.toml");
    check_same(s, back);
    CHECK(pz::exp::to_toml(back) == text);

    // Defaults round-trip too, and the sweep sub-tables stay under [sweep].
    Spec d;
    d.sweep_toml = parse_spec("[sweep]\nseed = [1]\n[sweep.random]\nn = 4\n", "x").sweep_toml;
    Spec dback = parse_spec(pz::exp::to_toml(d), "x");
    check_same(d, dback);
    CHECK(contains(pz::exp::to_toml(d), "\n[sweep]\nrandom = { n = 4 }\nseed = [1]\n"));
  }

  TEST_CASE("did_you_mean") {
    using pz::core::did_you_mean;
    CHECK(did_you_mean("gama", {"gamma", "gae_lambda"}) == "gamma");
    CHECK(did_you_mean("lr", {"learning_rate", "gamma"}) == "learning_rate");
    CHECK(did_you_mean("ent_coef", {"entropy_coef", "clip_range"}) == "entropy_coef");
    CHECK(did_you_mean("zzzzzz", {"gamma", "horizon"}).empty());
    CHECK(did_you_mean("x", {}).empty());
    // Two swapped adjacent letters are one edit (optimal string alignment), case-insensitive.
    CHECK(did_you_mean("acfp", {"env", "learner", "dcopf", "acpf", "acopf"}) == "acpf");
    CHECK(did_you_mean("Gmama", {"gamma", "gae_lambda"}) == "gamma");
    CHECK(did_you_mean("aa", {"bb"}).empty());
  }
}
