// [output] trajectory_evals and trajectory_episodes: which evaluations keep their trajectories in
// run.h5 (the first, the best, the latest by default), how many episodes of each, and that the
// file does not grow with the evaluations it drops.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "powerzoo/exp/run/trajectory_keep.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/io/hdf5_array.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using pz::exp::first_episodes;
using pz::exp::kept_trajectory_steps;

namespace {

std::vector<std::map<std::string, double>> rows(const std::vector<double>& returns) {
  std::vector<std::map<std::string, double>> r;
  for (size_t i = 0; i < returns.size(); ++i)
    r.push_back({{"global_step", 10.0 * i}, {"shaped_return_mean", returns[i]}});
  return r;
}

const char* kSpec = R"([experiment]
name = "traj"
seed = 3
[env]
case = "case5"
horizon = 24
reward_scale = 1e-4
[vec]
n_envs = 4
threads = 1
[learner]
total_steps = 2880
rollout_length = 24
[ppo]
n_minibatches = 2
hidden = [8, 8]
learning_rate = 0.03
[eval]
every_steps = 288
n_episodes = 4
[output]
checkpoint_every_steps = 0
)";

// Step groups of trajectories/iid in a run file, as global steps.
std::set<long long> recorded_steps(const std::string& h5) {
  std::set<long long> s;
  for (const auto& n : pz::io::list_group(h5, "trajectories/iid"))
    s.insert(std::stoll(n.substr(5)));
  return s;
}

std::string run(const std::string& tag, const std::string& overrides) {
  const fs::path d = pz::test::tmp_dir("pz_traj_keep", tag);
  const std::string spec = pz::test::write(d / "spec.toml", kSpec);
  const auto p = pz::test::sh(std::string(PZ_BINARY) + " run " + spec + " --quiet --out " +
                              (d / "run").string() + " " + overrides);
  REQUIRE_MESSAGE(p.code == 0, p.out);
  return (d / "run" / "run.h5").string();
}

}  // namespace

TEST_SUITE("exp_trajectory_keep") {
  TEST_CASE("first_best_last keeps the first, the earliest best and the latest evaluation") {
    // Best is -1 at step 10; the tie at step 30 is not better, as for ckpt/best.h5.
    CHECK(kept_trajectory_steps(rows({-5, -1, -3, -1, -2}), "first_best_last") ==
          std::set<long long>{0, 10, 40});
    CHECK(kept_trajectory_steps(rows({-5, -6, -7}), "first_best_last") ==
          std::set<long long>{0, 20});  // the first is the best
    CHECK(kept_trajectory_steps(rows({-5}), "first_best_last") == std::set<long long>{0});
    CHECK(kept_trajectory_steps(rows({-5, -1, -3}), "all") == std::set<long long>{0, 10, 20});
    CHECK(kept_trajectory_steps({}, "first_best_last").empty());
  }

  TEST_CASE("first_episodes keeps the first columns of every time-major array") {
    pz::vec::CollectRecord r;
    r.T = 2, r.N = 3, r.obs_dim = 2, r.act_dim = 1, r.n_costs = 1;
    for (int i = 0; i < 12; ++i) r.obs.push_back(static_cast<float>(i));  // [2, 3, 2]
    r.action = {0, 1, 2, 3, 4, 5};                                        // [2, 3, 1]
    r.reward = {0, 1, 2, 3, 4, 5};
    r.costs = {0, 1, 2, 3, 4, 5};
    r.terminated = {0, 0, 0, 1, 0, 1};
    r.truncated = {0, 0, 0, 0, 1, 0};
    r.final_obs = {0, 1, 2, 3, 4, 5};  // [3, 2]
    const auto k = first_episodes(r, 2);
    CHECK(k.N == 2);
    CHECK(k.obs == std::vector<float>{0, 1, 2, 3, 6, 7, 8, 9});
    CHECK(k.action == std::vector<float>{0, 1, 3, 4});
    CHECK(k.reward == std::vector<float>{0, 1, 3, 4});
    CHECK(k.terminated == std::vector<uint8_t>{0, 0, 1, 0});
    CHECK(k.truncated == std::vector<uint8_t>{0, 0, 0, 1});
    CHECK(k.final_obs == std::vector<float>{0, 1, 2, 3});
    CHECK(first_episodes(r, 0).obs == r.obs);  // 0 = all
    CHECK(first_episodes(r, 7).N == 3);
  }

  TEST_CASE("a run keeps exactly the first, best and last evaluation, of trajectory_episodes") {
    const std::string h5 = run("default", "output.trajectory_episodes=2");
    const auto step = pz::io::read_column(h5, "metrics/eval/global_step");
    const auto ret = pz::io::read_column(h5, "metrics/eval/iid/shaped_return_mean");
    REQUIRE(step.size() == 11);  // steps 0, 288, ..., 2880
    const size_t best = std::max_element(ret.begin(), ret.end()) - ret.begin();  // the earliest
    // learning_rate 0.03: the best evaluation (step 2304) is neither the first nor the last.
    CHECK(step[best] > 0);
    CHECK(step[best] < 2880);
    const std::set<long long> expect{0, static_cast<long long>(step[best]), 2880};
    CHECK(recorded_steps(h5) == expect);
    for (long long s : expect) {
      const auto a =
          pz::io::read_array(h5, "trajectories/iid/step_" + std::to_string(s) + "/action");
      REQUIRE(a.shape.size() == 3);
      CHECK(a.shape[0] == 24);
      CHECK(a.shape[1] == 2);  // 2 of the 4 episodes
    }
  }

  TEST_CASE("trajectory_evals = all keeps every evaluation, with every episode at 0") {
    const std::string h5 = run("all", "output.trajectory_evals=all output.trajectory_episodes=0");
    std::set<long long> every;
    for (double s : pz::io::read_column(h5, "metrics/eval/global_step"))
      every.insert(static_cast<long long>(s));
    CHECK(every.size() == 11);
    CHECK(recorded_steps(h5) == every);
    CHECK(pz::io::read_array(h5, "trajectories/iid/step_2880/obs").shape[1] == 4);
  }

  TEST_CASE("run.h5 does not grow with the evaluations it drops") {
    // The same evaluations, one run keeping 3 of 11: the dropped ones' space is reused, so the
    // file is well under the one that keeps all 11 (about 3/11 of its trajectory bytes).
    const auto kept = fs::file_size(run("size_fbl", "output.trajectory_episodes=0"));
    const auto all =
        fs::file_size(run("size_all", "output.trajectory_evals=all output.trajectory_episodes=0"));
    const auto none = fs::file_size(run("size_none", "output.trajectories=none"));
    CAPTURE(kept);
    CAPTURE(all);
    CAPTURE(none);
    REQUIRE(all > none);
    CHECK(kept - none < (all - none) * 6 / 11);
  }
}
