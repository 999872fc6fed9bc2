// A test-only env registered from this one file (docs/adding-an-env.md): proves that a new env
// needs no edit anywhere else, and exercises the multi-agent contract of VectorEnv.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/penalty.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::envs {
namespace {

/// "test_target": each of A agents should output the episode's target t ∈ [−1, 1). obs =
/// [target, step / horizon]; agent a's reward = −(a_a − target)²; team reward = mean over agents;
/// cost "overshoot" = Σ_a max(0, |a_a| − 0.9). Truncated after `horizon` steps. With types = 2
/// the odd agents are named marker_<a> (typed sharing groups them apart from pointer_<a>).
class TargetEnv final : public Env {
 public:
  TargetEnv(int n_agents, int horizon, int types = 1, bool unbounded = false) : horizon_(horizon) {
    spec_.id = "test_target";
    spec_.obs_dim = 2;
    spec_.act_dim = n_agents;
    const float inf = std::numeric_limits<float>::infinity();
    spec_.act_low.assign(n_agents, unbounded ? -inf : -1.0f);
    spec_.act_high.assign(n_agents, unbounded ? inf : 1.0f);
    spec_.cost_names = {"overshoot"};
    spec_.horizon = horizon;
    spec_.obs_fields = tile_obs_fields({{"target", 1}, {"progress", 1}});
    if (n_agents > 1)
      for (int a = 0; a < n_agents; ++a)
        spec_.agents.push_back(AgentSpec{(a % types ? "marker_" : "pointer_") + std::to_string(a),
                                         a % types ? "marker" : "pointer", Slice{0, 2},
                                         Slice{a, 1}});
  }

  struct TargetState : State {
    int t = 0;
    double target = 0;
  };

  const EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<State> make_state() const override { return std::make_unique<TargetState>(); }
  void reset(State& st, core::Rng& rng, std::span<float> obs, const ResetOptions&) const override {
    auto& s = static_cast<TargetState&>(st);
    s.t = 0;
    s.target = 2 * rng.uniform() - 1;
    observe(s, obs);
  }
  Step step(State& st, std::span<const float> action, core::Rng&, std::span<float> obs,
            std::span<float> costs, Info* info) const override {
    auto& s = static_cast<TargetState&>(st);
    Step out;
    double team = 0, overshoot = 0;
    for (int a = 0; a < spec_.act_dim; ++a) {
      const double x = std::clamp(static_cast<double>(action[a]), -1.0, 1.0);
      const double r = -(x - s.target) * (x - s.target);
      out.agent_reward[a] = static_cast<float>(r);
      team += r / spec_.act_dim;
      overshoot += std::max(0.0, std::abs(x) - 0.9);
    }
    out.reward = static_cast<float>(team);
    costs[0] = static_cast<float>(overshoot);
    if (info) *info = Info{};
    s.t += 1;
    out.truncated = s.t >= horizon_;
    observe(s, obs);
    return out;
  }
  void save_state(const State& st, std::vector<double>& out) const override {
    const auto& s = static_cast<const TargetState&>(st);
    save_clock(s.t, 0, out);
    out.push_back(s.target);
  }
  size_t load_state(State& st, std::span<const double> in) const override {
    auto& s = static_cast<TargetState&>(st);
    int64_t start = 0;
    load_clock(in, s.t, start);
    s.target = in[2];
    return 3;
  }

 private:
  void observe(const TargetState& s, std::span<float> obs) const {
    obs[0] = static_cast<float>(s.target);
    obs[1] = static_cast<float>(s.t) / static_cast<float>(horizon_);
  }
  int horizon_;
  EnvSpec spec_;
};

EnvEntry target_entry() {
  EnvEntry e;
  e.id = "test_target";
  e.description = "test-only: agents point at a random target; reward −(a − target)²";
  e.params = {core::int_param("agents", 1, 1, 4, "number of agents"),
              core::int_param("horizon", 8, 1, 1000, "steps per episode"),
              core::int_param("types", 1, 1, 2, "2: odd agents are marker_<a>"),
              core::bool_param("unbounded", false, "action box (−inf, inf) instead of [−1, 1]")};
  e.splits = {"train", "iid"};
  e.make = [](const BuildContext& ctx) -> std::shared_ptr<const Env> {
    return std::make_shared<TargetEnv>(static_cast<int>(ctx.params.integer("agents")),
                                       static_cast<int>(ctx.params.integer("horizon")),
                                       static_cast<int>(ctx.params.integer("types")),
                                       ctx.params.boolean("unbounded"));
  };
  e.baselines = {{"zero_point",
                  [](const std::shared_ptr<const Env>& env) -> PolicyFn {
                    const int act_dim = env->spec().act_dim;
                    return [act_dim](const float*, int n, float* a) {
                      std::fill(a, a + static_cast<size_t>(n) * act_dim, 0.0f);
                    };
                  }},
                 {"oracle", [](const std::shared_ptr<const Env>& env) -> PolicyFn {
                    const int act_dim = env->spec().act_dim;
                    const int off = env->spec().obs_field("target").offset;
                    const int obs_dim = env->spec().obs_dim;
                    return [=](const float* obs, int n, float* a) {
                      for (int i = 0; i < n; ++i)
                        std::fill_n(a + i * act_dim, act_dim, obs[i * obs_dim + off]);
                    };
                  }}};
  return e;
}

const Registrar kRegistrar{target_entry()};

}  // namespace
}  // namespace pz::envs

