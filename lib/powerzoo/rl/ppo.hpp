// PPO learner (seed nnx-ppo semantics): Gaussian MLP actor, MLP critic, in-loss GAE, Adam/AdamW.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"

namespace pz::core {
class ThreadPool;
}

namespace pz::rl {

/// How a time-limit truncation enters GAE.
enum class Truncation {
  kBootstrap,  ///< δ_t = r_t + γ·V(final_obs_t) − V_t, no continuation past t (SB3/CleanRL fix)
  kZeroTd,     ///< δ_t = 0 at a truncated step (reference seed trainer, rl.md §1.6)
};

/// How the Gaussian sample becomes the env action (rl.md §1.10, §2.5).
enum class Squash {
  kNone,  ///< action = u = μ + σ·ξ, unbounded (the env clips); deterministic action μ
  kTanh,  ///< action = tanh(u), u stored in the rollout; log π adds −Σ log(1 − tanh²u);
          ///< deterministic action tanh(μ)
};

/// Which objective the learner optimizes (rl.md §2.7, §2.9).
enum class Algo {
  kPpo,            ///< plain PPO on the (possibly penalty-shaped) reward
  kPpoLagrangian,  ///< reward critic + one cost critic per constraint, dual ascent on log λ
  kSautePpo,       ///< plain PPO on a Sauté env (budget-augmented obs, unsafe reward)
};

/// How PPO-Lagrangian moves λ once per update (rl.md §2.7; Stooke, Achiam & Abbeel 2020).
enum class DualRule {
  kLogAscent,  ///< log λ ← clip(log λ + lambda_lr·(Ĵ_C − d), ±log_lambda_max) (the reference)
  kPid,        ///< PID Lagrangian (OmniSafe form): I ← clip(I + K_i·e, 0, e^L), e = Ĵ_C − d,
         ///< λ = clip(K_p·e + I + K_d·max(0, Ĵ_C − Ĵ_C,prev), e^±log_lambda_max), I₀ = λ₀
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
  double max_grad_norm = 0.5;  ///< global-norm clip; 0 disables
  double weight_decay = 0.0;   ///< 0 = Adam, > 0 = AdamW (decoupled, times lr)
  double adam_eps = 1e-8;
  std::vector<int> hidden = {64, 64};
  double init_log_std = -0.5;
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

  // Safe RL (rl.md §2.2 defaults, §2.7, §2.9).
  Algo algo = Algo::kPpo;
  double lambda_lr = 5e-3;      ///< dual step η on log λ (per update)
  double lambda_init = 1.0;     ///< initial λ (reference: log λ = 0)
  double log_lambda_max = 5.0;  ///< log λ clamped to ±log_lambda_max
  double cost_gamma = 1.0;      ///< discount of the cost GAE (same gae_lambda)
  DualRule dual = DualRule::kLogAscent;
  double pid_kp = 0.0, pid_ki = 0.1, pid_kd = 0.0;  ///< DualRule::kPid gains (scaled cost units)
  double saute_unsafe_reward = 0.0;                 ///< Sauté reward once the budget is spent
};

/// One rollout of T steps over N envs, time-major. Filled by the trainer, read by update().
/// Observations are raw (un-normalized); actions are the raw Gaussian samples u (the env clips;
/// with Squash::kTanh the env received tanh(u)).
struct Rollout {
  int T = 0, N = 0, obs_dim = 0, act_dim = 0;
  std::vector<float> obs;          ///< [T, N, obs_dim] observation the action was taken on
  std::vector<float> actions;      ///< [T, N, act_dim]
  std::vector<float> logp;         ///< [T, N] log-likelihood at rollout time
  std::vector<float> values;       ///< [T, N] critic value at rollout time (logging only)
  std::vector<float> rewards;      ///< [T, N]
  std::vector<uint8_t> dones;      ///< [T, N] terminated OR truncated
  std::vector<uint8_t> truncated;  ///< [T, N] time-limit truncation (implies done)
  std::vector<float> final_obs;    ///< [T, N, obs_dim] pre-reset obs, valid where dones
  std::vector<float> next_obs;     ///< [N, obs_dim] obs after the last step (bootstrap)
  int n_costs = 0;                 ///< k cost channels (PPO-Lagrangian), 0 otherwise
  std::vector<float> costs;        ///< [T, N, k] per-step costs (already divided by cost_scale)
  void resize(int T, int N, int obs_dim, int act_dim, int n_costs = 0);
};

/// GAE for one env column (rl.md §1.6), exposed for tests. All arrays have length T except
/// `values_next` which holds V(s_{t+1}) as seen by step t: V(obs_{t+1}) for t < T−1, the
/// bootstrap value for t = T−1, and V(final_obs_t) at truncated steps (kBootstrap).
/// Writes advantages [T]. Returns nothing; targets are values + advantages.
void gae(int T, const float* rewards, const float* values, const float* values_next,
         const uint8_t* dones, const uint8_t* truncated, double gamma, double lambda,
         Truncation mode, float* advantages);

/// Running mean/variance of observations (batched Welford/Chan merge, rl.md §1.10): output =
/// clip((x − μ)/σ, ±10) with σ = sqrt(max(M2/count, 1e-6)); before the first merge μ = 0, σ = 1.
class ObsNormalizer {
 public:
  explicit ObsNormalizer(int dim = 0);
  void normalize(const float* x, int n, float* out) const;  ///< x, out: [n, dim]
  void merge(const float* x, int n);                        ///< folds a batch [n, dim]
  void save(core::StateDict& sd, const std::string& prefix) const;
  void load(const core::StateDict& sd, const std::string& prefix);
  int dim() const { return dim_; }

