// PPO minibatch work on row blocks: preparation (normalized observations, critic values, GAE) and
// the loss with its gradient (PowerZooJax's seed PPO trainer (nnx-ppo); PPO: Schulman et al. 2017,
// arXiv:1707.06347), each block on a pool worker, reduced in block order.
#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/rl/nn/beta.hpp"
#include "powerzoo/rl/nn/tensor_impl.hpp"
#include "powerzoo/rl/ppo/ppo_impl.hpp"

namespace pz::rl {

namespace {

/// Minibatch rows per block: enough that each block's products stay efficient.
constexpr size_t kMinBlockRows = 96;
/// Env columns per GAE block (a column is T steps of a scalar recursion per value head).
constexpr size_t kMinGaeColumns = 64;
/// Parameters from which the gradient reduction is split over the pool (a hand-off to a spinning
/// worker costs ~1 µs, the reduction of 4 blocks ~1 µs per 4k parameters).
constexpr size_t kMinParallelReduce = 4096;

/// The actor's activations in the loss: written by loss_rows' forward and read by the backward
/// in the same block task, so one workspace per thread serves every block and stays in the core's
/// cache, where one per block (60 on GenCos IPPO) was cold at every pass.
detail::MlpWorkspace& actor_scratch() {
  thread_local detail::MlpWorkspace ws;
  return ws;
}

template <class T>
void grow(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

void PpoLearner::Impl::run(int n, const std::function<void(size_t)>& fn) {
  if (pool != nullptr && n > 1) {
    pool->run_blocks(static_cast<size_t>(n), fn);
  } else {
    for (int b = 0; b < n; ++b) fn(static_cast<size_t>(b));
  }
}

void PpoLearner::Impl::ensure_blocks(std::vector<RowBlock>& bl, int n) const {
  if (static_cast<int>(bl.size()) < n) bl.resize(n);
  for (RowBlock& b : bl) {
    b.cost.resize(cost_critics.size());
    b.grad.resize(n_params);
    b.dlog_std.assign(act_dim, 0.0);
    b.beta_partials.assign(beta ? 4 * act_dim : 0, 0.0);
  }
}

void PpoLearner::Impl::check_rollout(const Rollout& r) const {
  if (r.obs_dim != obs_dim || r.act_dim != act_dim) {
    throw core::ConfigError("PPO rollout has obs_dim " + std::to_string(r.obs_dim) + ", act_dim " +
                            std::to_string(r.act_dim) + "; learner expects " +
                            std::to_string(obs_dim) + ", " + std::to_string(act_dim));
  }
  if (r.T <= 0 || r.N <= 0) throw core::ConfigError("PPO rollout must have T > 0 and N > 0");
  const size_t tn = static_cast<size_t>(r.T) * r.N;
  const bool ok =
      r.obs.size() == tn * obs_dim && r.actions.size() == tn * act_dim && r.logp.size() == tn &&
      r.rewards.size() == tn && r.dones.size() == tn && r.truncated.size() == tn &&
      r.next_obs.size() == static_cast<size_t>(r.N) * obs_dim &&
      (cfg.truncation != Truncation::kBootstrap || r.final_obs.size() == tn * obs_dim) &&
      (!cfg.clip_value_loss || r.values.size() == tn);
  if (!ok) throw core::ConfigError("PPO rollout arrays do not match T, N, obs_dim, act_dim");
  if (n_costs > 0 && (r.n_costs != n_costs || r.costs.size() != tn * n_costs)) {
    throw core::ConfigError("PPO-Lagrangian rollout has " + std::to_string(r.n_costs) +
                            " cost channels; learner expects " + std::to_string(n_costs));
  }
}

void PpoLearner::Impl::check_cols(const Rollout& r, const int* cols, int B) const {
  if (B <= 0) throw core::ConfigError("PPO minibatch has no env columns");
  for (int j = 0; j < B; ++j) {
    if (cols[j] < 0 || cols[j] >= r.N) {
      throw core::ConfigError("PPO minibatch env column " + std::to_string(cols[j]) +
                              " out of range [0, " + std::to_string(r.N) + ")");
    }
  }
}

// Row i = t·B + j of the minibatch is env column cols[j] at step t. Each block gathers its rows,
// normalizes them and runs the critics forward (activations kept for the loss's backward). The
// critics' bootstrap values (GAE) run beside the blocks as one more task, task 0 (the largest).
void PpoLearner::Impl::prepare(const Rollout& r, const int* cols, int B, const float* adv_in,
                               const float* targets_in) {
  run(prepare_setup(r, cols, B, adv_in == nullptr), [&](size_t t) { prepare_task(t); });
  if (adv_in != nullptr) {
    const size_t nblk = (1 + static_cast<size_t>(n_costs)) * r.T * B;
    std::copy(adv_in, adv_in + nblk, adv.begin());
    std::copy(targets_in, targets_in + nblk, targets.begin());
    return;
  }
  run(gae_setup(), [&](size_t b) { gae_task(b); });
}

int PpoLearner::Impl::prepare_setup(const Rollout& r, const int* cols, int B, bool with_gae) {
  const size_t tb = static_cast<size_t>(r.T) * B, nblk = (1 + static_cast<size_t>(n_costs)) * tb;
  grow(obs_mb, tb * obs_dim);
  grow(act_mb, tb * act_dim);
  grow(values_mb, tb);
  if (cfg.clip_value_loss) grow(values_old, tb);
  grow(cvals, tb * n_costs);
  grow(adv, nblk);
  grow(targets, nblk);
  ph = Phase{&r, cols, B};
  ph.n_extra = with_gae ? gather_bootstrap(r, cols, B) : 0;
  ph.first = ph.n_extra > 0 ? 1 : 0;
  ph.nb = minibatch_blocks(tb, kMinBlockRows);
  ensure_blocks(blocks, ph.nb);
  return ph.nb + ph.first;
}

void PpoLearner::Impl::prepare_task(size_t task) {
  if (task < static_cast<size_t>(ph.first)) {
    bootstrap_values(ph.n_extra);
    return;
  }
  const Rollout& r = *ph.r;
  const int* cols = ph.cols;
  const int N = r.N, K = n_costs, A = act_dim, B = ph.B, nb = ph.nb;
  const size_t tb = static_cast<size_t>(r.T) * B, od = obs_dim, b = task - ph.first;
  const size_t r0 = block_row(tb, nb, b), r1 = block_row(tb, nb, b + 1), n = r1 - r0;
  for (size_t i = r0; i < r1; ++i) {
    const size_t src = (i / B) * N + cols[i % B];
    detail::copy_row(&r.obs[src * od], od, &obs_mb[i * od]);
    detail::copy_row(&r.actions[src * A], A, &act_mb[i * A]);
    if (cfg.clip_value_loss) values_old[i] = r.values[src];
  }
  float* x = &obs_mb[r0 * od];
  normalize_rows(x, static_cast<int>(n), x);
  RowBlock& blk = blocks[b];
  const float* v = critic.forward(params.data(), x, static_cast<int>(n), blk.critic);
  std::copy_n(v, n, &values_mb[r0]);
  if (shared_cost) {  // outputs [n, K] → the channel-major cvals [K, T·B]
    const float* vc = cost_critics[0].forward(params.data(), x, static_cast<int>(n), blk.cost[0]);
    for (size_t i = 0; i < n; ++i)
      for (int c = 0; c < K; ++c) cvals[c * tb + r0 + i] = vc[i * K + c];
    return;
  }
  for (int c = 0; c < K; ++c) {
    const float* vc = cost_critics[c].forward(params.data(), x, static_cast<int>(n), blk.cost[c]);
    std::copy_n(vc, n, &cvals[c * tb + r0]);
  }
}

int PpoLearner::Impl::gather_bootstrap(const Rollout& r, const int* cols, int B) {
  const int T = r.T, N = r.N;
  const size_t tb = static_cast<size_t>(T) * B;
  // Bootstrap values: V(next_obs) per column, and V(final_obs_t) at truncated steps (kBootstrap).
  grow(extra_obs, (tb + B) * obs_dim);
  grow(trunc_row, tb);
  int n_extra = 0;
  for (int j = 0; j < B; ++j) {
    std::copy_n(&r.next_obs[static_cast<size_t>(cols[j]) * obs_dim], obs_dim,
                &extra_obs[static_cast<size_t>(n_extra++) * obs_dim]);
  }
  const bool boot = cfg.truncation == Truncation::kBootstrap;
  for (int t = 0; t < T; ++t) {
    for (int j = 0; j < B; ++j) {
      const size_t src = static_cast<size_t>(t) * N + cols[j];
      int& row = trunc_row[static_cast<size_t>(t) * B + j];
      row = -1;
      if (boot && r.truncated[src]) {
        row = n_extra;
        std::copy_n(&r.final_obs[src * obs_dim], obs_dim,
                    &extra_obs[static_cast<size_t>(n_extra++) * obs_dim]);
      }
    }
  }
  return n_extra;
}

void PpoLearner::Impl::bootstrap_values(int n_extra) {
  const int K = n_costs;
  normalize_rows(extra_obs.data(), n_extra, extra_obs.data());
  // Block 0 of ext_v the reward critic, block 1 + c cost c.
  grow(ext_v, static_cast<size_t>(n_extra) * (1 + K));
  const float* ve0 = critic.forward(params.data(), extra_obs.data(), n_extra, ws_extra);
  std::copy(ve0, ve0 + n_extra, ext_v.begin());
  if (shared_cost && K > 0) {
    const float* vc = cost_critics[0].forward(params.data(), extra_obs.data(), n_extra, ws_extra);
    for (int i = 0; i < n_extra; ++i)
      for (int c = 0; c < K; ++c)
        ext_v[static_cast<size_t>(c + 1) * n_extra + i] = vc[static_cast<size_t>(i) * K + c];
  }
  for (int c = 0; c < K && !shared_cost; ++c) {
    const float* vc = cost_critics[c].forward(params.data(), extra_obs.data(), n_extra, ws_extra);
    std::copy(vc, vc + n_extra, ext_v.begin() + static_cast<size_t>(c + 1) * n_extra);
  }
}

void PpoLearner::Impl::rollout_gae(const Rollout& r) {
  std::vector<int> all(r.N);
  for (int j = 0; j < r.N; ++j) all[j] = j;
  prepare(r, all.data(), r.N, nullptr, nullptr);
  // With B = N and the identity columns, row t·N + j of each block is the rollout's own layout.
  const size_t n = (1 + static_cast<size_t>(n_costs)) * r.T * r.N;
  adv_all.assign(adv.begin(), adv.begin() + n);
  targets_all.assign(targets.begin(), targets.begin() + n);
}

void PpoLearner::Impl::gather_rollout_gae() {
  const Rollout& r = *ph.r;
  const int B = ph.B;
  const size_t tb = static_cast<size_t>(r.T) * B, tn = static_cast<size_t>(r.T) * r.N;
  for (int c = 0; c <= n_costs; ++c) {
    for (int t = 0; t < r.T; ++t) {
      for (int j = 0; j < B; ++j) {
        const size_t src = c * tn + static_cast<size_t>(t) * r.N + ph.cols[j];
        const size_t dst = c * tb + static_cast<size_t>(t) * B + j;
        adv[dst] = adv_all[src];
        targets[dst] = targets_all[src];
      }
    }
  }
}

// GAE on blocks of columns: each column is its own recursion, so neither the blocks nor the
// threads that run them change a bit.
int PpoLearner::Impl::gae_setup() {
  ph.nbc = n_blocks(static_cast<size_t>(ph.B), kMinGaeColumns);
  ensure_blocks(blocks, ph.nbc);
  return ph.nbc;
}

void PpoLearner::Impl::gae_task(size_t b) {
  const Rollout& r = *ph.r;
  const int* cols = ph.cols;
  const int T = r.T, N = r.N, K = n_costs, B = ph.B, n_extra = ph.n_extra;
  const size_t tb = static_cast<size_t>(T) * B;
  const float* ve = ext_v.data();
  RowBlock& blk = blocks[b];
  grow(blk.col_r, T), grow(blk.col_v, T), grow(blk.col_vn, T), grow(blk.col_a, T);
  grow(blk.col_d, T), grow(blk.col_t, T);
  // GAE along env column j for one value head: per-step rewards reward_of(src), values v [T·B]
  // (row t·B + j), bootstrap values v_extra [n_extra]; advantages and targets at off + t·B + j.
  auto column = [&](int j, auto reward_of, const float* v, const float* v_extra, double gamma,
                    size_t off) {
    for (int t = 0; t < T; ++t) {
      const size_t src = static_cast<size_t>(t) * N + cols[j];
      const size_t i = static_cast<size_t>(t) * B + j;
      blk.col_r[t] = reward_of(src);
      blk.col_v[t] = v[i];
      blk.col_d[t] = r.dones[src];
      blk.col_t[t] = r.truncated[src];
      if (trunc_row[i] >= 0) {
        blk.col_vn[t] = v_extra[trunc_row[i]];
      } else if (t + 1 < T) {
        blk.col_vn[t] = v[i + B];
      } else {
        blk.col_vn[t] = v_extra[j];
      }
    }
    gae(T, blk.col_r.data(), blk.col_v.data(), blk.col_vn.data(), blk.col_d.data(),
        blk.col_t.data(), gamma, cfg.gae_lambda, cfg.truncation, blk.col_a.data());
    for (int t = 0; t < T; ++t) {
      const size_t i = off + static_cast<size_t>(t) * B + j;
      adv[i] = blk.col_a[t];
      targets[i] = static_cast<float>(double(blk.col_v[t]) + double(blk.col_a[t]));
    }
  };
  const int j0 = static_cast<int>(block_row(B, ph.nbc, b));
  const int j1 = static_cast<int>(block_row(B, ph.nbc, b + 1));
  for (int j = j0; j < j1; ++j) {
    column(
        j, [&](size_t src) { return r.rewards[src]; }, values_mb.data(), ve, cfg.gamma, 0);
    // Cost advantages by the same GAE (cost_gamma, same gae_lambda, same done/truncation rules).
    for (int c = 0; c < K; ++c) {
      column(
          j, [&](size_t src) { return r.costs[src * K + c]; }, &cvals[c * tb],
          ve + static_cast<size_t>(c + 1) * n_extra, cfg.cost_gamma, (c + 1) * tb);
    }
  }
}

// Loss of GAE, Schulman et al. 2015, arXiv:1506.02438, with PowerZooJax's seed PPO trainer
// (nnx-ppo)'s done rules with a state-independent Gaussian policy. Per sample i (M = T·B samples):
//   z_id = (a_id − μ_id)/σ_d, ℓ_i = Σ_d[−½z² − log σ_d − ½log2π], ρ_i = exp(ℓ_i − ℓ_old_i)
//   L_actor = −mean_i min(ρ_i Â_i, clip(ρ_i, 1±ε) Â_i), L_critic = ½ mean_i (V_i − G_i)²
//   H = Σ_d[log σ_d + ½log(2πe)], L_reg = −c_H·H, total = L_actor + w_c·L_critic + L_reg.
// Gradients: ∂L/∂ℓ_i = −ρ_i Â_i/M where the unclipped term is the minimum (else 0);
//   ∂ℓ_i/∂μ_id = z_id/σ_d, ∂ℓ_i/∂log σ_d = z_id² − 1, ∂L_reg/∂log σ_d = −c_H,
//   ∂L/∂V_i = w_c (V_i − G_i)/M. The Beta policy replaces ℓ_i and H by beta_row_terms (H per
//   sample).
void PpoLearner::Impl::loss_rows(const Rollout& r, const int* cols, int B, size_t r0, size_t r1,
                                 bool want_grad, RowBlock& blk) {
  const int N = r.N, A = act_dim, K = n_costs;
  const size_t M = static_cast<size_t>(r.T) * B, n = r1 - r0;
  const double inv_m = 1.0 / static_cast<double>(M);
  const float* mu =
      actor.forward(params.data(), &obs_mb[r0 * obs_dim], static_cast<int>(n), actor_scratch());
  // bounded_mean: μ = mid + half·tanh(h) replaces the head in the scratch (the backward does not
  // read the output layer's values), and ∂μ/∂h = half·(1 − tanh²) = (half² − (μ − mid)²)/half.
  const bool bounded = cfg.bounded_mean && !beta;
  if (bounded) bound_means(actor_scratch().act.back().data(), n);
  const float* log_std = params.data() + log_std_off;
  const double eps = cfg.clip_range;
  const bool squash = cfg.squash == Squash::kTanh;
  LossSums s;
  std::fill(blk.dlog_std.begin(), blk.dlog_std.end(), 0.0);
  for (size_t i = r0; i < r1; ++i) {
    const size_t src = (i / B) * N + cols[i % B];
    const float* a = &act_mb[i * A];
    const float* m = mu + (i - r0) * head;
    double logp = 0.0;
    if (beta) {
      logp = beta_row_terms(m, a, want_grad ? blk.beta_partials.data() : nullptr, &s.entropy);
    } else {
      for (int d = 0; d < A; ++d) {
        const double z = (double(a[d]) - double(m[d])) * inv_sigma[d];
        logp += -0.5 * z * z - double(log_std[d]) - kHalfLog2Pi;
      }
    }
    if (squash && !beta) {  // tanh Jacobian of the stored u: constant in the parameters
      for (int d = 0; d < A; ++d) logp -= log1m_tanh2(double(a[d]));
    }
    const double log_ratio = logp - double(r.logp[src]);
    const double rho = std::exp(log_ratio);
    const double adv_i = adv_n[i];
    const double rho_c = std::clamp(rho, 1.0 - eps, 1.0 + eps);
    const double s1 = rho * adv_i, s2 = rho_c * adv_i;
    s.actor += std::min(s1, s2);
    if (std::abs(rho - 1.0) > eps) s.clip += 1.0;
    s.kl += (rho - 1.0) - log_ratio;
    const double err = double(values_mb[i]) - double(targets[i]);
    double err_sq = err * err, derr = err;  // the critic's squared error and ∂(½·err²)/∂V
    if (cfg.clip_value_loss) {
      // Rejax: ½·max(err², err_c²) with V_c = V_old + clip(V − V_old, ±ε); the clipped branch's
      // gradient passes only while V − V_old is inside the clip.
      const double v_old = values_old[i], dvo = double(values_mb[i]) - v_old;
      const double err_c = v_old + std::clamp(dvo, -eps, eps) - double(targets[i]);
      if (err_c * err_c > err_sq) {
        err_sq = err_c * err_c;
        derr = std::abs(dvo) < eps ? err_c : 0.0;
      }
    }
    s.critic += err_sq;
    s.g += targets[i];
    s.g_sq += double(targets[i]) * double(targets[i]);
    if (want_grad && beta) {
      const double dl = (s1 <= s2) ? -rho * adv_i * inv_m : 0.0;  // ∂L/∂ℓ_i
      // ∂L/∂h = dl·∂ℓ/∂h − c_H/M·∂H/∂h, from the partials beta_row_terms kept for this sample.
      const double wh = cfg.entropy_coef * inv_m;
      const double* p = blk.beta_partials.data();
      for (int k = 0; k < 2 * A; ++k)
        dmu[i * head + k] = static_cast<float>(dl * p[k] - wh * p[2 * A + k]);
      dv[i] = static_cast<float>(cfg.critic_loss_weight * derr * inv_m);
    } else if (want_grad) {
      const double dl = (s1 <= s2) ? -rho * adv_i * inv_m : 0.0;  // ∂L/∂ℓ_i
      for (int d = 0; d < A; ++d) {
        const double z = (double(a[d]) - double(m[d])) * inv_sigma[d];
        double dmu_dh = 1.0;
        if (bounded) {
          const double t = (double(m[d]) - mean_mid[d]) / mean_half[d];
          dmu_dh = mean_half[d] * (1.0 - t * t);
        }
        dmu[i * A + d] = static_cast<float>(dl * z * inv_sigma[d] * dmu_dh);
        blk.dlog_std[d] += dl * (z * z - 1.0);
      }
      dv[i] = static_cast<float>(cfg.critic_loss_weight * derr * inv_m);
    }
  }
  // Cost critics: ½·MSE each against their own targets, summed over channels.
  for (int c = 0; c < K; ++c) {
    const float* vc = &cvals[c * M];
    const float* gc = &targets[(c + 1) * M];
    for (size_t i = r0; i < r1; ++i) {
      const double err = double(vc[i]) - double(gc[i]);
      s.cost_critic += err * err;
      if (want_grad) dvc[c * M + i] = static_cast<float>(cfg.critic_loss_weight * err * inv_m);
    }
  }
  blk.sums = s;
}

// Beta policy (PowerZooJax's BoundedBetaPolicy): α_d = c(h_d), β_d = c(h_{A+d}) with c the clamped
// 1 + softplus; ℓ = Σ_d log Beta(u_d; α_d, β_d), H = Σ_d H(α_d, β_d); chain rule through c' (0
// where clamped).
double PpoLearner::Impl::beta_row_terms(const float* h, const float* u, double* partials,
                                        double* entropy) const {
  const int A = act_dim;
  const bool grad = partials != nullptr;
  double logp = 0.0;
  for (int d = 0; d < A; ++d) {
    double dca = 0.0, dcb = 0.0;
    const double a = beta_concentration(h[d], &dca), b = beta_concentration(h[A + d], &dcb);
    const BetaTerms t = beta_terms(a, b, double(u[d]), grad);
    logp += t.log_prob;
    *entropy += t.entropy;
    if (grad) {
      partials[d] = t.dlp_da * dca, partials[A + d] = t.dlp_db * dcb;
      partials[2 * A + d] = t.dh_da * dca, partials[3 * A + d] = t.dh_db * dcb;
    }
  }
  return logp;
}

double PpoLearner::Impl::loss(const Rollout& r, const int* cols, int B, float* g, LossStats* st) {
  run(loss_setup(r, cols, B, g), [&](size_t b) { loss_task(b); });
  return loss_finish(st);
}

int PpoLearner::Impl::loss_setup(const Rollout& r, const int* cols, int B, float* g) {
  const int A = act_dim, K = n_costs;
  const size_t M = static_cast<size_t>(r.T) * B;
  const double inv_m = 1.0 / static_cast<double>(M);
  ph = Phase{&r, cols, B};
  ph.g = g;

  // Advantage normalization (population std over the minibatch), per block. PPO-Lagrangian
  // (PPO-Lagrangian, Ray, Achiam & Amodei 2019, as PowerZooJax's cmdp.py, per minibatch instead of
  // per batch): Â = Â_R − Σ_c λ_c Â_C,c, each block normalized on its own, the combination not
  // re-normalized.
  auto normalize = [&](const float* a, float* out) {
    if (!cfg.normalize_advantages) {
      std::copy(a, a + M, out);
      return;
    }
    double mean = 0.0;
    for (size_t i = 0; i < M; ++i) mean += a[i];
    mean *= inv_m;
    double var = 0.0;
    for (size_t i = 0; i < M; ++i) var += (a[i] - mean) * (a[i] - mean);
    const double sd = std::sqrt(var * inv_m);
    for (size_t i = 0; i < M; ++i) out[i] = static_cast<float>((a[i] - mean) / (sd + 1e-8));
  };
  grow(adv_n, M);
  normalize(adv.data(), adv_n.data());
  if (K > 0) {
    grow(cost_norm, M);
    for (int c = 0; c < K; ++c) {
      normalize(adv.data() + (c + 1) * M, cost_norm.data());
      const double lam = std::exp(duals.log_lambdas()[c]);
      for (size_t i = 0; i < M; ++i) {
        adv_n[i] = static_cast<float>(double(adv_n[i]) - lam * double(cost_norm[i]));
      }
    }
  }

  const float* log_std = params.data() + log_std_off;
  inv_sigma.resize(A);
  for (int d = 0; d < A && !beta; ++d) inv_sigma[d] = std::exp(-double(log_std[d]));
  grow(dmu, M * head);
  grow(dv, M);
  if (K > 0) grow(dvc, M * K);
  ph.nb = minibatch_blocks(M, kMinBlockRows);
  ensure_blocks(blocks, ph.nb);
  return ph.nb;
}

// Blocks as in prepare(): each runs the actor forward, its loss terms and the backward of every
// network on its rows; block 0 writes g itself, block b ≥ 1 its own gradient.
void PpoLearner::Impl::loss_task(size_t b) {
  const int K = n_costs, B = ph.B, nb = ph.nb;
  const size_t M = static_cast<size_t>(ph.r->T) * B;
  float* g = ph.g;
  const size_t r0 = block_row(M, nb, b), r1 = block_row(M, nb, b + 1);
  const int n = static_cast<int>(r1 - r0);
  RowBlock& blk = blocks[b];
  loss_rows(*ph.r, ph.cols, B, r0, r1, g != nullptr, blk);
  if (g == nullptr) return;
  float* gb = b == 0 ? g : blk.grad.data();
  const float* x = &obs_mb[r0 * obs_dim];
  actor.backward(params.data(), x, n, &dmu[r0 * head], actor_scratch(), gb);
  critic.backward(params.data(), x, n, &dv[r0], blk.critic, gb);
  if (shared_cost) {  // ∂L/∂V_C [n, K] from the channel-major dvc
    blk.dcost.resize(static_cast<size_t>(n) * K);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < K; ++c) blk.dcost[static_cast<size_t>(i) * K + c] = dvc[c * M + r0 + i];
    cost_critics[0].backward(params.data(), x, n, blk.dcost.data(), blk.cost[0], gb);
    return;
  }
  for (int c = 0; c < K; ++c)
    cost_critics[c].backward(params.data(), x, n, &dvc[c * M + r0], blk.cost[c], gb);
}

double PpoLearner::Impl::loss_finish(LossStats* st) {
  const int A = act_dim, nb = ph.nb;
  const double inv_m = 1.0 / (static_cast<double>(ph.r->T) * ph.B);
  float* g = ph.g;
  const float* log_std = params.data() + log_std_off;
  double entropy = 0.0, log_std_sum = 0.0;
  for (int d = 0; d < A && !beta; ++d) {
    entropy += double(log_std[d]) + kHalfLog2PiE;
    log_std_sum += log_std[d];
  }
  LossSums sums;
  std::vector<double> dlog_std(A, 0.0);
  for (int b = 0; b < nb; ++b) {
    sums.add(blocks[b].sums);
    for (int d = 0; d < A; ++d) dlog_std[d] += blocks[b].dlog_std[d];
  }
  if (g != nullptr && nb > 1) {
    // g += Σ_{b ≥ 1} grad_b in block order, over fixed chunks of the parameters (on the pool only
    // when it is large enough to repay a dispatch).
    const size_t P = static_cast<size_t>(n_params);
    const int nc = P >= kMinParallelReduce ? nb : 1;
    run(nc, [&](size_t c) {
      const size_t p0 = block_row(P, nc, c), p1 = block_row(P, nc, c + 1);
      auto gv = detail::vec(g + p0, p1 - p0);
      for (int b = 1; b < nb; ++b) gv += detail::vec(blocks[b].grad.data() + p0, p1 - p0);
    });
  }
  if (g != nullptr && !beta) {
    for (int d = 0; d < A; ++d)
      g[log_std_off + d] = static_cast<float>(dlog_std[d] - cfg.entropy_coef);
  }
  if (beta) entropy = sums.entropy * inv_m;
  const double l_actor = -sums.actor * inv_m;
  const double l_critic = 0.5 * sums.critic * inv_m;
  const double l_cost_critic = 0.5 * sums.cost_critic * inv_m;
  const double l_reg = -cfg.entropy_coef * entropy;
  const double total = l_actor + cfg.critic_loss_weight * (l_critic + l_cost_critic) + l_reg;
  if (st != nullptr) {
    const double g_mean = sums.g * inv_m;
    const double g_var = std::max(0.0, sums.g_sq * inv_m - g_mean * g_mean);
    st->total = total;
    st->actor = l_actor;
    st->critic = l_critic;
    st->cost_critic = l_cost_critic;
    st->reg = l_reg;
    st->entropy = entropy;
    st->clip_frac = sums.clip * inv_m;
    st->approx_kl = sums.kl * inv_m;
    st->r2 = 1.0 - sums.critic * inv_m / (g_var + 1e-8);
    st->log_std_mean = log_std_sum / A;
  }
  return total;
}

}  // namespace pz::rl
