// Kill-and-resume (PPO and SAC on case5, PPO on the DC microgrid (also under component outages),
// IPPO on the GenCos market and the DERs task): a run killed with SIGKILL and resumed with
// --resume produces metric arrays and final parameters (SAC: and the replay buffer) and the kept
// evaluations' trajectories byte-identical to the same run never interrupted.
#include <doctest/doctest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "powerzoo/io/hdf5.hpp"
#include "test_run_util.hpp"
#include "test_util.hpp"

extern char** environ;
namespace fs = std::filesystem;

namespace {

const std::string kBin = PZ_BINARY;

const char* kSpec = R"([experiment]
name = "resume"
seed = 11
[env]
case = "case5"
horizon = 48
reward_scale = 1e-4
[vec]
n_envs = 8
threads = 2
[learner]
total_steps = 184320
rollout_length = 24

[ppo]
n_minibatches = 2
hidden = [64, 64]
[reward]
penalty = { power_balance = 0.02, thermal_overload = 0.02 }
[eval]
every_steps = 23040
n_episodes = 4
[output]
checkpoint_every_steps = 11520
keep_checkpoints = 2
)";

pid_t spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  return pid;
}

int wait_exit(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

long long last_progress_step(const fs::path& csv) {
  std::ifstream in(csv);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != 'g') last = line;
  return last.empty() ? -1 : std::atoll(last.c_str());
}

// Runs `spec_text` uninterrupted, then once per kill point: starts it, SIGKILLs it once its
// progress passes the point, resumes it, and compares the run with the uninterrupted one byte for
// byte (pz::test::check_same_run). Returns how many kills landed mid-run.
int check_kill_and_resume(const std::string& tag, const std::string& spec_text, long long total,
                          const std::vector<long long>& kill_points) {
  const fs::path d = pz::test::spec_dir(tag, spec_text);
  const std::string spec = (d / "spec.toml").string();
  const std::string ref = (d / "ref").string();
  REQUIRE(wait_exit(spawn({kBin, "run", spec, "--quiet", "--out", ref})) == 0);

  int killed_mid_run = 0;
  for (long long kill_at : kill_points) {
    CAPTURE(kill_at);
    const std::string run = (d / ("k" + std::to_string(kill_at))).string();
    const pid_t pid = spawn({kBin, "run", spec, "--quiet", "--out", run});
    REQUIRE(pid > 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (last_progress_step(fs::path(run) / "progress.csv") < kill_at &&
           std::chrono::steady_clock::now() < deadline) {
      int st;
      if (waitpid(pid, &st, WNOHANG) == pid) break;  // finished before we could kill it
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (kill(pid, SIGKILL) == 0) ++killed_mid_run;
    wait_exit(pid);
    // Resume (twice is harmless: the second finds the run complete).
    REQUIRE(wait_exit(spawn({kBin, "run", spec, "--quiet", "--resume", "--out", run})) == 0);
    // The evaluations' trajectories compared too: the same evaluations kept ([output]
    // trajectory_evals), with the same values (a resume copies those the uninterrupted run still
    // holds).
    const pz::test::RunComparison cmp = pz::test::check_same_run(ref, run, total);
    CHECK(cmp.spec == cmp.ref_spec);
    CHECK(cmp.learner_f32 > 6);
    // keep_checkpoints = 2: only the last two periodic checkpoints remain.
    int n_step_files = 0;
    for (const auto& e : fs::directory_iterator(fs::path(run) / "ckpt"))
      n_step_files += e.path().filename().string().rfind("step_", 0) == 0;
    CHECK(n_step_files == 2);
  }
  return killed_mid_run;
}

// IPPO on the GenCos market: five agents, one shared network, full-batch updates.
const char* kIppoSpec = R"([experiment]
name = "resume_ippo"
seed = 5
[env]
task = "gencos"
[vec]
n_envs = 8
threads = 2
[learner]
algo = "ippo"
total_steps = 27648
rollout_length = 48

[ppo]
hidden = [32, 32]
normalize_rewards = true
[ippo]
sharing = "full"
[eval]
every_steps = 9216
n_episodes = 4
[output]
trajectories = "none"
checkpoint_every_steps = 1536
keep_checkpoints = 2
)";

// The GenCos IPPO spec under random branch and unit outages, with the outage status observed.
std::string gencos_outage_spec() {
  return pz::test::outage_variant(kIppoSpec, "resume_ippo", "task = \"gencos\"",
                                  pz::test::kGridOutageKeys);
}

// The AC power flow mode: the warm-start voltages of every env are part of the checkpoint.
const char* kAcSpec = R"([experiment]
name = "resume_ac"
seed = 4
[env]
case = "case30"
solver = "acpf"
load_scale = 1.2
horizon = 48
reward_scale = 1e-2
[vec]
n_envs = 16
threads = 2
[learner]
total_steps = 46080
rollout_length = 48

[ppo]
hidden = [32, 32]
[reward]
penalty = { power_balance = 0.02, thermal_overload = 0.05, voltage_violation = 50.0 }
[eval]
every_steps = 15360
n_episodes = 8
[output]
trajectories = "none"
checkpoint_every_steps = 1536
keep_checkpoints = 2
)";