 private:
  int dim_ = 0;
  double count_ = 0;
  std::vector<double> mean_, m2_;
  std::vector<float> scale_, shift_;  // cached 1/σ and μ for normalize()
  void refresh();
};

/// Reward scaling by the running standard deviation of the discounted return, as SB3's
/// VecNormalize(norm_reward=True) and Gymnasium's NormalizeReward do: per env R ← γ·R + r, the
/// batch of R folds into running moments (mean 0, var 1, count 1e-4 initially; parallel-moments
/// merge), the output is clip(r / sqrt(var + 1e-8), ±10), and R ← 0 where the step ended an
/// episode (terminated or truncated). The mean is not subtracted, so the sign and relative size
/// of rewards are kept. Keeps value targets O(1) whatever the env's reward units.
class RewardNormalizer {
 public:
  explicit RewardNormalizer(double gamma = 0.99) : gamma_(gamma) {}
  /// rewards, dones, out: [n] for the n envs of one vector step (n fixed after the first call;
  /// throws core::ConfigError if it changes). Updates the statistics, then normalizes.
  void normalize(const float* rewards, const uint8_t* dones, int n, float* out);
  double var() const { return var_; }
  void save(core::StateDict& sd, const std::string& prefix) const;
  /// Throws core::ConfigError if the entries are missing or malformed.
  void load(const core::StateDict& sd, const std::string& prefix);

 private:
  double gamma_;
  std::vector<double> ret_;  ///< [n] running discounted return per env
  double count_ = 1e-4, mean_ = 0.0, var_ = 1.0;
};

/// PPO learner. Owns actor (tanh MLP → mean, state-independent log-std), critic (tanh MLP → 1),
/// the Adam/AdamW optimizer over all parameters, and the observation normalizer.
class PpoLearner {
 public:
  /// Initializes parameters from `init_rng` (orthogonal-free LeCun-uniform, zero biases, output
  /// layers scaled by 0.01 (actor) / 1.0 (critic) as CleanRL does).
  /// n_costs > 0 adds one cost critic per channel (PPO-Lagrangian, same hidden sizes, drawn from
  /// init_rng after the reward critic) and k dual variables log λ = log(cfg.lambda_init).
  PpoLearner(int obs_dim, int act_dim, const PpoConfig& cfg, core::Rng& init_rng, int n_costs = 0);
  ~PpoLearner();
  PpoLearner(PpoLearner&&) noexcept;
  PpoLearner& operator=(PpoLearner&&) noexcept;

  /// Batched policy step on raw observations obs [n, obs_dim] (normalized internally).
  /// rng != nullptr: samples u = μ + σ·ξ (ξ drawn sequentially from *rng, row-major), else
  /// u = μ (deterministic eval). Writes the env actions [n, act_dim] (u, or tanh(u) with
  /// Squash::kTanh); raw_actions [n, act_dim] = u (what the rollout stores), logp [n] = log π
  /// (including the tanh Jacobian) and value [n] if non-null. Without squashing raw_actions
  /// equals actions.
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
  /// Dual step once per update with cfg.dual: kLogAscent (rl.md §2.7 step 7) log λ_c ←
  /// clip(log λ_c + lambda_lr·(episode_cost_c − budget_c), ±log_lambda_max); kPid see DualRule.
  /// Both vectors have n_costs() entries, in the scaled units of Rollout::costs. Returns the
  /// new λ. Throws core::ConfigError on wrong sizes, core::RunError on a non-finite cost.
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
  void save(core::StateDict& sd) const;
  /// Inverse of save(); throws core::ConfigError if shapes do not match this learner.
  void load(const core::StateDict& sd);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Adam/AdamW step on flat arrays (exposed for tests): global-norm clipping of g at max_norm
/// (0 = off) happens before. Bias-corrected, eps outside the sqrt (optax convention).
/// step is the 1-based step count after increment. Returns the pre-clip global norm.
double adam_step(std::vector<float>& params, std::vector<float>& grad, std::vector<float>& m,
                 std::vector<float>& v, int64_t step, double lr, double b1, double b2, double eps,
                 double weight_decay, double max_norm);

}  // namespace pz::rl
