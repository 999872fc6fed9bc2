// PPO learner (seed nnx-ppo semantics): Gaussian MLP actor, MLP critic, in-loss GAE, Adam/AdamW.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/rl/config.hpp"
#include "powerzoo/rl/learner.hpp"
#include "powerzoo/rl/nn/normalizer.hpp"
#include "powerzoo/rl/nn/optimizer.hpp"
#include "powerzoo/rl/ppo/lagrangian.hpp"
#include "powerzoo/rl/ppo/rollout.hpp"

namespace pz::rl {

/// PPO learner. Owns actor (tanh MLP → mean, state-independent log-std), critic (tanh MLP → 1),
/// the Adam/AdamW optimizer over all parameters, the observation normalizer and, for
/// PPO-Lagrangian, one cost critic and one Lagrange multiplier per constraint. As a Learner it
/// collects its own Rollout of T = rollout_length steps (ppo_learner.cpp); the methods taking a
/// Rollout work on any rollout (tests, benchmarks).
class PpoLearner final : public Learner {
 public:
  /// Initializes parameters from `init_rng` (orthogonal-free LeCun-uniform, zero biases, output
  /// layers scaled by cfg.init_actor_scale (actor, 0.01 as CleanRL) / 1.0 (critic)).
  /// n_costs > 0 adds one cost critic per channel (PPO-Lagrangian, same hidden sizes, drawn from
  /// init_rng after the reward critic) and k dual variables log λ = log(cfg.lambda_init).
  PpoLearner(int obs_dim, int act_dim, const PpoConfig& cfg, core::Rng& init_rng, int n_costs = 0);
  ~PpoLearner();
  PpoLearner(PpoLearner&&) noexcept;
  PpoLearner& operator=(PpoLearner&&) noexcept;

  // ---- Learner interface (ppo_learner.cpp).
  const std::string& name() const override;
  /// act(obs, n, rng, actions, nullptr, nullptr).
  void act(const float* obs, int n, core::Rng* rng, float* actions) override;
  /// Stores obs, the raw sample u, log π and V in row t of the internal rollout.
  void collect_act(const float* obs, int n, core::Rng& rng, float* actions) override;
  /// Stores dones, processed rewards (process_rewards on the shaped reward), truncation, final
  /// observations and the constraints' scaled costs; after step T − 1 also next_obs.
  /// Throws core::ConfigError if the step's shape differs from the learner's.
  void observe(const core::StepView& step) override;
  int collect_steps() const override;
  /// The rollout being collected ([T, N] as sized by set_context; rows before the current step
  /// are filled). Read by IPPO's tests.
  const Rollout& collected() const;
  /// update(rollout, rng) on the collected rollout, then (PPO-Lagrangian) one dual step with
  /// Ĵ_C = mean scaled cost of the episodes that ended in the rollout (if none: mean per-step
  /// cost × horizon), adding "lambda/<name>" and "safety/episode_cost_est/<name>". Throws
  /// core::RunError if the rollout is not complete.
  std::map<std::string, double> update(core::Rng& rng) override;
  /// update(rng) without the dual step: the collected rollout's epochs only (IPPO-Lagrangian
  /// moves one team dual for all its groups and sets them with set_log_lambdas). Throws
  /// core::RunError if the rollout is not complete.
  std::map<std::string, double> update_policy(core::Rng& rng);
  /// update_policy(*rngs[g]) of every learner g (IPPO's groups), their phases side by side: the
  /// row blocks of all learners' minibatch preparation, then of their GAE, then of their losses
  /// share one pool batch each, so learners too small to keep the workers busy alone fill them
  /// together. Every learner's result is that of its own update_policy (the same bytes). All must
  /// have the same n_epochs and n_minibatches (core::ConfigError otherwise).
  static std::vector<std::map<std::string, double>> update_policies(
      const std::vector<PpoLearner*>& learners, const std::vector<core::Rng*>& rngs,
      core::ThreadPool* pool);
  /// "lambda/<constraint>" for PPO-Lagrangian, else empty.
  std::map<std::string, double> status() const override;
  /// The registered name and (PPO-Lagrangian, n_costs() entries) the constraints as in
  /// LearnerContext; sizes the collection rollout for ctx.n_envs envs.
  void set_context(const std::string& name, const LearnerContext& ctx);
  /// Workers for the row blocks of act() and update() (nullptr: the calling thread). Results do
  /// not depend on it: the blocks are fixed by the batch size. The pool must outlive its use.
  void set_pool(core::ThreadPool* pool);
  /// Caps the rows of an update's row block (0, the default: a minibatch is cut into at most
  /// four blocks). A large full batch (IPPO's T·A_g·N rows) then runs as many blocks of at most
  /// `rows` rows whose activations stay in cache, reduced in block order as ever; the result
  /// depends on the cap (the gradient's summation order), never on the pool.
  void set_max_block_rows(int rows);
  /// The env's action box [act_dim] each, used by the Beta policy (default [0, 1]). Throws
  /// core::ConfigError on a size mismatch or, for the Beta policy, an unbounded or empty bound.
  void set_action_box(const std::vector<float>& low, const std::vector<float>& high);

