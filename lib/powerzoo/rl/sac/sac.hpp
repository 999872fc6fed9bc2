// Soft actor-critic (Haarnoja et al. 2018, arXiv:1812.05905, Rejax 0.1.2 semantics):
// squashed-Gaussian actor, twin Q critics with Polyak-averaged targets, learned temperature, replay
// buffer.
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
#include "powerzoo/rl/sac/replay.hpp"

namespace pz::rl {

/// A minibatch of transitions with raw observations: obs, next_obs [B, obs_dim], act [B, act_dim]
/// (env actions, as stored), reward, done [B] (done = 1: no bootstrap).
struct SacBatch {
  int B = 0;
  std::vector<float> obs, act, reward, done, next_obs;
};

/// SAC learner (Haarnoja et al. 2018, with the automatic temperature of the 2018 follow-up), as
/// Rejax 0.1.2 runs it:
///  - actor: MLP(obs) → [μ (A), log σ (A)], log σ clamped to [−10, 2]; a = loc + scale·tanh(u),
///    u = μ + σ·ξ, with loc, scale the action box's centre and half-width;
///    log π(a|s) = Σ_d[−ξ²/2 − log σ_d − ½log 2π − log(1 − tanh²u_d)] (no affine term);
///  - critics Q_0, Q_1: MLP(concat(obs, a)) → 1, targets Q̄_j initialised to Q_j;
///  - after every vector step (update()): once more than learning_starts transitions were stored,
///    num_epochs gradient steps, each on batch_size transitions drawn uniformly: the actor on
///    mean(α·log π(ã|s) − min_j Q_j(s, ã)) with reparameterised ã, then the critics (with the
///    updated actor) on Σ_j mean ½(Q_j(s, a) − y)², y = r + γ(1 − done)(min_j Q̄_j(s', a') −
///    α·log π(a'|s')), then log α on mean(−α(log π + target_entropy)) with the actor step's
///    log π; then (every vector step) Q̄ ← (1 − τ)·Q̄ + τ·Q.
/// Each of the three optimizers clamps every gradient entry to ±max_grad_norm (0: off), then
/// takes an Adam step (lr, β = 0.9/0.999, adam_eps). Observations are normalized with running
/// statistics updated by every vector step's next observations (normalize_obs). Row blocks of a
/// batch run on the pool with gradients reduced in block order: any thread count, same bytes.
class SacLearner final : public Learner {
 public:
  /// Draws the actor, then critic 0 and critic 1, from init_rng (LeCun-uniform, zero biases).
  /// Throws core::ConfigError on non-positive sizes.
  SacLearner(int obs_dim, int act_dim, const PpoConfig& ppo, const SacConfig& sac,
             core::Rng& init_rng);
  ~SacLearner();
  SacLearner(SacLearner&&) noexcept;
  SacLearner& operator=(SacLearner&&) noexcept;

  // ---- Learner interface.
  const std::string& name() const override;
  /// Sampled action loc + scale·tanh(μ + σ·ξ) (ξ from *rng, row-major), or loc + scale·tanh(μ)
  /// when rng == nullptr (evaluation, the reference benchmark's deterministic action).
  void act(const float* obs, int n, core::Rng* rng, float* actions) override;
  void collect_act(const float* obs, int n, core::Rng& rng, float* actions) override;
  /// Pushes the step's N transitions (next_obs = final_obs where the episode ended; done =
  /// terminated, so a time-limit truncation bootstraps) and folds next_obs into the normalizer.
  /// Throws core::ConfigError if the step's shape differs from the learner's.
  void observe(const core::StepView& step) override;
  /// [ppo] rollout_length: vector steps per train row.
  int collect_steps() const override;
  int update_every() const override { return 1; }
  /// The gradient steps of one vector step (none before learning_starts), then the Polyak update.
  /// Returns the mean over this call's gradient steps of "losses/q_loss", "losses/actor_loss",
  /// "losses/alpha_loss", "losses/entropy" (−mean log π of the actor step), "sac/alpha" (after
  /// the step), "sac/q_mean", "policy/log_std_mean", "grad_norm/actor", "grad_norm/critic",
  /// plus "sac/replay_size"; empty when no gradient step was taken. Throws core::RunError on a
  /// non-finite loss.
  std::map<std::string, double> update(core::Rng& rng) override;
  void trainable_parameters(std::vector<std::span<const float>>& out) const override;
  void save(core::StateDict& sd) const override;
  void load(const core::StateDict& sd) override;
  /// Action box, N and pool from the context (the box must be bounded).
  void set_context(const LearnerContext& ctx);

  // ---- The pieces of a gradient step (tests, bench).
  /// The env's action box [act_dim] each; throws core::ConfigError unless every bound is finite
  /// and high > low. Default [−1, 1].
  void set_action_box(const std::vector<float>& low, const std::vector<float>& high);
  void set_pool(core::ThreadPool* pool);
  /// Actor loss at the current parameters with reparameterisation noise ξ [B, act_dim] fixed;
  /// writes ∂L/∂(actor parameters) into *grad and log π [B] into *logp when non-null.
  double actor_loss(const SacBatch& b, const std::vector<float>& noise, std::vector<float>* grad,
                    std::vector<float>* logp);
  /// Critic loss of both critics with next-action noise ξ' [B, act_dim] fixed (the target is a
  /// constant: target critics and actor are not differentiated); ∂L/∂(critic parameters) into
  /// *grad when non-null, the mean of Q_0 and Q_1 over the batch into *q_mean.
  double critic_loss(const SacBatch& b, const std::vector<float>& next_noise,
                     std::vector<float>* grad, double* q_mean = nullptr);
  /// Temperature loss mean_i(−α(log π_i + target_entropy)) and its derivative in log α.
  double alpha_loss(const std::vector<float>& logp, double* dlog_alpha) const;
  /// One gradient step (actor, critics, log α) on b, noise drawn from rng (ξ then ξ', row-major);
  /// the metrics of update() for this step.
  std::map<std::string, double> gradient_step(const SacBatch& b, core::Rng& rng);
  /// Q̄ ← (1 − τ)·Q̄ + τ·Q, elementwise in float.
  void polyak_update();
  /// Uniform minibatch of batch_size transitions from the replay buffer (indices from rng).
  SacBatch sample_batch(core::Rng& rng) const;

  std::vector<float> actor_parameters() const;
  void set_actor_parameters(const std::vector<float>& p);
  /// Both critics, flat: critic 0 then critic 1 (each W0, b0, W1, b1, …).
  std::vector<float> critic_parameters() const;
  void set_critic_parameters(const std::vector<float>& p);
  std::vector<float> target_critic_parameters() const;
  void set_target_critic_parameters(const std::vector<float>& p);
  double log_alpha() const;
  void set_log_alpha(double log_alpha);
  double target_entropy() const;
  int64_t gradient_steps() const;
  int64_t transitions_seen() const;  ///< transitions pushed so far (learning starts after more)
  ObsNormalizer& normalizer();
  const ReplayBuffer& replay() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pz::rl
