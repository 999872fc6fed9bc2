// Thread invariance of training: the learners' row blocks are fixed by the batch size and reduced
// in block order, so a run with --threads 1, 2 or 3 (PPO and SAC on case5, PPO on the DC
// microgrid (also under component outages), IPPO on the GenCos market, typed IPPO and
// IPPO-Lagrangian on the DERs task) writes byte-identical metrics, evaluation trajectories and
// learner state.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_run_util.hpp"

namespace fs = std::filesystem;

namespace {

// Quickstart-sized: 64 envs x 48 steps, 2 minibatches of 1536 rows (4 row blocks), act on 64 rows
// (2 blocks), eval on 64 episodes; 5 updates.
const char* kSpec = R"([experiment]
name = "threads"
seed = 5
[env]
case = "case5"
horizon = 48
reward_scale = 1e-4
[vec]
n_envs = 64
[learner]
total_steps = 15360
rollout_length = 48

[ppo]
n_minibatches = 2
hidden = [64, 64]
entropy_coef = 0.01
[reward]
penalty = { power_balance = 0.02, thermal_overload = 0.02 }
[eval]
every_steps = 6144
n_episodes = 64
[output]
checkpoint_every_steps = 15360
)";

// Runs `spec_text` with --threads 1, 2 and 3 and compares the runs byte for byte
// (pz::test::check_same_run).
void check_thread_invariance(const std::string& tag, const std::string& spec_text,
                             long long total) {
  const fs::path d = pz::test::spec_dir(tag, spec_text);
  auto run = [&](int threads) {
    const std::string out = (d / ("t" + std::to_string(threads))).string();
    const std::string cmd = std::string(PZ_BINARY) + " run " + (d / "spec.toml").string() +
                            " --quiet --threads " + std::to_string(threads) + " --out " + out;
    REQUIRE(std::system(cmd.c_str()) == 0);
    return out;
  };
  const std::string ref = run(1);
  for (int threads : {2, 3}) {
    CAPTURE(threads);
    CHECK(pz::test::check_same_run(ref, run(threads), total).columns > 20);
  }
  fs::remove_all(d);
}

// IPPO on the GenCos market (five agents, one shared network, full batch): 16 envs, 4 updates.
const char* kIppoSpec = R"([experiment]
name = "threads_ippo"
seed = 3
[env]
task = "gencos"
[vec]
n_envs = 16
[learner]
algo = "ippo"
total_steps = 3072
rollout_length = 48

[ppo]
hidden = [32, 32]
normalize_rewards = true
[eval]
every_steps = 1536
n_episodes = 8
[output]
trajectories = "none"
checkpoint_every_steps = 3072
)";

// The GenCos IPPO spec under random branch and unit outages, with the outage status observed.
std::string gencos_outage_spec() {
  return pz::test::outage_variant(kIppoSpec, "threads_ippo", "task = \"gencos\"",
                                  pz::test::kGridOutageKeys);
}

// The AC power flow mode (case30, Newton-Raphson with warm starts and Q limits, voltage and MVA
// penalties): 32 envs x 48 steps, 3 updates.
const char* kAcSpec = R"([experiment]
name = "threads_ac"
seed = 2
[env]
case = "case30"
solver = "acpf"
load_scale = 1.2
horizon = 48
reward_scale = 1e-2
[vec]
n_envs = 32
[learner]
total_steps = 4608
rollout_length = 48

[ppo]
n_minibatches = 2
hidden = [32, 32]
[reward]
penalty = { power_balance = 0.02, thermal_overload = 0.05, voltage_violation = 50.0 }
[eval]
every_steps = 3072
n_episodes = 32
[output]
checkpoint_every_steps = 4608
)";

// Typed IPPO on the DERs task (twelve agents in three groups, updated in parallel): 8 envs,
// 3 updates, evaluation on two splits.
const char* kDersSpec = R"([experiment]
name = "threads_ders"
seed = 2
[env]
task = "ders"
[vec]
n_envs = 8
[learner]
algo = "ippo"
total_steps = 1152
rollout_length = 48

[ppo]
hidden = [32, 32]
normalize_obs = false
[ippo]
sharing = "typed"
[eval]
every_steps = 768
n_episodes = 6
splits = ["iid", "load_stress"]
[output]
trajectories = "none"
checkpoint_every_steps = 1152
)";

// The same with IPPO-Lagrangian on the three team costs.
std::string ders_lagrangian_spec() {
  std::string s = kDersSpec;
  s.replace(s.find("algo = \"ippo\""), 13, "algo = \"ippo_lagrangian\"");
  s.replace(s.find("[ippo]"), 6, "[lagrangian]\nlambda_lr = 0.05\n[ippo]");
  s.replace(s.find("[eval]"), 6,
            "[safety]\nconstraints = [\"voltage_violation\", \"thermal_overload\", "
            "\"resource\"]\n[eval]");
  return s;
}

