// SAC losses and their gradients on row blocks of a minibatch (each block on a pool worker,
// gradients reduced in block order), the element-wise clamp + Adam step, and the Polyak update.
#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/rl/nn/optimizer.hpp"
#include "powerzoo/rl/nn/tensor_impl.hpp"
#include "powerzoo/rl/sac/sac_impl.hpp"

namespace pz::rl {
namespace {

/// Minibatch rows per block (Rejax's batch of 256 runs as 2 blocks), at most 4 blocks. 128 rather
/// than 64 rows: each block packs every weight matrix once, and 4 blocks of 64 rows spent 7 % more
/// time per gradient step on one thread than 2 of 128 (docs/tasks/dc_microgrid.md, SAC's time).
constexpr int kMinBlockRows = 128;
constexpr int kMaxSacBlocks = 4;
/// Parameters from which a gradient reduction is split over the pool.
constexpr size_t kMinParallelReduce = 4096;

int sac_blocks(int rows) { return std::clamp(rows / kMinBlockRows, 1, kMaxSacBlocks); }
int block_row(int rows, int nb, size_t b) { return rows * static_cast<int>(b) / nb; }

template <class T>
void grow(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

void check_batch(const SacBatch& b, int obs_dim, int act_dim, const std::vector<float>& noise) {
  const size_t B = b.B > 0 ? static_cast<size_t>(b.B) : 0;
  if (B == 0 || b.obs.size() != B * obs_dim || b.next_obs.size() != B * obs_dim ||
      b.act.size() != B * act_dim || b.reward.size() != B || b.done.size() != B ||
      noise.size() != B * act_dim)
    throw core::ConfigError("SAC batch: expected B > 0 rows of obs [B, " + std::to_string(obs_dim) +
                            "], act and noise [B, " + std::to_string(act_dim) +
                            "], reward and done [B]");
}

}  // namespace

void SacLearner::Impl::ensure_blocks(std::vector<SacBlock>& bl, int n, int rows) const {
  if (static_cast<int>(bl.size()) < n) bl.resize(n);
  const size_t r = static_cast<size_t>(rows), cin = obs_dim + act_dim;
  for (SacBlock& b : bl) {
    grow(b.grad_actor, actor_p.size());
    grow(b.grad_critic, critic_p.size());
    grow(b.cx, r * cin);
    grow(b.dh, r * 2 * act_dim);
    grow(b.dqa, r * act_dim);
    grow(b.dqa_j, r * act_dim);
    for (int j = 0; j < 2; ++j) {
      b.min_rows[j].reserve(r);
      grow(b.dq[j], r);
    }
  }
}

void SacLearner::Impl::reduce(int nb, float* g, size_t P, std::vector<float> SacBlock::*which) {
  if (nb <= 1) return;
  const int nc = P >= kMinParallelReduce ? nb : 1;
  run(nc, [&](size_t c) {
    const size_t p0 = P * c / nc, p1 = P * (c + 1) / nc;
    auto gv = detail::vec(g + p0, p1 - p0);
    for (int b = 1; b < nb; ++b) gv += detail::vec((blocks[b].*which).data() + p0, p1 - p0);
  });
}

double SacLearner::Impl::optimize(std::vector<float>& p, std::vector<float>& g,
                                  std::vector<float>& m, std::vector<float>& v, int64_t& step) {
  const double norm = std::sqrt(detail::sum_squares(g.data(), g.size()));
  if (ppo.max_grad_norm > 0) {
    const float c = static_cast<float>(ppo.max_grad_norm);
    auto gv = detail::vec(g.data(), g.size());
    xt::noalias(gv) = xt::clip(gv, -c, c);
  }
  adam_step(p, g, m, v, ++step, ppo.learning_rate, 0.9, 0.999, ppo.adam_eps, 0.0, 0.0, pool);
  return norm;
}

// L = (1/B)·Σ_i [α·log π_i − min_j Q_j(s_i, ã_i)], ã_i = loc + scale·tanh(u_i), u = μ + σ·ξ.
// With t = tanh u: ∂log π/∂u_d = 2t_d (the −log(1 − t²) term; the Gaussian term is −ξ²/2 at fixed
// ξ), ∂log π/∂log σ_d = −1 directly, ∂u/∂μ = 1, ∂u/∂log σ = σξ, ∂ã/∂u = scale·(1 − t²), and
// ∂L/∂ã = −(1/B)·∂Q_{j*}/∂a for the critic j* that attains the minimum (Q_0 on a tie).
double SacLearner::actor_loss(const SacBatch& b, const std::vector<float>& noise,
                              std::vector<float>* grad, std::vector<float>* logp) {
  Impl& s = *impl_;
  check_batch(b, s.obs_dim, s.act_dim, noise);
  const int B = b.B, A = s.act_dim, od = s.obs_dim, cin = od + A;
  grow(s.obs_n, size_t(B) * od);
  s.normalize_rows(b.obs.data(), B, s.obs_n.data());
  s.row_logp.resize(B);
  const double alpha = s.alpha(), inv_b = 1.0 / B;
  const int nb = sac_blocks(B);
  s.ensure_blocks(s.blocks, nb, B / nb + 1);
  float* g = nullptr;
  if (grad != nullptr) {
    grad->resize(s.actor_p.size());
    g = grad->data();
  }
  s.run(nb, [&](size_t bi) {
    const int r0 = block_row(B, nb, bi), n = block_row(B, nb, bi + 1) - r0;
    SacBlock& blk = s.blocks[bi];
    const float* x = &s.obs_n[size_t(r0) * od];
    const float* h = s.actor.forward(s.actor_p.data(), x, n, blk.actor);
    for (int i = 0; i < n; ++i) {
      std::copy_n(x + size_t(i) * od, od, &blk.cx[size_t(i) * cin]);
      s.row_logp[r0 + i] = static_cast<float>(
          s.squash_row(h + size_t(i) * 2 * A, &noise[size_t(r0 + i) * A], &blk.cx[i * cin + od]));
    }
    const float* q0 = s.critic[0].forward(s.critic_p.data(), blk.cx.data(), n, blk.q[0]);
    const float* q1 = s.critic[1].forward(s.critic_p.data(), blk.cx.data(), n, blk.q[1]);
    blk.loss = blk.log_std = 0.0;
    blk.min_rows[0].clear();
    blk.min_rows[1].clear();
    for (int i = 0; i < n; ++i) {
      const bool first = q0[i] <= q1[i];
      blk.loss += alpha * double(s.row_logp[r0 + i]) - double(first ? q0[i] : q1[i]);
      blk.min_rows[first ? 0 : 1].push_back(i);
      for (int d = 0; d < A; ++d)
        blk.log_std += std::clamp(double(h[i * 2 * A + A + d]), kSacLogStdMin, kSacLogStdMax);
    }
    if (g == nullptr) return;
    // ∂min_j Q_j/∂ã runs through the critic that attains the minimum, so each row goes back
    // through that critic alone (half the critics' backward work of both on every row with a
    // zero ∂L/∂Q), and only to the action columns of the critic's input.
    for (int j = 0; j < 2; ++j) {
      const std::vector<int>& rows = blk.min_rows[j];
      const int nj = static_cast<int>(rows.size());
      if (nj == 0) continue;
      s.critic[j].gather_rows(blk.q[j], rows.data(), nj, blk.qg);
      std::fill_n(blk.dq[j].data(), nj, static_cast<float>(-inv_b));
      s.critic[j].backward(s.critic_p.data(), nullptr, nj, blk.dq[j].data(), blk.qg, nullptr,
                           blk.dqa_j.data(), od);
      for (int k = 0; k < nj; ++k)
        std::copy_n(&blk.dqa_j[size_t(k) * A], A, &blk.dqa[size_t(rows[k]) * A]);
    }
    for (int i = 0; i < n; ++i) {
      const float* hi = h + size_t(i) * 2 * A;
      const float* xi = &noise[size_t(r0 + i) * A];
      for (int d = 0; d < A; ++d) {
        const double lsr = hi[A + d];
        const double ls = std::clamp(lsr, kSacLogStdMin, kSacLogStdMax), sigma = std::exp(ls);
        const double t = std::tanh(double(hi[d]) + sigma * double(xi[d]));
        const double dq_da = blk.dqa[size_t(i) * A + d];  // ∂L/∂ã_d
        const double du = alpha * inv_b * 2.0 * t + dq_da * s.scale[d] * (1.0 - t * t);
        const bool inside = lsr > kSacLogStdMin && lsr < kSacLogStdMax;
        blk.dh[size_t(i) * 2 * A + d] = static_cast<float>(du);
        blk.dh[size_t(i) * 2 * A + A + d] =
            inside ? static_cast<float>(-alpha * inv_b + du * sigma * double(xi[d])) : 0.0f;
      }
    }
    s.actor.backward(s.actor_p.data(), x, n, blk.dh.data(), blk.actor,
                     bi == 0 ? g : blk.grad_actor.data());
  });
  double loss = 0.0, log_std = 0.0;
  for (int bi = 0; bi < nb; ++bi) loss += s.blocks[bi].loss, log_std += s.blocks[bi].log_std;
  if (g != nullptr && !s.defer_reduce) s.reduce(nb, g, s.actor_p.size(), &SacBlock::grad_actor);
  s.loss_blocks = nb;
  s.log_std_mean = log_std / (double(B) * A);
  if (logp != nullptr) logp->assign(s.row_logp.begin(), s.row_logp.end());
  return loss * inv_b;
}

// L = Σ_j (1/B)·Σ_i ½(Q_j(s_i, a_i) − y_i)², y_i = r_i + γ(1 − d_i)·(min_j Q̄_j(s'_i, a'_i) −
// α·log π(a'_i|s'_i)) with a' from the current actor and noise ξ'; ∂L/∂Q_j,i = (Q_j,i − y_i)/B.
double SacLearner::critic_loss(const SacBatch& b, const std::vector<float>& next_noise,
                               std::vector<float>* grad, double* q_mean) {
  Impl& s = *impl_;
  check_batch(b, s.obs_dim, s.act_dim, next_noise);
  const int B = b.B, A = s.act_dim, od = s.obs_dim, cin = od + A;
  grow(s.obs_n, size_t(B) * od);
  grow(s.next_n, size_t(B) * od);
  s.normalize_rows(b.obs.data(), B, s.obs_n.data());
  s.normalize_rows(b.next_obs.data(), B, s.next_n.data());
  s.row_target.resize(B);
  const double alpha = s.alpha(), inv_b = 1.0 / B, gamma = s.ppo.gamma;
  const int nb = sac_blocks(B);
  s.ensure_blocks(s.blocks, nb, B / nb + 1);
  float* g = nullptr;
  if (grad != nullptr) {
    grad->resize(s.critic_p.size());
    g = grad->data();
  }
  s.run(nb, [&](size_t bi) {
    const int r0 = block_row(B, nb, bi), n = block_row(B, nb, bi + 1) - r0;
    SacBlock& blk = s.blocks[bi];
    // Target: the next action from the actor, the target critics' minimum, the soft term.
    const float* xn = &s.next_n[size_t(r0) * od];
    const float* h = s.actor.forward(s.actor_p.data(), xn, n, blk.actor);
    for (int i = 0; i < n; ++i) {
      std::copy_n(xn + size_t(i) * od, od, &blk.cx[size_t(i) * cin]);
      s.row_target[r0 + i] = static_cast<float>(s.squash_row(
          h + size_t(i) * 2 * A, &next_noise[size_t(r0 + i) * A], &blk.cx[i * cin + od]));
    }
    const float* t0 = s.critic[0].forward(s.target_p.data(), blk.cx.data(), n, blk.qt[0]);
    const float* t1 = s.critic[1].forward(s.target_p.data(), blk.cx.data(), n, blk.qt[1]);
    for (int i = 0; i < n; ++i) {
      const size_t r = size_t(r0 + i);
      const double soft = std::min(double(t0[i]), double(t1[i])) - alpha * s.row_target[r];
      s.row_target[r] =
          static_cast<float>(double(b.reward[r]) + gamma * (1.0 - double(b.done[r])) * soft);
    }
    // Online critics on the stored (s, a).
    for (int i = 0; i < n; ++i) {
      std::copy_n(&s.obs_n[size_t(r0 + i) * od], od, &blk.cx[size_t(i) * cin]);
      std::copy_n(&b.act[size_t(r0 + i) * A], A, &blk.cx[size_t(i) * cin + od]);
    }
    blk.loss = blk.q_sum = 0.0;
    for (int j = 0; j < 2; ++j) {
      const float* q = s.critic[j].forward(s.critic_p.data(), blk.cx.data(), n, blk.q[j]);
      for (int i = 0; i < n; ++i) {
        const double err = double(q[i]) - double(s.row_target[r0 + i]);
        blk.loss += 0.5 * err * err;
        blk.q_sum += q[i];
        blk.dq[j][i] = static_cast<float>(err * inv_b);
      }
    }
    if (g == nullptr) return;
    float* gb = bi == 0 ? g : blk.grad_critic.data();
    for (int j = 0; j < 2; ++j)  // each critic writes its own offsets of the flat gradient
      s.critic[j].backward(s.critic_p.data(), blk.cx.data(), n, blk.dq[j].data(), blk.q[j], gb);
  });
  double loss = 0.0, q = 0.0;
  for (int bi = 0; bi < nb; ++bi) loss += s.blocks[bi].loss, q += s.blocks[bi].q_sum;
  if (g != nullptr && !s.defer_reduce) s.reduce(nb, g, s.critic_p.size(), &SacBlock::grad_critic);
  s.loss_blocks = nb;
  if (q_mean != nullptr) *q_mean = q / (2.0 * B);
  return loss * inv_b;
}

double SacLearner::alpha_loss(const std::vector<float>& logp, double* dlog_alpha) const {
  const Impl& s = *impl_;
  if (logp.empty()) throw core::ConfigError("SAC alpha_loss: no log-probabilities");
  double mean = 0.0;
  for (float l : logp) mean += double(l) + target_entropy();
  mean /= static_cast<double>(logp.size());
  const double alpha = s.alpha();
  if (dlog_alpha != nullptr) *dlog_alpha = -alpha * mean;  // ∂(−α·m)/∂log α, α = exp(log α)
  return -alpha * mean;
}

void SacLearner::polyak_update() {
  Impl& s = *impl_;
  const float tau = static_cast<float>(s.sac.tau);
  auto t = detail::vec(s.target_p.data(), s.target_p.size());
  const auto q = detail::vec(s.critic_p.data(), s.critic_p.size());
  xt::noalias(t) = (1.0f - tau) * t + tau * q;
}

}  // namespace pz::rl
