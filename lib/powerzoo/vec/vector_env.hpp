// VectorEnv: N env states stepped in fixed blocks on the thread pool, auto-reset, episode stats.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/env.hpp"

namespace pz::vec {

/// Statistics of one finished episode.
struct EpisodeStats {
  double ret = 0;  ///< Σ reward (objective only; the team reward of a multi-agent env)
  std::vector<double> agent_ret;  ///< [n_agents] Σ per-agent reward (single-agent: {ret})
  double shaped_ret = 0;  ///< Σ learner reward (reward − Σ_k w_k·cost_k under PenaltyEnv)
  double gen_cost = 0;    ///< Σ generation cost ($/h per step, summed over steps)
  int length = 0;
  int safe_steps = 0;                      ///< steps with Info::is_safe
  std::vector<double> cost_sum;            ///< [n_costs] Σ cost per channel
  std::vector<int> violation_steps;        ///< [n_costs] steps with cost > 1e-6
  double sums[envs::Info::kMaxSums] = {};  ///< Σ Info::sums (EnvSpec::episode_sum_names)
  bool terminated = false;
};

/// Batched environment (docs/design.md §4.4). Env i draws from its own Rng stream (seed,
/// stream_base + i), and block b of the pool steps envs [b·N/B, (b+1)·N/B): results are identical
/// for any thread count. After terminated or truncated the env is reset at once; final_obs keeps
/// the observation of the finished episode.
class VectorEnv {
 public:
  /// The env is stepped as given: reward shaping (envs::PenaltyEnv, SauteEnv) is a wrapper.
  VectorEnv(std::shared_ptr<const envs::Env> env, int n_envs, uint64_t seed, uint64_t stream_base,
            core::ThreadPool& pool);

  /// Resets every env. opt.episode >= 0: env i starts episode opt.episode + i of opt.n_episodes.
  void reset_all(const envs::ResetOptions& opt = {});
  /// Steps every env with actions [N, act_dim]; fills the buffers below.
  void step_all(const float* actions);
  /// Steps without auto-reset (evaluation of fixed-length episodes): finished envs stay finished.
  void set_auto_reset(bool on) { auto_reset_ = on; }

  int n_envs() const { return n_; }
  int n_agents() const { return n_agents_; }
  const envs::EnvSpec& spec() const { return env_->spec(); }

  // Buffers written by reset_all / step_all (row-major).
  std::vector<float> obs;            ///< [N, obs_dim] current observation (after auto-reset)
  std::vector<float> final_obs;      ///< [N, obs_dim] pre-reset obs where done
  std::vector<float> reward;         ///< [N, A] objective reward per agent (A = n_agents)
  std::vector<float> team_reward;    ///< [N] Step::reward (the team reward; = reward if A = 1)
  std::vector<float> shaped_reward;  ///< [N, A] learner reward (Step::shaped_reward if set)
  std::vector<float> costs;          ///< [N, n_costs]
  std::vector<uint8_t> terminated, truncated;  ///< [N]
  std::vector<envs::Info> info;                ///< [N]

  /// Episodes finished during the last step_all (env index, stats).
  const std::vector<std::pair<int, EpisodeStats>>& finished() const { return finished_; }

  /// State of env i (evaluation reads its trace vectors, Env::write_trace).
  const envs::State& state(int i) const { return *states_[i]; }

  /// Rng stream of env i.
  core::Rng& rng(int i) { return rngs_[i]; }

  /// Everything needed to continue exactly: env states, Rng streams, running episode statistics
  /// and the current observations, under `prefix` ("vec/"). Only valid between step_all calls
  /// with auto-reset on (no episode is half-reported).
  void save(core::StateDict& sd, const std::string& prefix) const;
  /// Inverse of save(); throws core::ConfigError on a size mismatch (different n_envs or env).
  void load(const core::StateDict& sd, const std::string& prefix);

 private:
  EpisodeStats fresh_stats(size_t n_costs) const;
  /// Blocks for the next step_all: 1 (inline) or one per thread, whichever the running
  /// measurements say is cheaper. Results do not depend on it.
  size_t choose_blocks();
  static constexpr long long kRecheck = 64;
  double inline_ns_ = -1;   ///< EMA of an inline step_all's wall time (ns); < 0: not measured
  double pool_ns_ = -1;     ///< EMA of a step_all on the pool (ns); < 0: not measured
  size_t last_blocks_ = 0;  ///< blocks of the previous step_all
  long long steps_ = 0;

  std::shared_ptr<const envs::Env> env_;
  int n_;
  int n_agents_ = 1;
  core::ThreadPool& pool_;
  bool auto_reset_ = true;
  std::vector<std::unique_ptr<envs::State>> states_;
  std::vector<core::Rng> rngs_;
  std::vector<EpisodeStats> running_;
  std::vector<uint8_t> finished_flag_;
  std::vector<std::pair<int, EpisodeStats>> finished_;
};

}  // namespace pz::vec
