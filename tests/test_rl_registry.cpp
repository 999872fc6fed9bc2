// The learner registry from a new learner's side: "test_constant", registered here and nowhere
// else, with its own section [test_constant], is selected by [learner] algo, listed by `keys`,
// validated, trained through exp::train, checkpointed and evaluated (docs/adding-a-learner.md).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/eval/eval_command.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/exp/train/validate.hpp"
#include "powerzoo/rl/learner_registry.hpp"

namespace {

using namespace pz;

/// Acts with one constant per action dimension, moved after every iteration towards the actions
/// of the best-rewarded env of the iteration by [test_constant] step.
class ConstantLearner final : public rl::Learner {
 public:
  explicit ConstantLearner(const rl::LearnerContext& ctx)
      : act_dim_(ctx.act_dim),
        steps_(ctx.rollout_length),
        step_(ctx.section("test_constant").number("step")),
        value_(ctx.act_dim, static_cast<float>(ctx.section("test_constant").number("start"))) {}
  const std::string& name() const override { return name_; }
  void act(const float*, int n, core::Rng*, float* actions) override {
    for (int i = 0; i < n; ++i)
      for (int d = 0; d < act_dim_; ++d) actions[i * act_dim_ + d] = value_[d];
  }
  void collect_act(const float* obs, int n, core::Rng& rng, float* actions) override {
    act(obs, n, &rng, actions);
    for (int i = 0; i < n * act_dim_; ++i) actions[i] += static_cast<float>(0.1 * rng.normal());
  }
  void observe(const core::StepView& s) override {
    for (int i = 0; i < s.n; ++i)
      if (s.reward[i] > best_) {
        best_ = s.reward[i];
        best_action_.assign(s.actions + i * act_dim_, s.actions + (i + 1) * act_dim_);
      }
  }
  int collect_steps() const override { return steps_; }
  std::map<std::string, double> update(core::Rng&) override {
    if (best_action_.empty()) return {};
    for (int d = 0; d < act_dim_; ++d)
      value_[d] += static_cast<float>(step_) * (best_action_[d] - value_[d]);
    best_ = -1e30f;
    best_action_.clear();
    return {{"losses/value_0", value_[0]}};
  }
  void save(core::StateDict& sd) const override { sd.f32["learner/test_constant/value"] = value_; }
  void load(const core::StateDict& sd) override {
    auto it = sd.f32.find("learner/test_constant/value");
    if (it == sd.f32.end() || it->second.size() != value_.size())
      throw core::ConfigError("checkpoint: no learner/test_constant/value of the right size");
    value_ = it->second;
  }

 private:
  std::string name_ = "test_constant";
  int act_dim_, steps_;
  double step_;
  std::vector<float> value_;
  float best_ = -1e30f;
  std::vector<float> best_action_;
};

rl::LearnerSection constant_section() {
  return {"test_constant",
          "the test-only constant learner",
          {core::float_param(
               "step", 0.5, [](double x) { return x > 0 && x <= 1; }, "a number in (0, 1]",
               "fraction of the way to the best action per iteration"),
           core::float_param("start", 0.0, nullptr, "a finite number", "initial action")},
          {}};
}

rl::LearnerEntry constant_entry() {
  rl::LearnerEntry e;
  e.name = "test_constant";
  e.description = "test-only: one constant action, moved towards the best-rewarded one";
  e.sections = {"test_constant"};
  e.check = [](const rl::LearnerContext& ctx) {
    if (ctx.section("test_constant").number("start") > 1e6)
      throw core::ConfigError(ctx.where("test_constant.start") +
                              "[test_constant] start: expected at most 1e6");
  };
  e.make = [](const rl::LearnerContext& ctx, core::Rng&) {
    return std::unique_ptr<rl::Learner>(std::make_unique<ConstantLearner>(ctx));
  };
  e.memory = [](const rl::LearnerContext& ctx, int) {
    return rl::LearnerMemory{4.0 * ctx.act_dim, 0.0};
  };
  return e;
}

const rl::LearnerRegistrar kSection{constant_section()};
const rl::LearnerRegistrar kEntry{constant_entry()};

const char* kSpec = R"([experiment]
name = "test_constant"
[env]
case = "case5"
horizon = 12
reward_scale = 1e-4
[vec]
n_envs = 4
[learner]
algo = "test_constant"
total_steps = 192
rollout_length = 12
[test_constant]
step = 0.25
[eval]
every_steps = 96
n_episodes = 2
[output]
trajectories = "none"
checkpoint_every_steps = 96
)";

}  // namespace

TEST_SUITE("rl_registry") {
  TEST_CASE("a learner registered from its own file is selected, listed, checked and refused") {
    CHECK(rl::find_learner("test_constant") != nullptr);
    const std::string keys = exp::key_reference("", "test_constant", false);
    CHECK(keys.find("test_constant.step") != std::string::npos);
    CHECK(keys.find("read by [learner] algo = test_constant") != std::string::npos);
    CHECK(exp::key_reference("", "learner", false).find("learner test_constant: test-only") !=
          std::string::npos);
    const auto s = exp::parse_spec(kSpec, "c.toml");
    CHECK(s.learner.algo == "test_constant");
    CHECK(s.learner_sections.at("test_constant").number("step") == 0.25);
    CHECK(exp::parse_spec(exp::to_toml(s), "x").learner_sections == s.learner_sections);
    CHECK_THROWS_WITH_AS(exp::parse_spec(kSpec, "c.toml", {"test_constant.start=1e7"}),
                         "command line override 'test_constant.start=1e7': [test_constant] start: "
                         "expected at most 1e6",
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(exp::parse_spec(std::string(kSpec) + "[ppo]\ngamma = 0.9\n", "c.toml"),
                         doctest::Contains("c.toml:22: [ppo] is read by ippo, ippo_lagrangian, "
                                           "ppo, ppo_lagrangian, saute_ppo; [learner] algo = "
                                           "\"test_constant\" does not read it"),
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(exp::parse_spec("[test_constant]\nstep = 0.5\n", "p.toml"),
                         "p.toml:2: [test_constant] is read by test_constant; [learner] algo = "
                         "\"ppo\" does not read it",
                         core::ConfigError);
  }

  TEST_CASE("the test-only learner trains through exp::train, checkpoints and evaluates") {
    namespace fs = std::filesystem;
    const fs::path d =
        fs::temp_directory_path() / ("pz_test_constant_" + std::to_string(::getpid()));
    fs::remove_all(d);
    const auto spec = exp::parse_spec(kSpec, "c.toml");
    CHECK(exp::validate_spec(spec).find("learner: test_constant, 4 envs, 192 steps") !=
          std::string::npos);
    exp::TrainOptions opt;
    opt.out_dir = d.string();
    opt.quiet = true;
    opt.threads = 1;
    const auto r = exp::train(spec, opt);
    CHECK(fs::exists(d / "ckpt" / "step_192.h5"));
    exp::EvalCommandOptions e;
    e.path = (d / "ckpt" / "step_192.h5").string();
    e.episodes = 2;
    e.threads = 1;
    e.out = (d / "e.h5").string();
    const auto m = exp::run_eval_command(e);
    CHECK(m.metrics.count("return_mean") == 1);
    CHECK(std::isfinite(m.metrics.at("return_mean")));
    fs::remove_all(d);
  }
}
