// PPO learner (seed nnx-ppo semantics, rl.md §1.4–1.8): Gaussian actor, critic, in-loss GAE, Adam.
#include "powerzoo/rl/ppo.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/mlp.hpp"
#include "powerzoo/rl/ppo_impl.hpp"

namespace pz::rl {

namespace {

constexpr double kHalfLog2Pi = 0.91893853320467274178;   // ½·log(2π)
constexpr double kHalfLog2PiE = 1.41893853320467274178;  // ½·log(2πe)
constexpr double kLog2 = 0.69314718055994530942;

/// log(1 − tanh²u) = 2(log 2 − u − softplus(−2u)), stable for large |u| (rl.md §1.10).
double log1m_tanh2(double u) {
  const double x = -2.0 * u;
  const double softplus = x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  return 2.0 * (kLog2 - u - softplus);
}

void fill_metrics(const LossStats& s, double scale, std::map<std::string, double>& m,
                  bool has_costs) {
  if (has_costs) m["losses/cost_critic"] = s.cost_critic * scale;
  m["losses/total"] = s.total * scale;
  m["losses/actor"] = s.actor * scale;
  m["losses/critic"] = s.critic * scale;
  m["losses/regularization"] = s.reg * scale;
  m["losses/entropy"] = s.entropy * scale;
  m["losses/clipping_fraction"] = s.clip_frac * scale;
  m["losses/approx_kl"] = s.approx_kl * scale;
  m["losses/critic_R^2"] = s.r2 * scale;
  m["policy/log_std_mean"] = s.log_std_mean * scale;
}

template <class T>
void grow(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

void PpoLearner::Impl::check_rollout(const Rollout& r) const {
  if (r.obs_dim != obs_dim || r.act_dim != act_dim) {
    throw core::ConfigError("PPO rollout has obs_dim " + std::to_string(r.obs_dim) + ", act_dim " +
                            std::to_string(r.act_dim) + "; learner expects " +
                            std::to_string(obs_dim) + ", " + std::to_string(act_dim));
  }
  if (r.T <= 0 || r.N <= 0) throw core::ConfigError("PPO rollout must have T > 0 and N > 0");
  const size_t tn = static_cast<size_t>(r.T) * r.N;
  const bool ok = r.obs.size() == tn * obs_dim && r.actions.size() == tn * act_dim &&
                  r.logp.size() == tn && r.rewards.size() == tn && r.dones.size() == tn &&
                  r.truncated.size() == tn &&
                  r.next_obs.size() == static_cast<size_t>(r.N) * obs_dim &&
                  (cfg.truncation != Truncation::kBootstrap || r.final_obs.size() == tn * obs_dim);
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

void PpoLearner::Impl::prepare(const Rollout& r, const int* cols, int B, const float* adv_in,
                               const float* targets_in) {
  const int T = r.T, N = r.N;
  const size_t tb = static_cast<size_t>(T) * B;
  grow(obs_mb, tb * obs_dim);
  for (int t = 0; t < T; ++t) {
    for (int j = 0; j < B; ++j) {
      normalize_rows(&r.obs[(static_cast<size_t>(t) * N + cols[j]) * obs_dim], 1,
                     &obs_mb[(static_cast<size_t>(t) * B + j) * obs_dim]);
    }
  }
  const float* v = critic.forward(params.data(), obs_mb.data(), static_cast<int>(tb), ws_critic);
  grow(values_mb, tb);
  std::copy(v, v + tb, values_mb.begin());
  const int K = n_costs;
  grow(cvals, tb * K);
  for (int c = 0; c < K; ++c) {
    const float* vc =
        cost_critics[c].forward(params.data(), obs_mb.data(), static_cast<int>(tb), ws_cost[c]);
    std::copy(vc, vc + tb, cvals.begin() + c * tb);
  }
  const size_t nblk = (1 + static_cast<size_t>(K)) * tb;
  grow(adv, nblk);
  grow(targets, nblk);
  if (adv_in != nullptr) {
    std::copy(adv_in, adv_in + nblk, adv.begin());
    std::copy(targets_in, targets_in + nblk, targets.begin());
    return;
  }

  // Bootstrap values: V(next_obs) per column, and V(final_obs_t) at truncated steps (kBootstrap).
  grow(extra_obs, (tb + B) * obs_dim);
  grow(trunc_row, tb);
  int n_extra = 0;
  for (int j = 0; j < B; ++j) {
    normalize_rows(&r.next_obs[static_cast<size_t>(cols[j]) * obs_dim], 1,
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
        normalize_rows(&r.final_obs[src * obs_dim], 1,
                       &extra_obs[static_cast<size_t>(n_extra++) * obs_dim]);
      }
    }
  }
  // Bootstrap values of every critic on the extra rows: block 0 reward, block 1 + c cost c.
  grow(ext_v, static_cast<size_t>(n_extra) * (1 + K));
  {
    const float* ve0 = critic.forward(params.data(), extra_obs.data(), n_extra, ws_extra);
    std::copy(ve0, ve0 + n_extra, ext_v.begin());
    for (int c = 0; c < K; ++c) {
      const float* vc = cost_critics[c].forward(params.data(), extra_obs.data(), n_extra, ws_extra);
      std::copy(vc, vc + n_extra, ext_v.begin() + static_cast<size_t>(c + 1) * n_extra);
    }
  }
  const float* ve = ext_v.data();

  grow(col_r, T), grow(col_v, T), grow(col_vn, T), grow(col_a, T), grow(col_d, T), grow(col_t, T);
  for (int j = 0; j < B; ++j) {
    for (int t = 0; t < T; ++t) {
      const size_t src = static_cast<size_t>(t) * N + cols[j];
      const size_t i = static_cast<size_t>(t) * B + j;
      col_r[t] = r.rewards[src];
      col_v[t] = values_mb[i];
      col_d[t] = r.dones[src];
      col_t[t] = r.truncated[src];
      if (trunc_row[i] >= 0) {
        col_vn[t] = ve[trunc_row[i]];
      } else if (t + 1 < T) {
        col_vn[t] = values_mb[i + B];
      } else {
        col_vn[t] = ve[j];
      }
    }
    gae(T, col_r.data(), col_v.data(), col_vn.data(), col_d.data(), col_t.data(), cfg.gamma,
        cfg.gae_lambda, cfg.truncation, col_a.data());
    for (int t = 0; t < T; ++t) {
      const size_t i = static_cast<size_t>(t) * B + j;
      adv[i] = col_a[t];
      targets[i] = static_cast<float>(double(col_v[t]) + double(col_a[t]));
    }
    // Cost advantages by the same GAE (cost_gamma, same gae_lambda, same done/truncation rules).
    for (int c = 0; c < K; ++c) {
      const float* vc = &cvals[c * tb];
      const float* vce = ve + static_cast<size_t>(c + 1) * n_extra;
      for (int t = 0; t < T; ++t) {
        const size_t src = static_cast<size_t>(t) * N + cols[j];
        const size_t i = static_cast<size_t>(t) * B + j;
        col_r[t] = r.costs[src * K + c];
        col_v[t] = vc[i];
        if (trunc_row[i] >= 0) {
          col_vn[t] = vce[trunc_row[i]];
        } else if (t + 1 < T) {
          col_vn[t] = vc[i + B];
        } else {
          col_vn[t] = vce[j];
        }
      }
      gae(T, col_r.data(), col_v.data(), col_vn.data(), col_d.data(), col_t.data(), cfg.cost_gamma,
          cfg.gae_lambda, cfg.truncation, col_a.data());
      for (int t = 0; t < T; ++t) {
        const size_t i = (c + 1) * tb + static_cast<size_t>(t) * B + j;
        adv[i] = col_a[t];
        targets[i] = static_cast<float>(double(col_v[t]) + double(col_a[t]));
      }
    }
  }
}

// Loss of rl.md §1.6 with a state-independent Gaussian policy. Per sample i (M = T·B samples):
//   z_id = (a_id − μ_id)/σ_d, ℓ_i = Σ_d[−½z² − log σ_d − ½log2π], ρ_i = exp(ℓ_i − ℓ_old_i)
//   L_actor = −mean_i min(ρ_i Â_i, clip(ρ_i, 1±ε) Â_i), L_critic = ½ mean_i (V_i − G_i)²
//   H = Σ_d[log σ_d + ½log(2πe)], L_reg = −c_H·H, total = L_actor + w_c·L_critic + L_reg.
// Gradients: ∂L/∂ℓ_i = −ρ_i Â_i/M where the unclipped term is the minimum (else 0);
//   ∂ℓ_i/∂μ_id = z_id/σ_d, ∂ℓ_i/∂log σ_d = z_id² − 1, ∂L_reg/∂log σ_d = −c_H,
//   ∂L/∂V_i = w_c (V_i − G_i)/M.
double PpoLearner::Impl::loss(const Rollout& r, const int* cols, int B, float* g, LossStats* st) {
  const int T = r.T, N = r.N, A = act_dim;
  const size_t M = static_cast<size_t>(T) * B;
  const double inv_m = 1.0 / static_cast<double>(M);

  // Advantage normalization (population std over the minibatch), per block. PPO-Lagrangian
  // (rl.md §2.7 step 5, per minibatch instead of per batch): Â = Â_R − Σ_c λ_c Â_C,c, each block
  // normalized on its own, the combination not re-normalized.
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
  const int K = n_costs;
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

  const float* mu = actor.forward(params.data(), obs_mb.data(), static_cast<int>(M), ws_actor);
  const float* log_std = params.data() + log_std_off;
  double entropy = 0.0, log_std_sum = 0.0;
  inv_sigma.resize(A);
  for (int d = 0; d < A; ++d) {
    entropy += double(log_std[d]) + kHalfLog2PiE;
    log_std_sum += log_std[d];
    inv_sigma[d] = std::exp(-double(log_std[d]));
  }
  grow(dmu, M * A);
  grow(dv, M);
  dlog_std.assign(A, 0.0);
  const double eps = cfg.clip_range;
  const bool squash = cfg.squash == Squash::kTanh;
  double actor_sum = 0.0, critic_sum = 0.0, clip_count = 0.0, kl_sum = 0.0;
  double g_sum = 0.0, g_sq = 0.0;
  for (int t = 0; t < T; ++t) {
    for (int j = 0; j < B; ++j) {
      const size_t i = static_cast<size_t>(t) * B + j;
      const size_t src = static_cast<size_t>(t) * N + cols[j];
      const float* a = &r.actions[src * A];
      const float* m = mu + i * A;
      double logp = 0.0;
      for (int d = 0; d < A; ++d) {
        const double z = (double(a[d]) - double(m[d])) * inv_sigma[d];
        logp += -0.5 * z * z - double(log_std[d]) - kHalfLog2Pi;
      }
      if (squash) {  // tanh Jacobian of the stored u: constant in the parameters
        for (int d = 0; d < A; ++d) logp -= log1m_tanh2(double(a[d]));
      }
      const double log_ratio = logp - double(r.logp[src]);
      const double rho = std::exp(log_ratio);
      const double adv_i = adv_n[i];
      const double rho_c = std::clamp(rho, 1.0 - eps, 1.0 + eps);
      const double s1 = rho * adv_i, s2 = rho_c * adv_i;
      actor_sum += std::min(s1, s2);
      if (std::abs(rho - 1.0) > eps) clip_count += 1.0;
      kl_sum += (rho - 1.0) - log_ratio;
      const double err = double(values_mb[i]) - double(targets[i]);
      critic_sum += err * err;
      g_sum += targets[i];
      g_sq += double(targets[i]) * double(targets[i]);
      if (g != nullptr) {
        const double dl = (s1 <= s2) ? -rho * adv_i * inv_m : 0.0;  // ∂L/∂ℓ_i
        for (int d = 0; d < A; ++d) {
          const double z = (double(a[d]) - double(m[d])) * inv_sigma[d];
          dmu[i * A + d] = static_cast<float>(dl * z * inv_sigma[d]);
          dlog_std[d] += dl * (z * z - 1.0);
        }
        dv[i] = static_cast<float>(cfg.critic_loss_weight * err * inv_m);
      }
    }
  }
  // Cost critics: ½·MSE each against their own targets, summed over channels.
  double cost_critic_sum = 0.0;
  if (K > 0) grow(dvc, M * K);
  for (int c = 0; c < K; ++c) {
    const float* vc = &cvals[c * M];
    const float* gc = &targets[(c + 1) * M];
    for (size_t i = 0; i < M; ++i) {
      const double err = double(vc[i]) - double(gc[i]);
      cost_critic_sum += err * err;
      if (g != nullptr) dvc[c * M + i] = static_cast<float>(cfg.critic_loss_weight * err * inv_m);
    }
  }
  const double l_actor = -actor_sum * inv_m;
  const double l_critic = 0.5 * critic_sum * inv_m;
  const double l_cost_critic = 0.5 * cost_critic_sum * inv_m;
  const double l_reg = -cfg.entropy_coef * entropy;
  const double total = l_actor + cfg.critic_loss_weight * (l_critic + l_cost_critic) + l_reg;

  if (g != nullptr) {
    actor.backward(params.data(), obs_mb.data(), static_cast<int>(M), dmu.data(), ws_actor, g);
    for (int d = 0; d < A; ++d) {
      g[log_std_off + d] = static_cast<float>(dlog_std[d] - cfg.entropy_coef);
    }
    critic.backward(params.data(), obs_mb.data(), static_cast<int>(M), dv.data(), ws_critic, g);
    for (int c = 0; c < K; ++c) {
      cost_critics[c].backward(params.data(), obs_mb.data(), static_cast<int>(M), &dvc[c * M],
                               ws_cost[c], g);
    }
  }
  if (st != nullptr) {
    const double g_mean = g_sum * inv_m;
    const double g_var = std::max(0.0, g_sq * inv_m - g_mean * g_mean);
    st->total = total;
    st->actor = l_actor;
    st->critic = l_critic;
    st->cost_critic = l_cost_critic;
    st->reg = l_reg;
    st->entropy = entropy;
    st->clip_frac = clip_count * inv_m;
    st->approx_kl = kl_sum * inv_m;
    st->r2 = 1.0 - critic_sum * inv_m / (g_var + 1e-8);
    st->log_std_mean = log_std_sum / A;
  }
  return total;
}

PpoLearner::PpoLearner(int obs_dim, int act_dim, const PpoConfig& cfg, core::Rng& init_rng,
                       int n_costs)
    : impl_(std::make_unique<Impl>()) {
  if (n_costs < 0) throw core::ConfigError("PPO learner needs n_costs >= 0");
  if (n_costs > 0 && !(cfg.lambda_init > 0)) {
    throw core::ConfigError("PPO-Lagrangian needs lambda_init > 0");
  }
  if (obs_dim <= 0 || act_dim <= 0) {
    throw core::ConfigError("PPO learner needs obs_dim > 0 and act_dim > 0, got " +
                            std::to_string(obs_dim) + ", " + std::to_string(act_dim));
  }
  for (int h : cfg.hidden) {
    if (h <= 0) throw core::ConfigError("PPO hidden layer sizes must be > 0");
  }
  if (cfg.n_epochs <= 0 || cfg.n_minibatches <= 0) {
    throw core::ConfigError("PPO n_epochs and n_minibatches must be > 0");
  }
  Impl& s = *impl_;
  s.obs_dim = obs_dim;
  s.act_dim = act_dim;
  s.cfg = cfg;
  s.actor = detail::Mlp(obs_dim, cfg.hidden, act_dim, 0);
  s.log_std_off = s.actor.n_params();
  s.critic = detail::Mlp(obs_dim, cfg.hidden, 1, s.log_std_off + act_dim);
  s.n_params = s.critic.offset() + s.critic.n_params();
  s.n_costs = n_costs;
  for (int c = 0; c < n_costs; ++c) {
    s.cost_critics.emplace_back(obs_dim, cfg.hidden, 1, s.n_params);
    s.n_params += s.cost_critics.back().n_params();
  }
  s.ws_cost.resize(n_costs);
  s.duals = LagrangeDuals(n_costs, cfg);
  s.params.assign(s.n_params, 0.0f);
  s.grad.assign(s.n_params, 0.0f);
  s.adam_m.assign(s.n_params, 0.0f);
  s.adam_v.assign(s.n_params, 0.0f);
  s.norm = ObsNormalizer(obs_dim);
  s.reward_norm = RewardNormalizer(cfg.gamma);

  s.actor.init(s.params.data(), init_rng, 0.01f);
  std::fill(s.params.begin() + s.log_std_off, s.params.begin() + s.log_std_off + act_dim,
            static_cast<float>(cfg.init_log_std));
  s.critic.init(s.params.data(), init_rng, 1.0f);
  for (const auto& cc : s.cost_critics) cc.init(s.params.data(), init_rng, 1.0f);

  auto add_net = [&](const std::string& name, const detail::Mlp& net) {
    for (size_t i = 0; i < net.layers().size(); ++i) {
      const detail::Layer& l = net.layers()[i];
      const std::string p = name + "/l" + std::to_string(i) + "/";
      s.slices.emplace_back(p + "w", l.w_off, static_cast<int64_t>(l.in) * l.out);
      s.slices.emplace_back(p + "b", l.b_off, l.out);
    }
  };
  add_net("actor", s.actor);
  s.slices.emplace_back("actor/log_std", s.log_std_off, act_dim);
  add_net("critic", s.critic);
  for (int c = 0; c < n_costs; ++c) add_net("cost_critic/" + std::to_string(c), s.cost_critics[c]);
}

PpoLearner::~PpoLearner() = default;
PpoLearner::PpoLearner(PpoLearner&&) noexcept = default;
PpoLearner& PpoLearner::operator=(PpoLearner&&) noexcept = default;

void PpoLearner::act(const float* obs, int n, core::Rng* rng, float* actions, float* logp,
                     float* value, float* raw_actions) {
  Impl& s = *impl_;
  if (n <= 0) return;
  grow(s.act_obs, static_cast<size_t>(n) * s.obs_dim);
  s.normalize_rows(obs, n, s.act_obs.data());
  const float* mu = s.actor.forward(s.params.data(), s.act_obs.data(), n, s.ws_act_actor);
  const float* log_std = s.params.data() + s.log_std_off;
  const int A = s.act_dim;
  const bool squash = s.cfg.squash == Squash::kTanh;
  for (int i = 0; i < n; ++i) {
    double lp = 0.0;
    for (int d = 0; d < A; ++d) {
      const size_t k = static_cast<size_t>(i) * A + d;
      const double sigma = std::exp(double(log_std[d]));
      const float a = rng != nullptr ? static_cast<float>(mu[k] + sigma * rng->normal()) : mu[k];
      if (raw_actions != nullptr) raw_actions[k] = a;
      const double z = (double(a) - double(mu[k])) / sigma;
      lp += -0.5 * z * z - double(log_std[d]) - kHalfLog2Pi;
      if (squash) {
        actions[k] = static_cast<float>(std::tanh(double(a)));
        lp -= log1m_tanh2(double(a));
      } else {
        actions[k] = a;
      }
    }
    if (logp != nullptr) logp[i] = static_cast<float>(lp);
  }
  if (value != nullptr) {
    const float* v = s.critic.forward(s.params.data(), s.act_obs.data(), n, s.ws_act_critic);
    std::copy(v, v + n, value);
  }
}

void PpoLearner::value(const float* obs, int n, float* value) {
  Impl& s = *impl_;
  if (n <= 0) return;
  grow(s.act_obs, static_cast<size_t>(n) * s.obs_dim);
  s.normalize_rows(obs, n, s.act_obs.data());
  const float* v = s.critic.forward(s.params.data(), s.act_obs.data(), n, s.ws_act_critic);
  std::copy(v, v + n, value);
}

std::map<std::string, double> PpoLearner::update(const Rollout& r, core::Rng& shuffle_rng) {
  Impl& s = *impl_;
  s.check_rollout(r);
  const int N = r.N, n_mb = s.cfg.n_minibatches;
  if (N % n_mb != 0) {
    throw core::ConfigError("PPO n_minibatches = " + std::to_string(n_mb) +
                            " must divide n_envs = " + std::to_string(N));
  }
  const int mb = N / n_mb;
  s.perm.resize(N);
  s.mb_cols.resize(mb);
  LossStats sum;
  double grad_norm_sum = 0.0;
  for (int e = 0; e < s.cfg.n_epochs; ++e) {
    std::iota(s.perm.begin(), s.perm.end(), 0);
    for (int i = N - 1; i > 0; --i) {  // Fisher–Yates
      const int j = static_cast<int>(shuffle_rng.below(static_cast<uint64_t>(i) + 1));
      std::swap(s.perm[i], s.perm[j]);
    }
    for (int k = 0; k < n_mb; ++k) {
      std::copy(s.perm.begin() + k * mb, s.perm.begin() + (k + 1) * mb, s.mb_cols.begin());
      LossStats st;
      s.prepare(r, s.mb_cols.data(), mb, nullptr, nullptr);
      const double total = s.loss(r, s.mb_cols.data(), mb, s.grad.data(), &st);
      if (!std::isfinite(total)) {
        throw core::RunError("PPO update: non-finite loss at epoch " + std::to_string(e) +
                             ", minibatch " + std::to_string(k));
      }
      const double gn =
          adam_step(s.params, s.grad, s.adam_m, s.adam_v, ++s.step, s.cfg.learning_rate, 0.9, 0.999,
                    s.cfg.adam_eps, s.cfg.weight_decay, s.cfg.max_grad_norm);
      if (!std::isfinite(gn)) {
        throw core::RunError("PPO update: non-finite gradient at epoch " + std::to_string(e) +
                             ", minibatch " + std::to_string(k));
      }
      sum.add(st);
      grad_norm_sum += gn;
    }
  }
  // rl.md §1.4 step 6: the normalizer folds in the rollout's raw observations after the update.
  if (s.cfg.normalize_obs) s.norm.merge(r.obs.data(), r.T * r.N);

  const double scale = 1.0 / (static_cast<double>(s.cfg.n_epochs) * n_mb);
  std::map<std::string, double> metrics;
  fill_metrics(sum, scale, metrics, s.n_costs > 0);
  metrics["grad_norm"] = grad_norm_sum * scale;
  return metrics;
}

double PpoLearner::loss_and_grad(const Rollout& r, const std::vector<int>& env_cols,
                                 std::vector<float>* grad, std::map<std::string, double>* metrics) {
  Impl& s = *impl_;
  s.check_rollout(r);
  const int B = static_cast<int>(env_cols.size());
  s.check_cols(r, env_cols.data(), B);
  s.prepare(r, env_cols.data(), B, nullptr, nullptr);
  if (grad != nullptr) grad->resize(s.n_params);
  LossStats st;
  const double total = s.loss(r, env_cols.data(), B, grad ? grad->data() : nullptr, &st);
  if (metrics != nullptr) fill_metrics(st, 1.0, *metrics, s.n_costs > 0);
  return total;
}

void PpoLearner::compute_targets(const Rollout& r, const std::vector<int>& env_cols,
                                 std::vector<float>* advantages, std::vector<float>* targets) {
  Impl& s = *impl_;
  s.check_rollout(r);
  const int B = static_cast<int>(env_cols.size());
  s.check_cols(r, env_cols.data(), B);
  s.prepare(r, env_cols.data(), B, nullptr, nullptr);
  const size_t tb = static_cast<size_t>(r.T) * B * (1 + s.n_costs);
  if (advantages != nullptr) advantages->assign(s.adv.begin(), s.adv.begin() + tb);
  if (targets != nullptr) targets->assign(s.targets.begin(), s.targets.begin() + tb);
}

double PpoLearner::loss_and_grad_fixed(const Rollout& r, const std::vector<int>& env_cols,
                                       const std::vector<float>& advantages,
                                       const std::vector<float>& targets, std::vector<float>* grad,
                                       std::map<std::string, double>* metrics) {
  Impl& s = *impl_;
  s.check_rollout(r);
  const int B = static_cast<int>(env_cols.size());
  s.check_cols(r, env_cols.data(), B);
  const size_t tb = static_cast<size_t>(r.T) * B * (1 + s.n_costs);
  if (advantages.size() != tb || targets.size() != tb) {
    throw core::ConfigError(
        "PPO loss_and_grad_fixed: advantages/targets must have (1 + n_costs)·T·B values");
  }
  s.prepare(r, env_cols.data(), B, advantages.data(), targets.data());
  if (grad != nullptr) grad->resize(s.n_params);
  LossStats st;
  const double total = s.loss(r, env_cols.data(), B, grad ? grad->data() : nullptr, &st);
  if (metrics != nullptr) fill_metrics(st, 1.0, *metrics, s.n_costs > 0);
  return total;
}

}  // namespace pz::rl
