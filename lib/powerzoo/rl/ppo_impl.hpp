// Internal to the PPO learner: its state (PpoLearner::Impl) and per-minibatch loss statistics,
// shared by ppo.cpp (rollout, loss, update) and ppo_state.cpp (parameters, duals, checkpoints).
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "powerzoo/rl/lagrangian.hpp"
#include "powerzoo/rl/mlp.hpp"
#include "powerzoo/rl/ppo.hpp"

namespace pz::rl {

/// Per-minibatch loss terms (rl.md §1.6/§1.8), all means over the [T, B] samples.
struct LossStats {
  double total = 0, actor = 0, critic = 0, reg = 0, entropy = 0, clip_frac = 0, approx_kl = 0,
         r2 = 0, log_std_mean = 0, cost_critic = 0;
  void add(const LossStats& o) {
    total += o.total, actor += o.actor, critic += o.critic, reg += o.reg, entropy += o.entropy;
    cost_critic += o.cost_critic;
    clip_frac += o.clip_frac, approx_kl += o.approx_kl, r2 += o.r2, log_std_mean += o.log_std_mean;
  }
};

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
  detail::Mlp actor, critic;
  int64_t log_std_off = 0, n_params = 0;
  std::vector<float> params, grad, adam_m, adam_v;  // flat, layout of parameters()
  int64_t step = 0;
  ObsNormalizer norm;
  RewardNormalizer reward_norm;
  /// Named slices of the flat parameter vector: (name, offset, size), for save/load.
  std::vector<std::tuple<std::string, int64_t, int64_t>> slices;
  // PPO-Lagrangian: one cost critic per channel and the dual variables (rl.md §2.7).
  int n_costs = 0;
  std::vector<detail::Mlp> cost_critics;
  LagrangeDuals duals;
  std::vector<detail::MlpWorkspace> ws_cost;
  std::vector<float> cvals, ext_v, cost_norm, dvc;  // [k·T·B], [(1+k)·n_extra], [T·B], [k·T·B]

  // Reused buffers (grow-only; constant minibatch sizes never reallocate).
  detail::MlpWorkspace ws_actor, ws_critic, ws_extra, ws_act_actor, ws_act_critic;
  std::vector<float> obs_mb;     // [T·B, obs] normalized minibatch observations, row t·B + j
  std::vector<float> extra_obs;  // [B + n_trunc, obs] normalized next_obs / final_obs rows
  std::vector<int> trunc_row;    // [T·B] row of final_obs value in extra batch, or −1
  std::vector<float> values_mb, values_next, adv, targets, adv_n, dv;  // [T·B]
  std::vector<float> dmu;                                              // [T·B, act]
  std::vector<float> col_r, col_v, col_vn, col_a;                      // [T]
  std::vector<uint8_t> col_d, col_t;                                   // [T]
  std::vector<float> act_obs;                                          // [n, obs] for act()
  std::vector<double> dlog_std, inv_sigma;                             // [act]
  std::vector<int> perm, mb_cols;

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
};
}  // namespace pz::rl
