// Internal to the PPO learner: its state (PpoLearner::Impl), per-minibatch loss statistics and the
// row blocks of the batched work, shared by ppo.cpp (act, update), ppo_loss.cpp (minibatch
// preparation and loss) and ppo_state.cpp (parameters, duals, checkpoints).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "powerzoo/rl/nn/mlp.hpp"
#include "powerzoo/rl/nn/policy_math.hpp"
#include "powerzoo/rl/ppo/lagrangian.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"

namespace pz::core {
class ThreadPool;
}

namespace pz::rl {

/// Per-minibatch loss terms (PowerZooJax's seed PPO trainer (nnx-ppo)), all means over the [T, B]
/// samples.
struct LossStats {
  double total = 0, actor = 0, critic = 0, reg = 0, entropy = 0, clip_frac = 0, approx_kl = 0,
         r2 = 0, log_std_mean = 0, cost_critic = 0;
  void add(const LossStats& o) {
    total += o.total, actor += o.actor, critic += o.critic, reg += o.reg, entropy += o.entropy;
    cost_critic += o.cost_critic;
    clip_frac += o.clip_frac, approx_kl += o.approx_kl, r2 += o.r2, log_std_mean += o.log_std_mean;
  }
};

/// Partial sums of the per-sample loss terms over one row block (reduced in block order).
struct LossSums {
  double actor = 0, critic = 0, cost_critic = 0, clip = 0, kl = 0, g = 0, g_sq = 0;
  double entropy = 0;  ///< Σ_i H_i (Beta: the entropy depends on the state)
  void add(const LossSums& o) {
    actor += o.actor, critic += o.critic, cost_critic += o.cost_critic, clip += o.clip;
    kl += o.kl, g += o.g, g_sq += o.g_sq, entropy += o.entropy;
  }
};

/// One row block of a batch: its network workspaces, its gradient and its loss partial sums. A
/// batch of M rows is cut into n_blocks(M) contiguous blocks by a rule of M alone, each block runs
/// on some worker, and gradients and sums are reduced in block order: results do not depend on
/// the number of threads.
struct RowBlock {
  detail::MlpWorkspace actor, critic;
  std::vector<detail::MlpWorkspace> cost;  ///< one per cost critic network
  std::vector<float> dcost;                ///< [rows, k] ∂L/∂V_C of the shared cost critic
  std::vector<float> grad;                 ///< [n_params] gradient of the block's rows (b ≥ 1)
  std::vector<double> dlog_std;            ///< [act] ∂L/∂log σ of the block's rows
  std::vector<double> beta_partials;  ///< [4·act] Beta: ∂ℓ/∂h, ∂H/∂h of the current row
  LossSums sums;
  std::vector<float> col_r, col_v, col_vn, col_a;  ///< [T] one GAE column of the block's columns
  std::vector<uint8_t> col_d, col_t;               ///< [T]
};

/// Blocks of a batch of `rows` rows: one per `min_rows` rows, at most kMaxBlocks.
inline constexpr int kMaxBlocks = 4;
inline int n_blocks(size_t rows, size_t min_rows) {
  const size_t n = rows / min_rows;
  return static_cast<int>(n < 1 ? 1 : (n > kMaxBlocks ? kMaxBlocks : n));
}
/// First row of block b of n over `rows` rows (block b is [block_row(b), block_row(b + 1))).
inline size_t block_row(size_t rows, int n, int b) { return rows * b / n; }

/// What the learner needs to collect its own rollouts (Learner interface, ppo_learner.cpp).
struct PpoCollect {
  std::string name = "ppo";
  int horizon = 0;
  std::vector<int> channels;          ///< constraint → StepView::costs column
  std::vector<std::string> names;     ///< constraint names (metrics)
  std::vector<double> scale, budget;  ///< cost_scale, thresholds / cost_scale
  Rollout ro;                         ///< [T, N] sized by set_context
  int t = 0;                          ///< next row of ro
  std::vector<double> ep_cost;        ///< Σ over ended episodes of the scaled episode cost
  int episodes = 0;                   ///< episodes ended in the rollout
};

struct PpoLearner::Impl {
  PpoCollect collect;
  int obs_dim = 0, act_dim = 0;
  PpoConfig cfg;
  bool beta = false;  ///< Policy::kBeta: the actor's head is [α logits (A), β logits (A)]
  int head = 0;       ///< actor outputs per row: A (Gaussian mean) or 2A (Beta)
  std::vector<float> act_low, act_high;  ///< [A] action box of the Beta policy ([0, 1] default)
  /// [A] centre and half-width of the action box for cfg.bounded_mean (empty until the box is set)
  std::vector<double> mean_mid, mean_half;
  /// cfg.bounded_mean: head outputs h [n, A] → μ = mid + half·tanh(h), in place.
  void bound_means(float* h, size_t n) const;
  detail::Mlp actor, critic;
  int64_t log_std_off = 0, n_params = 0;            // log σ: A parameters (Gaussian), none (Beta)
  std::vector<float> params, grad, adam_m, adam_v;  // flat, layout of parameters()
  int64_t step = 0;
  ObsNormalizer norm;
  RewardNormalizer reward_norm;
  /// Named slices of the flat parameter vector: (name, offset, size), for save/load.
  std::vector<std::tuple<std::string, int64_t, int64_t>> slices;
  // PPO-Lagrangian: one cost critic per channel and the dual variables (PPO-Lagrangian, Ray, Achiam
  // & Amodei 2019 "Benchmarking Safe Exploration in Deep RL").
  int n_costs = 0;
  bool shared_cost = false;  ///< CostCritic::kShared: cost_critics holds one net of k outputs
  std::vector<detail::Mlp> cost_critics;
  LagrangeDuals duals;
  std::vector<float> cvals, ext_v, cost_norm, dvc;  // [k·T·B], [(1+k)·n_extra], [T·B], [k·T·B]