// The DERs task with random branch outages (their draws on each env's own stream) and
// evaluation on the n1_branch split.
std::string ders_outage_spec() {
  std::string s = kDersSpec;
  s.replace(s.find("task = \"ders\""), 13,
            "task = \"ders\"\noutage_rate = 0.01\noutage_duration_steps = 6");
  s.replace(s.find("splits = [\"iid\", \"load_stress\"]"), 31, "splits = [\"n1_branch\"]");
  return s;
}

// SAC on case5: 16 envs, batches of 256 (2 row blocks), 2 gradient steps per vector step once
// 1024 transitions were stored; act on 16 rows, eval on 16 episodes.
const char* kSacSpec = R"([experiment]
name = "threads_sac"
seed = 4
[env]
case = "case5"
horizon = 48
reward_scale = 1e-4
[vec]
n_envs = 16
[learner]
algo = "sac"
total_steps = 6144
rollout_length = 48
[sac]
hidden = [64, 64]
learning_starts = 1024
num_epochs = 2
[reward]
penalty = { power_balance = 0.02, thermal_overload = 0.02 }
[eval]
every_steps = 2304
n_episodes = 16
[output]
checkpoint_every_steps = 6144
)";

// PPO (Gaussian) on the DC microgrid task: 16 envs, rollouts of a third of the 288-step day,
// 3 updates, evaluation with trajectories (and their info/ traces).
const char* kDcmgSpec = R"([experiment]
name = "threads_dcmg"
seed = 7
[env]
task = "dc_microgrid"
[vec]
n_envs = 16
[learner]
total_steps = 4608
rollout_length = 96

[ppo]
n_minibatches = 2
hidden = [32, 32]
[eval]
every_steps = 1536
n_episodes = 4
[output]
checkpoint_every_steps = 4608
)";

// The DC microgrid under random component outages and the N-1 outage of every episode: their
// draws on the env's stream.
std::string dcmg_outage_spec() {
  return pz::test::replaced(
      pz::test::outage_variant(kDcmgSpec, "threads_dcmg", "task = \"dc_microgrid\"",
                               pz::test::kDcmgOutageKeys),
      "seed = 7\n", "seed = 8\n");
}

}  // namespace

TEST_SUITE("exp_threads") {
  TEST_CASE("training with --threads 1, 2 and 3 is byte-identical") {
    check_thread_invariance("threads", kSpec, 15360);
  }

  TEST_CASE("IPPO training on the GenCos market with --threads 1, 2 and 3 is byte-identical") {
    check_thread_invariance("threads_ippo", kIppoSpec, 3072);
  }
  TEST_CASE(
      "AC power-flow training (trans_grid solver = acpf) is byte-identical for 1, 2, 3 threads") {
    check_thread_invariance("threads_ac", kAcSpec, 4608);
  }

  TEST_CASE("typed IPPO on the DERs task with --threads 1, 2 and 3 is byte-identical") {
    check_thread_invariance("threads_ders", kDersSpec, 1152);
  }

  TEST_CASE("typed IPPO-Lagrangian on the DERs task with --threads 1, 2 and 3 is byte-identical") {
    check_thread_invariance("threads_ders_lag", ders_lagrangian_spec(), 1152);
  }

  TEST_CASE("DERs training under random branch outages is byte-identical for 1, 2, 3 threads") {
    check_thread_invariance("threads_ders_out", ders_outage_spec(), 1152);
  }

  TEST_CASE("SAC training on case5 with --threads 1, 2 and 3 is byte-identical") {
    check_thread_invariance("threads_sac", kSacSpec, 6144);
  }

  TEST_CASE("PPO training on the DC microgrid with --threads 1, 2 and 3 is byte-identical") {
    check_thread_invariance("threads_dcmg", kDcmgSpec, 4608);
  }
  TEST_CASE(
      "PPO on the DC microgrid under component outages is byte-identical for 1, 2, 3 threads") {
    check_thread_invariance("threads_dcmg_outages", dcmg_outage_spec(), 4608);
  }
  TEST_CASE("training under random outages (trans_grid) is byte-identical for 1, 2, 3 threads") {
    check_thread_invariance("threads_outages",
                            pz::test::case14_outage_spec("threads_outages", "", 4608, 2048, 4608),
                            4608);
  }
  TEST_CASE(
      "IPPO on the GenCos market under random outages is byte-identical for 1, 2, 3 threads") {
    check_thread_invariance("threads_ippo_outages", gencos_outage_spec(), 3072);
  }
}