using namespace pz;

TEST_SUITE("env_target") {
  TEST_CASE("a test-only env registered from one file is found, parsed and built") {
    REQUIRE(envs::find_env("test_target") != nullptr);
    const auto spec = exp::parse_spec("[env]\nid = \"test_target\"\nagents = 3\n", "t.toml");
    CHECK(spec.env.params.integer("agents") == 3);
    CHECK(spec.env.params.integer("horizon") == 8);
    const auto env = exp::make_env(spec, "train");
    CHECK(env->spec().n_agents() == 3);
    CHECK(env->spec().agent_list()[2].name == "pointer_2");
    // Its keys are validated like any other: unknown key with a did-you-mean, range checks.
    CHECK_THROWS_WITH_AS(exp::parse_spec("[env]\nid = \"test_target\"\nagent = 2\n", "t.toml"),
                         "t.toml:3: unknown key [env] agent (did you mean 'agents'?)",
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(exp::parse_spec("[env]\nid = \"test_target\"\nagents = 9\n", "t.toml"),
                         "t.toml:3: [env] agents: expected an integer in [1, 4], found 9",
                         core::ConfigError);
    // Its baselines are found by name next to zero_action.
    const auto& entry = exp::env_entry(spec);
    CHECK(envs::baseline_names(entry) ==
          std::vector<std::string>{"zero_action", "zero_point", "oracle"});
  }

  TEST_CASE("VectorEnv keeps one reward per agent and per-agent episode returns") {
    const auto spec =
        exp::parse_spec("[env]\nid = \"test_target\"\nagents = 2\nhorizon = 2\n", "t.toml");
    const auto env = exp::make_env(spec, "train");
    core::ThreadPool pool(2);
    vec::VectorEnv venv(envs::with_penalty(env, {0.5}), 3, 7, 0, pool);
    venv.reset_all();
    REQUIRE(venv.n_agents() == 2);
    REQUIRE(venv.reward.size() == 6u);
    const std::vector<float> act = {0.0f, 1.0f, 0.5f, -0.5f, -1.0f, 0.25f};  // [N=3, A=2]
    std::vector<double> sum0(6, 0.0);
    for (int step = 0; step < 2; ++step) {
      std::vector<float> target(3);
      for (int i = 0; i < 3; ++i) target[i] = venv.obs[i * 2];
      venv.step_all(act.data());
      for (int i = 0; i < 3; ++i) {
        double team = 0, over = 0;
        for (int a = 0; a < 2; ++a) {
          const double x = act[i * 2 + a], r = -(x - target[i]) * (x - target[i]);
          CHECK(venv.reward[i * 2 + a] == doctest::Approx(r).epsilon(1e-6));
          team += r / 2;
          over += std::max(0.0, std::abs(x) - 0.9);
          sum0[i * 2 + a] += static_cast<float>(r);
        }
        CHECK(venv.costs[i] == doctest::Approx(over).epsilon(1e-6));
        // The penalty on the team cost applies to every agent's learner reward.
        for (int a = 0; a < 2; ++a)
          CHECK(venv.shaped_reward[i * 2 + a] ==
                doctest::Approx(venv.reward[i * 2 + a] - 0.5 * venv.costs[i]).epsilon(1e-6));
        (void)team;
      }
    }
    REQUIRE(venv.finished().size() == 3u);
    for (const auto& [i, ep] : venv.finished()) {
      REQUIRE(ep.agent_ret.size() == 2u);
      CHECK(ep.agent_ret[0] == doctest::Approx(sum0[i * 2]));
      CHECK(ep.agent_ret[1] == doctest::Approx(sum0[i * 2 + 1]));
      CHECK(ep.ret == doctest::Approx((ep.agent_ret[0] + ep.agent_ret[1]) / 2).epsilon(1e-6));
    }
  }

  TEST_CASE("single-agent learners refuse a multi-agent env before anything is written") {
    const auto spec = exp::parse_spec("[env]\nid = \"test_target\"\nagents = 2\n", "t.toml");
    exp::TrainOptions opt;
    opt.out_dir = (std::filesystem::temp_directory_path() / "pz_test_target_never").string();
    opt.quiet = true;
    CHECK_THROWS_WITH_AS(
        exp::train(spec, opt),
        "t.toml: [learner] algo: ppo is a single-agent learner; the env has 2 agents",
        core::ConfigError);
    CHECK_FALSE(std::filesystem::exists(opt.out_dir));
  }

  TEST_CASE("the single-agent test env trains end to end through the generic trainer") {
    const auto dir =
        std::filesystem::temp_directory_path() / ("pz_test_target_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const auto spec = exp::parse_spec(
        "[env]\nid = \"test_target\"\n[vec]\nn_envs = 4\n[learner]\ntotal_steps = 256\n"
        "rollout_length = 8\n[ppo]\nn_minibatches = 2\n[eval]\nevery_steps = 128\nn_episodes = 2\n"
        "[output]\ntrajectories = \"none\"\n",
        "t.toml");
    exp::TrainOptions opt;
    opt.out_dir = dir.string();
    opt.quiet = true;
    opt.threads = 1;
    const auto r = exp::train(spec, opt);
    CHECK(std::filesystem::exists(r.run_file));
    const auto steps = io::read_column(r.run_file, "metrics/train/global_step");
    CHECK(steps.back() == 256.0);
    std::filesystem::remove_all(dir);
  }
}