  core::ThreadPool* pool = nullptr;  ///< workers of the row blocks (null: the calling thread)
  size_t max_block_rows = 0;         ///< set_max_block_rows (0: at most kMaxBlocks blocks)
  std::vector<RowBlock> blocks;      ///< row blocks of the minibatch (prepare, loss)
  std::vector<RowBlock> act_blocks;  ///< row blocks of act()

  // Reused buffers (grow-only; constant minibatch sizes never reallocate).
  std::vector<float> obs_mb;     // [T·B, obs] normalized minibatch observations, row t·B + j
  std::vector<float> extra_obs;  // [B + n_trunc, obs] normalized next_obs / final_obs rows
  std::vector<int> trunc_row;    // [T·B] row of final_obs value in extra batch, or −1
  std::vector<float> values_mb, values_next, adv, targets, adv_n, dv;  // [T·B]
  std::vector<float> values_old;  // [T·B] rollout-time values (clip_value_loss)
  // AdvantageTiming::kRollout: advantages and targets of the whole rollout, (1 + k) blocks of
  // [T, N], computed before the first epoch.
  std::vector<float> adv_all, targets_all;
  std::vector<float> dmu;                     // [T·B, head]
  std::vector<float> act_mb;                  // [T·B, act] actions
  std::vector<float> act_obs, act_mu, act_v;  // [n, obs], [n, head], [n] for act()
  std::vector<double> inv_sigma, act_sigma;   // [act]
  std::vector<int> perm, mb_cols;
  detail::MlpWorkspace ws_extra;  // critics on the bootstrap rows (extra_obs)

