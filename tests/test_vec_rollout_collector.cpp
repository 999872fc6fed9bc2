// vec::RolloutCollector: call order on the Actor, StepView contents, env-side sums, the record.
#include <doctest/doctest.h>

#include <vector>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/data/profile.hpp"
#include "powerzoo/envs/trans_grid.hpp"
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

}  // namespace

TEST_SUITE("vec_rollout_collector") {
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
}