  /// Batched policy step on raw observations obs [n, obs_dim] (normalized internally).
  /// rng != nullptr: samples u = μ + σ·ξ (ξ drawn sequentially from *rng, row-major), else
  /// u = μ (deterministic eval). Writes the env actions [n, act_dim] (u, or tanh(u) with
  /// Squash::kTanh); raw_actions [n, act_dim] = u (what the rollout stores), logp [n] = log π
  /// (including the tanh Jacobian) and value [n] if non-null. Without squashing raw_actions
  /// equals actions. Policy::kBeta: u ∈ [1e-6, 1 − 1e-6] per dimension from Beta(α, β) (two
  /// gamma draws each, row-major) or its mode; env action low + u·(high − low); log π is the
  /// unit-space density Σ_d log Beta(u_d; α_d, β_d) (PowerZooJax's BoundedBetaPolicy: no affine
  /// Jacobian).
  void act(const float* obs, int n, core::Rng* rng, float* actions, float* logp, float* value,
           float* raw_actions = nullptr);

  /// Critic values for raw observations obs [n, obs_dim] → value [n].
  void value(const float* obs, int n, float* value);

  /// n_epochs × n_minibatches gradient steps on env-axis minibatches (permutation per epoch from
  /// shuffle_rng), GAE recomputed per minibatch from the current critic, then merges the rollout's
  /// observations into the normalizer. Returns metrics averaged over the gradient steps:
  /// "losses/actor", "losses/critic", "losses/regularization" (= −entropy_coef·H),
  /// "losses/entropy", "losses/clipping_fraction", "losses/approx_kl", "losses/critic_R^2",
  /// "grad_norm" (pre-clip), "policy/log_std_mean".
  std::map<std::string, double> update(const Rollout& r, core::Rng& shuffle_rng);

  /// Loss and flat gradient for one minibatch of env columns (exposed for finite-difference
  /// tests). Gradient layout matches parameters().
  double loss_and_grad(const Rollout& r, const std::vector<int>& env_cols, std::vector<float>* grad,
                       std::map<std::string, double>* metrics);

  /// Stop-gradient GAE pieces of loss_and_grad for the same minibatch, from the current critic:
  /// raw (un-normalized) advantages [T, B] and critic targets G = V + A [T, B], time-major with
  /// B = env_cols.size() (row t·B + j is env column env_cols[j]). With k cost critics both hold
  /// (1 + k) blocks of [T, B]: block 0 the reward, block 1 + c cost channel c (cost GAE with
  /// cost_gamma).
  void compute_targets(const Rollout& r, const std::vector<int>& env_cols,
                       std::vector<float>* advantages, std::vector<float>* targets);

  /// loss_and_grad with the advantages [T, B] (raw; normalized inside if enabled) and targets
  /// [T, B] held fixed. With compute_targets() output at the current parameters it returns the
  /// same loss and gradient as loss_and_grad; as a function of the parameters it is the function
  /// whose gradient loss_and_grad reports (targets are constants), so finite-difference tests
  /// perturb this one. Throws core::ConfigError if sizes do not match.
  double loss_and_grad_fixed(const Rollout& r, const std::vector<int>& env_cols,
                             const std::vector<float>& advantages,
                             const std::vector<float>& targets, std::vector<float>* grad,
                             std::map<std::string, double>* metrics);

  /// Number of cost critics / dual variables (0 unless PPO-Lagrangian).
  int n_costs() const;
  /// λ_c = exp(log λ_c), fixed during update() (the actor uses Â_R − Σ_c λ_c Â_C,c).
  std::vector<double> lambdas() const;
  std::vector<double> log_lambdas() const;
  void set_log_lambdas(const std::vector<double>& log_lambda);
  /// Dual step once per update with cfg.dual: kLogAscent (PPO-Lagrangian, Ray, Achiam & Amodei
  /// 2019, as PowerZooJax's cmdp.py) log λ_c ← clip(log λ_c + lambda_lr·(episode_cost_c −
  /// budget_c), ±log_lambda_max); kPid see DualRule. Both vectors have n_costs() entries, in the
  /// scaled units of Rollout::costs. Returns the new λ. Throws core::ConfigError on wrong sizes,
  /// core::RunError on a non-finite cost.
  std::vector<double> dual_update(const std::vector<double>& episode_cost,
                                  const std::vector<double>& budget);

  /// All trainable parameters, flattened in a fixed order (actor layers, log_std, critic layers,
  /// cost critic layers).
  std::vector<float> parameters() const;
  void set_parameters(const std::vector<float>& flat);
  int64_t n_parameters() const;

  ObsNormalizer& normalizer();
  /// Rollout rewards for one vector step: the reward normalizer's output when
  /// cfg.normalize_rewards, else a copy. rewards, dones, out: [n].
  void process_rewards(const float* rewards, const uint8_t* dones, int n, float* out);
  const PpoConfig& config() const;

  /// Parameters, optimizer moments and step, normalizer statistics (observations and, when
  /// enabled, rewards), log λ → sd ("learner/").
  void trainable_parameters(std::vector<std::span<const float>>& out) const override;
  void save(core::StateDict& sd) const override;
  /// Inverse of save(); throws core::ConfigError if shapes do not match this learner.
  void load(const core::StateDict& sd) override;

 private:
  /// The epochs of every learner g on rollouts[g] with shuffle stream *rngs[g] (update(rollout,
  /// rng) and update_policies), phases side by side on `pool`.
  static std::vector<std::map<std::string, double>> update_many(
      const std::vector<PpoLearner*>& learners, const std::vector<const Rollout*>& rollouts,
      const std::vector<core::Rng*>& rngs, core::ThreadPool* pool);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pz::rl