// Typed IPPO on the DERs task: twelve agents in three groups, battery SOC, FlexLoad buffers and
// random branch outages (status and steps left) in the checkpointed env states.
const char* kDersSpec = R"([experiment]
name = "resume_ders"
seed = 7
[env]
task = "ders"
outage_rate = 0.01
outage_duration_steps = 6
[vec]
n_envs = 8
threads = 2
[learner]
algo = "ippo"
total_steps = 18432
rollout_length = 48

[ppo]
hidden = [32, 32]
normalize_obs = false
[ippo]
sharing = "typed"
[eval]
every_steps = 6144
n_episodes = 4
[output]
trajectories = "none"
checkpoint_every_steps = 1536
keep_checkpoints = 2
)";

// SAC on case5: a replay buffer of 4096 transitions that wraps (36864 steps), stored in every
// checkpoint; gradient steps after every vector step from 512 transitions on.
const char* kSacSpec = R"([experiment]
name = "resume_sac"
seed = 9
[env]
case = "case5"
horizon = 48
reward_scale = 1e-4
[vec]
n_envs = 8
threads = 2
[learner]
algo = "sac"
total_steps = 36864
rollout_length = 24
[sac]
hidden = [32, 32]
buffer_size = 4096
learning_starts = 512
batch_size = 64
[reward]
penalty = { power_balance = 0.02, thermal_overload = 0.02 }
[eval]
every_steps = 3072
n_episodes = 4
[output]
checkpoint_every_steps = 1536
keep_checkpoints = 2
)";

// PPO (Gaussian) on the DC microgrid: job tables, battery and diesel states, mid-episode.
const char* kDcmgSpec = R"([experiment]
name = "resume_dcmg"
seed = 3
[env]
task = "dc_microgrid"
[vec]
n_envs = 8
threads = 2
[learner]
total_steps = 46080
rollout_length = 96

[ppo]
n_minibatches = 2
hidden = [32, 32]
[eval]
every_steps = 7680
n_episodes = 2
[output]
trajectories = "none"
checkpoint_every_steps = 1536
keep_checkpoints = 2
)";

// The DC microgrid under random component outages and the N-1 outage of every episode, half the
// budget: checkpoints fall mid-episode with outages in progress.
std::string dcmg_outage_spec() {
  const std::string s = pz::test::outage_variant(
      kDcmgSpec, "resume_dcmg", "task = \"dc_microgrid\"", pz::test::kDcmgOutageKeys);
  return pz::test::replaced(pz::test::replaced(s, "seed = 3\n", "seed = 4\n"),
                            "total_steps = 46080\n", "total_steps = 23040\n");
}

}  // namespace

