// The evaluation protocol's vector env (exp/eval/eval_venv): every reset walks the same episodes
// with the same draws, whatever the venv walked before; its outages are those of a fresh one.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/exp/eval/eval_venv.hpp"
#include "test_env_util.hpp"

using namespace pz;

namespace {

constexpr int kHorizon = 12, kEpisodes = 4;

// trans_grid on case5 (gb_demand, iid days) with an N-1 branch outage of 3 steps per episode and
// random generator outages (rate 0.1, 2 steps): both draw from the env's Rng stream.
std::shared_ptr<const envs::Env> outage_env() {
  envs::TransGridParams p = test::gb_case5_params(kHorizon, "iid");
  p.outages.n1 = envs::OutageParams::N1::kBranch;
  p.outages.n1_steps = 3;
  p.outages.rate = 0.1;
  p.outages.duration_steps = 2;
  p.outages.random_gen = true;
  return std::make_shared<envs::TransGrid>(std::move(p));
}

// The observations (status fields included) and costs of every step of the venv's episodes under
// a zero action, from its current reset: obs [T + 1, N, obs_dim], then costs [T, N, n_costs].
struct Walk {
  std::vector<float> obs, costs;
  bool operator==(const Walk&) const = default;
};

Walk walk(vec::VectorEnv& v) {
  Walk w{v.obs, {}};
  const std::vector<float> a(static_cast<size_t>(v.n_envs()) * v.spec().act_dim, 0.0f);
  for (int t = 0; t < kHorizon; ++t) {
    v.step_all(a.data());
    w.obs.insert(w.obs.end(), v.obs.begin(), v.obs.end());
    w.costs.insert(w.costs.end(), v.costs.begin(), v.costs.end());
  }
  return w;
}

// Whether every episode observes a branch out at some step (the N-1 outage is observed: it starts
// at step s <= horizon - 3 and the observation of step s shows it).
bool every_episode_has_a_branch_out(const envs::EnvSpec& sp, const Walk& w) {
  envs::Slice br{};
  for (const auto& f : sp.obs_fields)
    if (f.name == "branch_status") br = f.slice;
  REQUIRE(br.size == 6);  // case5's branches
  const size_t od = static_cast<size_t>(sp.obs_dim);
  for (size_t i = 0; i < kEpisodes; ++i) {
    bool out = false;
    for (size_t t = 0; t <= kHorizon; ++t)
      for (int l = 0; l < br.size; ++l)
        out |= w.obs[(t * kEpisodes + i) * od + br.offset + l] == 0.0f;
    if (!out) return false;
  }
  return true;
}

}  // namespace

TEST_SUITE("exp_eval_venv") {
  TEST_CASE("regression: reset_eval_venv walks a fresh evaluation's outages again (issue 36)") {
    const auto env = outage_env();
    core::ThreadPool pool(1);
    auto fresh = exp::make_eval_venv(env, kEpisodes, 7, {}, pool);
    const Walk first = walk(*fresh);
    CHECK(every_episode_has_a_branch_out(env->spec(), first));

    // Resetting the walked venv (its streams advanced) walks the same episodes bit for bit, twice.
    exp::reset_eval_venv(*fresh, 7);
    CHECK(walk(*fresh) == first);
    exp::reset_eval_venv(*fresh, 7);
    CHECK(walk(*fresh) == first);
    // Another eval seed: other outages.
    exp::reset_eval_venv(*fresh, 8);
    CHECK(walk(*fresh) != first);
    // Any thread count: the same.
    core::ThreadPool pool2(2);
    auto two = exp::make_eval_venv(env, kEpisodes, 7, {}, pool2);
    CHECK(walk(*two) == first);
  }
}
