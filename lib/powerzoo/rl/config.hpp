// Learner configurations: what the PPO family reads from [learner], [ppo], [lagrangian] and
// [saute], IPPO from [ippo], SAC from [learner] and [sac] (the keys are declared in
// rl/ppo/ppo_entry.cpp, rl/ippo/ippo_entry.cpp and rl/sac/sac_entry.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pz::rl {

/// How a time-limit truncation enters GAE.
enum class Truncation {
  kBootstrap,  ///< δ_t = r_t + γ·V(final_obs_t) − V_t, no continuation past t (SB3/CleanRL fix)
  kZeroTd,     ///< δ_t = 0 at a truncated step (PowerZooJax's seed PPO trainer)
};

/// How the Gaussian sample becomes the env action (PowerZooJax's policy heads).
enum class Squash {
  kNone,  ///< action = u = μ + σ·ξ, unbounded (the env clips); deterministic action μ
  kTanh,  ///< action = tanh(u), u stored in the rollout; log π adds −Σ log(1 − tanh²u);
          ///< deterministic action tanh(μ)
};

/// The PPO policy family (PowerZooJax's BoundedBetaPolicy).
enum class Policy {
  kGaussian,  ///< diagonal Gaussian, state-independent log σ (Squash decides the env action)
  kBeta,  ///< per-dimension Beta(α, β), α, β = 1 + softplus(head) clamped to [1 + 1e-6, 20],
          ///< u ∈ (0, 1) stored, env action low + u·(high − low); deterministic: the mode
};

/// How PPO-Lagrangian moves λ once per update (Ray, Achiam & Amodei 2019; Stooke, Achiam & Abbeel
/// 2020).
enum class DualRule {
  kLogAscent,  ///< log λ ← clip(log λ + lambda_lr·(Ĵ_C − d), ±log_lambda_max) (the reference)
  kPid,        ///< PID Lagrangian (OmniSafe form): I ← clip(I + K_i·e, 0, e^L), e = Ĵ_C − d,
         ///< λ = clip(K_p·e + I + K_d·max(0, Ĵ_C − Ĵ_C,prev), e^±log_lambda_max), I₀ = λ₀
};

/// How PPO limits a gradient before the Adam step.
enum class GradClip {
  kGlobalNorm,  ///< g ← g·min(1, max_grad_norm/‖g‖) over all parameters (optax clip_by_global_norm)
  kElement,  ///< g_i ← clamp(g_i, ±max_grad_norm) per entry (optax.clip, Rejax's PPO)
};

/// When PPO computes its GAE advantages and critic targets.
enum class AdvantageTiming {
  kMinibatch,  ///< per minibatch from the current critic (PowerZooJax's seed trainer nnx-ppo)
  kRollout,    ///< once per rollout from the critic that collected it (Rejax, CleanRL, SB3)
};

/// Cost critics of a Lagrangian learner with k constraints.
enum class CostCritic {
  kPerConstraint,  ///< k networks in → hidden → 1
  kShared,         ///< one network in → hidden → k (one trunk, one output per constraint)
};

struct PpoConfig {
  int64_t total_steps = 1'000'000;
  int rollout_length = 48;  ///< T
  int n_epochs = 4;
  int n_minibatches = 4;  ///< over the env axis; must divide n_envs
  double learning_rate = 3e-4;
  double gamma = 0.995;
  double gae_lambda = 0.95;
  double clip_range = 0.2;
  double entropy_coef = 0.01;
  double critic_loss_weight = 0.5;
  double max_grad_norm = 0.5;  ///< gradient clip threshold (grad_clip decides how); 0 disables
  GradClip grad_clip = GradClip::kGlobalNorm;
  /// Rejax's value clipping: ½·max((V − G)², (V_old + clip(V − V_old, ±clip_range) − G)²) with
  /// V_old the rollout-time value (the reward critic only; cost critics keep ½·(V − G)²).
  bool clip_value_loss = false;
  AdvantageTiming advantages = AdvantageTiming::kMinibatch;
  double weight_decay = 0.0;  ///< 0 = Adam, > 0 = AdamW (decoupled, times lr)
  double adam_eps = 1e-8;
  std::vector<int> hidden = {64, 64};
  double init_log_std = -0.5;
  /// Scale of the actor's output layer at initialization (CleanRL's 0.01: every mean starts near
  /// 0); 1 keeps the plain LeCun layer, as Rejax's Gaussian policy (flax Dense defaults).
  double init_actor_scale = 0.01;
  bool normalize_obs = true;
  bool normalize_advantages = true;
  /// Divide rewards by the running std of the discounted return before they enter the rollout
  /// (SB3 VecNormalize norm_reward, Gymnasium NormalizeReward); see RewardNormalizer.
  bool normalize_rewards = false;
  Truncation truncation = Truncation::kBootstrap;
  /// kTanh: tanh-squashed Gaussian. The entropy bonus stays the exact Gaussian entropy of u
  /// (state-independent, Σ log σ + ½log 2πe), not the reference's one-sample estimate of the
  /// squashed entropy: exact gradient, no extra noise draw. The tanh Jacobian term is constant in
  /// the parameters (u is stored), so it cancels in the PPO ratio.
  Squash squash = Squash::kNone;
  /// kBeta needs a bounded action box and ignores squash and init_log_std.
  Policy policy = Policy::kGaussian;
  /// Gaussian mean μ = c + h·tanh(head) with c, h the centre and half-width of the action box, so
  /// the mean stays inside the box (PowerZooJax's CMDP actor, SafeActorCritic: μ = tanh(Dense) on
  /// its [−1, 1] actions). Off: μ = head, unbounded, clipped by the env (the reference's PPO and
  /// IPPO). Needs a bounded box; the Gaussian policy without squash only.
  bool bounded_mean = false;