  /// Row blocks of a minibatch of `rows` rows: n_blocks(rows, min_rows), or more when
  /// max_block_rows caps a block's size. A rule of the rows alone (never of the pool).
  int minibatch_blocks(size_t rows, size_t min_rows) const {
    const int n = n_blocks(rows, min_rows);
    if (max_block_rows == 0) return n;
    return std::max(n, static_cast<int>((rows + max_block_rows - 1) / max_block_rows));
  }
  /// Runs fn(b) for the n blocks on the pool (or inline) and waits.
  void run(int n, const std::function<void(size_t)>& fn);
  /// `blocks` sized for n blocks (workspaces for the cost critics, gradients of n_params).
  void ensure_blocks(std::vector<RowBlock>& bl, int n) const;
  /// Actor head [n, head] into act_mu and, if want_value, critic value [n] into act_v, on row
  /// blocks of obs [n, obs] (normalized).
  void forward_act(const float* obs, int n, bool want_value);
  /// Beta policy on the head outputs in act_mu (act()'s Beta branch): u sampled from *rng or the
  /// mode, raw u, env action low + u·(high − low), log π in unit space.
  void act_beta(int n, core::Rng* rng, float* actions, float* logp, float* raw_actions) const;
  void check_rollout(const Rollout& r) const;
  void check_cols(const Rollout& r, const int* cols, int B) const;
  void normalize_rows(const float* x, int n, float* out) const {
    if (cfg.normalize_obs) {
      norm.normalize(x, n, out);
    } else {
      std::copy(x, x + static_cast<size_t>(n) * obs_dim, out);
    }
  }
  /// Gathers and normalizes the minibatch obs, runs the critic forward (ws_critic) and, if
  /// adv_in == nullptr, computes GAE advantages/targets from it; else copies adv_in/targets_in.
  void prepare(const Rollout& r, const int* cols, int B, const float* adv_in,
               const float* targets_in);
  /// Loss on the prepared minibatch (advantages/targets held fixed); gradient into grad if
  /// non-null.
  double loss(const Rollout& r, const int* cols, int B, float* grad, LossStats* st);
  /// Per-sample loss terms of rows [r0, r1) of the prepared minibatch (actor forward included):
  /// sums into blk.sums, ∂L/∂μ into dmu, ∂L/∂V into dv, dvc, ∂L/∂log σ into blk.dlog_std.
  void loss_rows(const Rollout& r, const int* cols, int B, size_t r0, size_t r1, bool want_grad,
                 RowBlock& blk);
  /// The Beta policy's per-sample terms for loss_rows: returns log π of the stored u [A] at the
  /// head outputs h [A α logits, A β logits] and adds the entropy H to *entropy; if partials is
  /// non-null, writes ∂ℓ/∂h [2A] then ∂H/∂h [2A] into it.
  double beta_row_terms(const float* h, const float* u, double* partials, double* entropy) const;
  /// Gathers the bootstrap rows of the minibatch into extra_obs (next_obs per column, then
  /// final_obs at truncated steps with kBootstrap; their rows in trunc_row); returns their count.
  int gather_bootstrap(const Rollout& r, const int* cols, int B);
  /// Every critic's values on the n_extra bootstrap rows into ext_v, in one forward call per
  /// critic (a GEMM's rows round differently when the rows are cut into other blocks).
  void bootstrap_values(int n_extra);
  // prepare() and loss() in phases, so that several learners' tasks can share one pool batch
  // (PpoLearner::update_policies): a serial setup that returns the phase's task count, the
  // tasks (any worker, any order), and loss's serial finish. The phase's arguments live in ph.
  struct Phase {
    const Rollout* r = nullptr;
    const int* cols = nullptr;
    int B = 0;
    int nb = 0, first = 0, n_extra = 0, nbc = 0;  // row blocks, bootstrap task, its rows, GAE
    float* g = nullptr;                           // gradient of loss (null: none)
  } ph;
  int prepare_setup(const Rollout& r, const int* cols, int B, bool with_gae);
  void prepare_task(size_t task);
  /// GAE advantages/targets of the prepared minibatch on blocks of its columns (prepare's tail).
  int gae_setup();
  /// AdvantageTiming::kRollout: GAE of every column of r from the current critic into adv_all,
  /// targets_all (before the first epoch, so from the critic that collected r).
  void rollout_gae(const Rollout& r);
  /// AdvantageTiming::kRollout: the prepared minibatch's rows of adv_all, targets_all into adv,
  /// targets.
  void gather_rollout_gae();
  void gae_task(size_t b);
  int loss_setup(const Rollout& r, const int* cols, int B, float* g);
  void loss_task(size_t b);
  double loss_finish(LossStats* st);
};
}  // namespace pz::rl
