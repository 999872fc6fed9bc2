// vec::RolloutCollector: call order on the Actor, StepView contents, env-side sums, the record.
#include <doctest/doctest.h>

#include <chrono>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/data/profile.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/vec/rollout_collector.hpp"
#include "test_env_util.hpp"

using namespace pz;

namespace {

using test::gb_case5;

// Uniform random actions; checks what observe() is given.
struct Probe : core::Actor {
  int acts = 0, observes = 0, ended = 0;
  double reward_sum = 0;
  std::vector<float> last_obs;
  long long base = 0;
  void collect_act(const float* obs, int n, core::Rng& rng, float* actions) override {
    CHECK(acts == observes);
    ++acts;
    last_obs.assign(obs, obs + n * obs_dim);
    for (int i = 0; i < n * act_dim; ++i) actions[i] = static_cast<float>(2 * rng.uniform() - 1);
  }
  void observe(const core::StepView& s) override {
    CHECK(s.t == observes);
    CHECK(s.global_step == base + static_cast<long long>(s.t) * s.n);
    CHECK(std::vector<float>(s.obs, s.obs + s.n * s.obs_dim) == last_obs);
    for (int i = 0; i < s.n; ++i) reward_sum += s.reward[i];
    for (const auto& ep : s.finished) CHECK((s.terminated[ep.env] || s.truncated[ep.env]));
    ended += static_cast<int>(s.finished.size());
    ++observes;
  }
  int obs_dim = 0, act_dim = 0;
};

// Sends action[0] = `mark` to env `env` at step `t` (0.5 elsewhere), or a NaN action there.
struct Marker : core::Actor {
  int env = 0, t = 0, calls = 0;
  float mark = 0.25f;
  void collect_act(const float*, int n, core::Rng&, float* actions) override {
    for (int i = 0; i < n * act_dim; ++i) actions[i] = 0.5f;
    if (calls++ == t) actions[static_cast<size_t>(env) * act_dim] = mark;
  }
  void observe(const core::StepView&) override {}
  int act_dim = 0;
};

// trans_grid whose step corrupts one value when action[0] is exactly 0.25: observation `obs_at`
// (if >= 0), else cost `cost_at` (if >= 0), else the reward.
class Corrupting final : public envs::Env {
 public:
  Corrupting(std::shared_ptr<const envs::Env> base, int obs_at, int cost_at)
      : base_(std::move(base)), obs_at_(obs_at), cost_at_(cost_at) {}
  const envs::EnvSpec& spec() const override { return base_->spec(); }
  std::unique_ptr<envs::State> make_state() const override { return base_->make_state(); }
  void reset(envs::State& s, core::Rng& rng, std::span<float> obs,
             const envs::ResetOptions& opt) const override {
    base_->reset(s, rng, obs, opt);
  }
  envs::Step step(envs::State& s, std::span<const float> a, core::Rng& rng, std::span<float> obs,
                  std::span<float> costs, envs::Info* info) const override {
    envs::Step r = base_->step(s, a, rng, obs, costs, info);
    if (a[0] != 0.25f) return r;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (obs_at_ >= 0)
      obs[obs_at_] = nan;
    else if (cost_at_ >= 0)
      costs[cost_at_] = std::numeric_limits<float>::infinity();
    else
      r.reward = -std::numeric_limits<float>::infinity();
    return r;
  }