TEST_SUITE("exp_resume") {
  TEST_CASE("SIGKILL at three moments, resume, and the run is byte-identical") {
    // On a loaded machine a run may finish before the kill; most kills must land mid-run.
    CHECK(check_kill_and_resume("resume", kSpec, 184320, {30000, 95000, 160000}) >= 2);
  }

  TEST_CASE("a SIGKILLed AC power-flow run (trans_grid solver = acpf) resumes byte-identical") {
    CHECK(check_kill_and_resume("resume_ac", kAcSpec, 46080, {20000}) == 1);
  }

  TEST_CASE("a SIGKILLed IPPO run (GenCos, five agents) resumes byte-identical") {
    CHECK(check_kill_and_resume("resume_ippo", kIppoSpec, 27648, {12000}) == 1);
  }

  TEST_CASE("a SIGKILLed typed-IPPO run on the DERs task resumes byte-identical") {
    CHECK(check_kill_and_resume("resume_ders", kDersSpec, 18432, {8000}) == 1);
  }

  TEST_CASE("resume refuses a different spec but accepts a larger budget") {
    const fs::path d = pz::test::spec_dir("resume2", kSpec);
    const std::string spec = (d / "spec.toml").string();
    const std::string run = (d / "r").string();
    REQUIRE(wait_exit(spawn(
                {kBin, "run", spec, "--quiet", "learner.total_steps=3840", "--out", run})) == 0);
    const auto refused = pz::test::sh(std::string(kBin) + " run " + spec +
                                      " --quiet --resume learner.total_steps=3840"
                                      " ppo.learning_rate=1e-3 --out " +
                                      run);
    CHECK(refused.code == 2);
    // The message names the key that changed, with both values.
    CHECK(refused.out.find("ppo.learning_rate: expected 0.0003 (checkpoint), found 0.001") !=
          std::string::npos);
    // A larger budget is allowed: the run continues to the new total.
    CHECK(wait_exit(spawn({kBin, "run", spec, "--quiet", "--resume", "learner.total_steps=7680",
                           "--out", run})) == 0);
    CHECK(pz::io::read_column(run + "/run.h5", "metrics/train/global_step").back() == 7680.0);
  }

  // Regression: a checkpoint whose global step was -100 resumed with exit 0 and deleted the
  // run's newer checkpoints and progress rows.
  TEST_CASE("resume refuses checkpoint counters that do not hold together, deleting nothing") {
    const fs::path d = pz::test::spec_dir("resume_ctr", kSpec);
    const std::string spec = (d / "spec.toml").string();
    const std::string run = (d / "r").string();
    REQUIRE(wait_exit(spawn(
                {kBin, "run", spec, "--quiet", "learner.total_steps=3840", "--out", run})) == 0);
    std::vector<std::string> before;
    for (const auto& e : fs::directory_iterator(fs::path(run) / "ckpt"))
      before.push_back(e.path().filename().string());
    std::sort(before.begin(), before.end());
    const std::string last = (fs::path(run) / "ckpt" / before.back()).string();
    std::string toml;
    const pz::core::StateDict good = pz::io::read_checkpoint(last, &toml);
    for (const auto& [key, value] :
         std::vector<std::pair<std::string, int64_t>>{{"counters/global_step", -100},
                                                      {"counters/iteration", 1},
                                                      {"counters/last_ckpt", 1 << 30}}) {
      CAPTURE(key);
      pz::core::StateDict sd = good;
      sd.i64[key] = {value};
      pz::io::write_checkpoint(last, sd, toml);
      const auto r = pz::test::sh(std::string(kBin) + " run " + spec +
                                  " --quiet --resume learner.total_steps=7680 --out " + run);
      CHECK(r.code == 2);
      CHECK_MESSAGE(r.out.find("checkpoint: counters: expected") != std::string::npos, r.out);
      std::vector<std::string> after;
      for (const auto& e : fs::directory_iterator(fs::path(run) / "ckpt"))
        after.push_back(e.path().filename().string());
      std::sort(after.begin(), after.end());
      CHECK(after == before);
    }
  }

  TEST_CASE("a SIGKILLed SAC run resumes byte-identical, replay buffer included") {
    CHECK(check_kill_and_resume("resume_sac", kSacSpec, 36864, {9000, 26000}) >= 1);
  }

  TEST_CASE("a SIGKILLed PPO run on the DC microgrid resumes byte-identical") {
    CHECK(check_kill_and_resume("resume_dcmg", kDcmgSpec, 46080, {20000}) == 1);
  }

  TEST_CASE("a SIGKILLed PPO run on the DC microgrid under component outages resumes identical") {
    CHECK(check_kill_and_resume("resume_dcmg_outages", dcmg_outage_spec(), 23040, {10000}) == 1);
  }

  TEST_CASE("a SIGKILLed run under random outages resumes byte-identical, outage states included") {
    CHECK(check_kill_and_resume(
              "resume_outages",
              pz::test::case14_outage_spec("resume_outages", "threads = 2\n", 30720, 10240, 1536),
              30720, {15000}) == 1);
  }
  TEST_CASE("a SIGKILLed GenCos IPPO run under random outages resumes byte-identical") {
    CHECK(check_kill_and_resume("resume_ippo_outages", gencos_outage_spec(), 27648, {12000}) == 1);
  }
}