  // Safe RL: [lagrangian] (PPO-Lagrangian, Ray, Achiam & Amodei 2019 "Benchmarking Safe
  // Exploration in Deep Reinforcement Learning"; PID Lagrangian, Stooke, Achiam & Abbeel 2020,
  // arXiv:2007.03964) and [saute] (Sootla et al. 2022, arXiv:2202.06558).
  double lambda_lr = 5e-3;      ///< dual step η on log λ (per update)
  double lambda_init = 1.0;     ///< initial λ (reference: log λ = 0)
  double log_lambda_max = 5.0;  ///< log λ clamped to ±log_lambda_max
  double cost_gamma = 1.0;      ///< discount of the cost GAE (same gae_lambda)
  DualRule dual = DualRule::kLogAscent;
  double pid_kp = 0.0, pid_ki = 0.1, pid_kd = 0.0;  ///< DualRule::kPid gains (scaled cost units)
  double saute_unsafe_reward = 0.0;                 ///< Sauté reward once the budget is spent
  /// Layout of the cost critics (PPO-Lagrangian): one network per constraint, or one network
  /// with one output per constraint (PowerZooJax's IPPO-Lagrangian layout; docs/deviations.md).
  CostCritic cost_critic = CostCritic::kPerConstraint;
};

/// Which agents of a multi-agent env share one set of parameters under IPPO (de Witt et al. 2020,
/// arXiv:2011.09533, as PowerZooJax's ippo.py).
enum class Sharing {
  kFull,         ///< one network for every agent (the reference's `ippo`)
  kTyped,        ///< one network per name prefix before the first '_' (`ippo_typed`)
  kIndependent,  ///< one network per agent
};

/// The [ippo] table: parameter sharing and the batch mode of every group's update. The PPO
/// hyperparameters come from [ppo].
struct IppoConfig {
  Sharing sharing = Sharing::kFull;
  /// true (the reference, PowerZooJax's ippo.py): each epoch is one gradient step on all T·A_g·N
  /// samples of a group, advantages not normalized ([ppo] n_minibatches and normalize_advantages
  /// unused); false: [ppo] minibatching over the (env, agent) columns of the group.
  bool full_batch = true;
  /// ippo_lagrangian's cost critics per group: one network with one output per constraint
  /// (PowerZooJax's layout, the default) or one network per constraint.
  CostCritic cost_critic = CostCritic::kShared;
};

/// Hidden-layer activation of an MLP.
enum class Activation {
  kTanh,  ///< the PPO networks
  kRelu,  ///< Rejax SAC's networks (Haarnoja et al. 2018, arXiv:1812.05905, as Rejax 0.1.2)
};

/// SAC's own keys of [sac] (Haarnoja et al. 2018, arXiv:1812.05905; defaults of Rejax 0.1.2's
/// SAC). [sac] also holds learning_rate (all three optimizers), gamma, hidden (actor and both
/// critics), max_grad_norm (a per-element clamp of every gradient entry, as Rejax's optax.clip),
/// adam_eps and normalize_obs, which SacLearner takes in a PpoConfig; total_steps and
/// rollout_length (vector steps per train row) come from [learner].
struct SacConfig {
  int buffer_size = 131'072;       ///< replay capacity in transitions (ring)
  int64_t learning_starts = 2048;  ///< gradient steps begin once more transitions were stored
  int batch_size = 256;            ///< transitions per gradient step, drawn uniformly
  int num_epochs = 1;              ///< gradient steps after every vector step (sac_num_epochs)
  double tau = 0.01;        ///< Polyak: Q̄ ← (1 − τ)·Q̄ + τ·Q after every vector step
  double init_alpha = 1.0;  ///< initial temperature α = exp(log α)
  /// Target entropy per action dimension: target = target_entropy_per_dim · act_dim (−act_dim).
  double target_entropy_per_dim = -1.0;
  Activation activation = Activation::kRelu;
};

}  // namespace pz::rl