 private:
  std::shared_ptr<const envs::Env> base_;
  int obs_at_, cost_at_;
};

// The message of the RunError collect() throws ("" if none).
std::string fault(std::shared_ptr<const envs::Env> env, Marker m) {
  core::ThreadPool pool(2);
  vec::VectorEnv venv(env, 4, 7, 100, pool);
  venv.reset_all();
  vec::RolloutCollector col(venv, false);
  m.act_dim = env->spec().act_dim;
  core::Rng rng(1, 1);
  try {
    col.collect(m, rng, 5, 1000);
  } catch (const core::RunError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("vec_rollout_collector") {
  TEST_CASE("a non-finite value is reported with its env, global step and name") {
    const auto base = gb_case5(6);
    const auto& sp = base->spec();
    Marker m;
    m.env = 2, m.t = 3;
    // A learner's action: caught before the env sees it (global step 1000 + 3 steps x 4 envs).
    m.mark = std::numeric_limits<float>::quiet_NaN();
    CHECK(fault(base, m) ==
          "non-finite action from the learner for env 2 at global step 1012: "
          "action[0] = nan");
    m.mark = 0.25f;
    CHECK(fault(std::make_shared<Corrupting>(base, -1, -1), m) ==
          "non-finite reward from env 2 at global step 1012: reward = -inf");
    CHECK(fault(std::make_shared<Corrupting>(base, -1, 1), m) ==
          "non-finite cost from env 2 at global step 1012: cost " + sp.cost_names[1] + " = inf");
    const auto& field = sp.obs_fields.back();
    CHECK(fault(std::make_shared<Corrupting>(base, field.slice.offset, -1), m) ==
          "non-finite observation from env 2 at global step 1012: obs[" +
              std::to_string(field.slice.offset) + "] (field " + field.name + ") = nan");
    m.env = 0, m.t = 0;
    CHECK(fault(std::make_shared<Corrupting>(base, -1, -1), m) ==
          "non-finite reward from env 0 at global step 1000: reward = -inf");
    m.t = 99;  // never: the rollout is clean
    CHECK(fault(std::make_shared<Corrupting>(base, -1, -1), m).empty());
  }

  TEST_CASE("collect drives collect_act/observe in order and sums what the envs saw") {
    auto env = gb_case5(3);
    core::ThreadPool pool(2);
    vec::VectorEnv venv(env, 4, 7, 100, pool);
    venv.reset_all();
    vec::RolloutCollector col(venv, true);
    Probe p;
    p.obs_dim = env->spec().obs_dim;
    p.act_dim = env->spec().act_dim;
    p.base = 40;
    core::Rng rng(1, 1);
    const auto st = col.collect(p, rng, 7, 40);
    CHECK(p.acts == 7);
    CHECK(p.observes == 7);
    CHECK(st.steps == 7);
    CHECK(st.reward_sum == doctest::Approx(p.reward_sum));
    CHECK(static_cast<int>(st.episode_returns.size()) == p.ended);
    CHECK(p.ended == 8);  // horizon 3: every env ends at steps 3 and 6
    CHECK(st.cost_sum.size() == env->spec().cost_names.size());
    REQUIRE(col.has_record());
    const auto& r = col.record();
    CHECK(r.T == 7);
    CHECK(r.obs.size() == static_cast<size_t>(7 * 4 * r.obs_dim));
    CHECK(r.action.size() == static_cast<size_t>(7 * 4 * r.act_dim));
    CHECK(r.truncated.size() == 28u);
  }

  // The training loop's phase split (throughput/act_seconds, env_seconds, update_seconds) comes
  // from these: acting and stepping are parts of the collection's seconds, the between calls are
  // outside them. Lower bounds only: each sleep lasts at least its duration.
  TEST_CASE("collect times acting, stepping and the between calls apart") {
    auto env = gb_case5(3);
    core::ThreadPool pool(1);
    vec::VectorEnv venv(env, 4, 7, 100, pool);
    venv.reset_all();
    vec::RolloutCollector col(venv, false);
    struct SlowActor : Probe {
      void collect_act(const float* obs, int n, core::Rng& rng, float* actions) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        Probe::collect_act(obs, n, rng, actions);
      }
    } p;
    p.obs_dim = env->spec().obs_dim;
    p.act_dim = env->spec().act_dim;
    core::Rng rng(1, 1);
    int calls = 0;
    const auto st = col.collect(p, rng, 6, 0, 3, [&] {
      ++calls;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    CHECK(calls == 2);
    CHECK(st.act_seconds >= 6 * 0.002);
    CHECK(st.between_seconds >= 2 * 0.005);
    CHECK(st.env_seconds > 0);
    CHECK(st.act_seconds + st.env_seconds <= st.seconds);
    Probe q;  // without between calls nothing is counted there
    q.obs_dim = p.obs_dim, q.act_dim = p.act_dim, q.base = 24;
    const auto plain = col.collect(q, rng, 2, 24);
    CHECK(plain.between_seconds == 0);
  }
}
