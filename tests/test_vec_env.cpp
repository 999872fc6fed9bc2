// VectorEnv: thread-count independence, auto-reset with final observations, episode statistics.
#include <doctest/doctest.h>

#include <cstring>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/data/profile.hpp"
#include "powerzoo/envs/penalty.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/vec/vector_env.hpp"
#include "test_env_util.hpp"

using namespace pz;

namespace {
using test::gb_case5;

struct Trace {
  std::vector<float> obs, reward, costs, final_obs;
  std::vector<uint8_t> trunc;
};

Trace run(std::shared_ptr<const envs::Env> env, size_t threads, int n, int steps) {
  core::ThreadPool pool(threads);
  vec::VectorEnv v(envs::with_penalty(env, {1.0, 0.0, 0.5, 0.0}), n, 7, 100, pool);
  v.reset_all();
  core::Rng arng(3, 3);
  std::vector<float> a(static_cast<size_t>(n) * env->spec().act_dim);
  Trace tr;
  for (int t = 0; t < steps; ++t) {
    for (auto& x : a) x = static_cast<float>(2 * arng.uniform() - 1);
    v.step_all(a.data());
    tr.obs.insert(tr.obs.end(), v.obs.begin(), v.obs.end());
    tr.reward.insert(tr.reward.end(), v.shaped_reward.begin(), v.shaped_reward.end());
    tr.costs.insert(tr.costs.end(), v.costs.begin(), v.costs.end());
    tr.final_obs.insert(tr.final_obs.end(), v.final_obs.begin(), v.final_obs.end());
    tr.trunc.insert(tr.trunc.end(), v.truncated.begin(), v.truncated.end());
  }
  return tr;
}
}  // namespace

TEST_SUITE("vec_env") {
  TEST_CASE("identical results for 1, 2 and 3 threads") {
    auto env = gb_case5(5);
    const Trace a = run(env, 1, 7, 12), b = run(env, 2, 7, 12), c = run(env, 3, 7, 12);
    CHECK(std::memcmp(a.obs.data(), b.obs.data(), a.obs.size() * 4) == 0);
    CHECK(std::memcmp(a.obs.data(), c.obs.data(), a.obs.size() * 4) == 0);
    CHECK(std::memcmp(a.reward.data(), b.reward.data(), a.reward.size() * 4) == 0);
    CHECK(std::memcmp(a.costs.data(), c.costs.data(), a.costs.size() * 4) == 0);
    CHECK(a.final_obs == b.final_obs);
    CHECK(a.trunc == c.trunc);
  }

  TEST_CASE("auto-reset keeps the final observation and reports episode stats") {
    auto env = gb_case5(3);
    core::ThreadPool pool(2);
    vec::VectorEnv v(envs::with_penalty(env, {0.0, 0.0, 2.0, 0.0}), 4, 1, 0, pool);
    v.reset_all();
    std::vector<float> a(4 * 5, 0.0f);
    double sum_r = 0, sum_shaped = 0, sum_bal = 0;
    for (int t = 0; t < 3; ++t) {
      v.step_all(a.data());
      sum_r += v.reward[2];
      sum_shaped += v.shaped_reward[2];
      sum_bal += v.costs[2 * 4 + 2];
      CHECK(v.finished().size() == (t == 2 ? 4u : 0u));
    }
    for (int i = 0; i < 4; ++i) CHECK(v.truncated[i] == 1);
    const auto& ep = v.finished()[2].second;
    CHECK(v.finished()[2].first == 2);
    CHECK(ep.length == 3);
    CHECK(ep.ret == doctest::Approx(sum_r).epsilon(1e-5));
    CHECK(ep.shaped_ret == doctest::Approx(sum_shaped).epsilon(1e-5));
    CHECK(ep.cost_sum[2] == doctest::Approx(sum_bal).epsilon(1e-5));
    CHECK(sum_shaped == doctest::Approx(sum_r - 2.0 * sum_bal).epsilon(1e-5));
    // After the reset the time features restart (sin 0, cos 1), while final_obs shows t = 3.
    const int od = env->spec().obs_dim;
    CHECK(v.obs[2 * od + od - 1] == doctest::Approx(1.0f));
    CHECK(v.final_obs[2 * od + od - 1] != doctest::Approx(1.0f));
  }
}
