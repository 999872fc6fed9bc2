// Internal to the SAC learner: its state (SacLearner::Impl) and the row blocks of a minibatch,
// shared by sac.cpp (construction, acting, the update loop), sac_loss.cpp (losses and gradients)
// and sac_state.cpp (parameters, checkpoints).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "powerzoo/rl/nn/mlp.hpp"
#include "powerzoo/rl/sac/sac.hpp"

namespace pz::core {
class ThreadPool;
}

namespace pz::rl {

inline constexpr double kSacLogStdMin = -10.0, kSacLogStdMax = 2.0;  // Rejax log_std_range

/// One row block of a minibatch: network workspaces, gradients of its rows, partial sums.
struct SacBlock {
  detail::MlpWorkspace actor, q[2], qt[2];
  detail::MlpWorkspace qg;                     ///< a critic's activations at its argmin rows
  std::vector<float> grad_actor, grad_critic;  ///< [P_actor], [P_critic] (blocks b ≥ 1)
  std::vector<float> cx;                       ///< [rows, obs + act] critic inputs
  std::vector<int> min_rows[2];                ///< actor step: rows where Q_j is the minimum
  std::vector<float> dqa, dqa_j;  ///< [rows, A] ∂L/∂ã; [rows, A] through critic j, its rows
  std::vector<float> dq[2], dh;   ///< [rows] ∂L/∂Q_j, [rows, 2A] ∂L/∂actor head
  double loss = 0, q_sum = 0, log_std = 0;  ///< partial sums over the block's rows
};

struct SacLearner::Impl {
  std::string name = "sac";
  int obs_dim = 0, act_dim = 0;
  PpoConfig ppo;
  SacConfig sac;
  std::vector<double> loc, scale;  ///< [A] action box centre and half-width
  detail::Mlp actor, critic[2];    ///< critic j at its own offset of the flat critic array
  std::vector<float> actor_p, critic_p, target_p;  ///< flat parameters
  std::vector<float> actor_g, critic_g;            ///< flat gradients
  std::vector<float> actor_m, actor_v, critic_m, critic_v;
  std::vector<float> log_alpha = {0.0f}, alpha_g = {0.0f}, alpha_m = {0.0f}, alpha_v = {0.0f};
  int64_t actor_step = 0, critic_step = 0, alpha_step = 0;  ///< Adam step counts
  int64_t pushed = 0, grad_steps = 0;
  double log_std_mean = 0;  ///< mean clamped log σ of the last actor_loss batch (a metric)
  /// Set by gradient_step: the losses leave blocks b ≥ 1 unreduced (reduce_optimize adds them),
  /// and record their block count in loss_blocks.
  bool defer_reduce = false;
  int loss_blocks = 1;
  ObsNormalizer norm;
  ReplayBuffer replay;
  core::ThreadPool* pool = nullptr;

  std::vector<SacBlock> blocks, act_blocks;
  // Reused buffers (grow-only).
  std::vector<float> obs_n, next_n;                        // [B, obs] normalized batch observations
  std::vector<float> act_obs, act_h;                       // [n, obs], [n, 2A] for act()
  std::vector<float> push_done, push_next;                 // [N], [N, obs] for observe()
  std::vector<float> logp_buf, noise_buf, next_noise_buf;  // [B], [B, A], [B, A]
  std::vector<float> row_logp, row_target;                 // [B] per-row log π, critic target
  SacBatch batch;                                          // update()'s minibatch
  std::vector<int> batch_idx;                              // [B] its replay rows
  std::vector<double> norm_parts;                          // reduce_optimize's Σg² per piece
  std::vector<float> norm_tail;                            // and its last unvectorized entries

  double alpha() const;
  /// Runs fn(b) for the n blocks on the pool (or inline) and waits.
  void run(int n, const std::function<void(size_t)>& fn);
  void ensure_blocks(std::vector<SacBlock>& bl, int n, int rows) const;
  void normalize_rows(const float* x, int n, float* out) const;
  /// Squashed-Gaussian sample for one row: head h [2A] → env action a [A] from noise xi [A]
  /// (nullptr: the deterministic loc + scale·tanh(μ)); returns log π (0 if deterministic).
  double squash_row(const float* h, const float* xi, float* a) const;
  /// Σ over blocks b ≥ 1 of each block's gradient (`which` picks the array) added into g [P], in
  /// block order on fixed chunks of the parameters.
  void reduce(int nb, float* g, size_t P, std::vector<float> SacBlock::*which);
  /// Element-wise clamp to ±max_grad_norm (Rejax's optax.clip), then Adam; returns the pre-clip
  /// global norm.
  double optimize(std::vector<float>& p, std::vector<float>& g, std::vector<float>& m,
                  std::vector<float>& v, int64_t& step);
  /// reduce() then optimize() in one pass over the pool: each chunk of the parameters adds the
  /// blocks' gradients, takes its part of the squared norm, clamps and takes the Adam step, so
  /// the gradient is read once and the workers meet once instead of three times. The same bytes
  /// as reduce() + optimize() (sac_optimize.cpp says why).
  double reduce_optimize(int nb, std::vector<float> SacBlock::*which, std::vector<float>& p,
                         std::vector<float>& g, std::vector<float>& m, std::vector<float>& v,
                         int64_t& step);
};

}  // namespace pz::rl
