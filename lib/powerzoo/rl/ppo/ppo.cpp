// PPO learner (seed nnx-ppo semantics, PowerZooJax's seed PPO trainer (nnx-ppo)): Gaussian actor,
// critic, in-loss GAE, Adam; construction, acting (actor/critic forward on row blocks) and the
// update loop. The minibatch preparation and the loss are in ppo_loss.cpp.
#include "powerzoo/rl/ppo/ppo.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/rl/action_box.hpp"
#include "powerzoo/rl/nn/beta.hpp"
#include "powerzoo/rl/nn/mlp.hpp"
#include "powerzoo/rl/ppo/ppo_impl.hpp"

namespace pz::rl {

namespace {

void fill_metrics(const LossStats& s, double scale, std::map<std::string, double>& m,
                  bool has_costs, bool gaussian) {
  if (has_costs) m["losses/cost_critic"] = s.cost_critic * scale;
  m["losses/total"] = s.total * scale;
  m["losses/actor"] = s.actor * scale;
  m["losses/critic"] = s.critic * scale;
  m["losses/regularization"] = s.reg * scale;
  m["losses/entropy"] = s.entropy * scale;
  m["losses/clipping_fraction"] = s.clip_frac * scale;
  m["losses/approx_kl"] = s.approx_kl * scale;
  m["losses/critic_R^2"] = s.r2 * scale;
  if (gaussian) m["policy/log_std_mean"] = s.log_std_mean * scale;
}

/// Rows per block of act() (training batches and evaluation episodes alike): batches under twice
/// this run on the calling thread.
constexpr size_t kMinActRows = 24;

template <class T>
void grow(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

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
  s.beta = cfg.policy == Policy::kBeta;
  s.head = s.beta ? 2 * act_dim : act_dim;
  s.act_low.assign(act_dim, 0.0f);
  s.act_high.assign(act_dim, 1.0f);
  const int n_log_std = s.beta ? 0 : act_dim;
  s.actor = detail::Mlp(obs_dim, cfg.hidden, s.head, 0);
  s.log_std_off = s.actor.n_params();
  s.critic = detail::Mlp(obs_dim, cfg.hidden, 1, s.log_std_off + n_log_std);
  s.n_params = s.critic.offset() + s.critic.n_params();
  s.n_costs = n_costs;
  // PPO-Lagrangian's cost critics: k networks with one output each, or one network whose k
  // outputs share the trunk (CostCritic::kShared, PowerZooJax's IPPO-Lagrangian layout).
  s.shared_cost = n_costs > 0 && cfg.cost_critic == CostCritic::kShared;
  const int n_cost_nets = s.shared_cost ? 1 : n_costs;
  for (int c = 0; c < n_cost_nets; ++c) {
    s.cost_critics.emplace_back(obs_dim, cfg.hidden, s.shared_cost ? n_costs : 1, s.n_params);
    s.n_params += s.cost_critics.back().n_params();
  }
  s.duals = LagrangeDuals(n_costs, cfg);
  s.params.assign(s.n_params, 0.0f);
  s.grad.assign(s.n_params, 0.0f);
  s.adam_m.assign(s.n_params, 0.0f);
  s.adam_v.assign(s.n_params, 0.0f);
  s.norm = ObsNormalizer(obs_dim);
  s.reward_norm = RewardNormalizer(cfg.gamma);

  s.actor.init(s.params.data(), init_rng, static_cast<float>(cfg.init_actor_scale));
  std::fill(s.params.begin() + s.log_std_off, s.params.begin() + s.log_std_off + n_log_std,
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
  if (n_log_std > 0) s.slices.emplace_back("actor/log_std", s.log_std_off, n_log_std);
  add_net("critic", s.critic);
  if (s.shared_cost) {
    add_net("cost_critic", s.cost_critics[0]);
  } else {
    for (int c = 0; c < n_costs; ++c)
      add_net("cost_critic/" + std::to_string(c), s.cost_critics[c]);
  }
}

PpoLearner::~PpoLearner() = default;
PpoLearner::PpoLearner(PpoLearner&&) noexcept = default;
PpoLearner& PpoLearner::operator=(PpoLearner&&) noexcept = default;

void PpoLearner::Impl::forward_act(const float* x, int n, bool want_value) {
  const int nb = n_blocks(static_cast<size_t>(n), kMinActRows);
  ensure_blocks(act_blocks, nb);
  grow(act_mu, static_cast<size_t>(n) * head);
  grow(act_v, static_cast<size_t>(n));
  run(nb, [&](size_t b) {
    const size_t r0 = block_row(n, nb, b), r1 = block_row(n, nb, b + 1);
    const int rows = static_cast<int>(r1 - r0);
    RowBlock& blk = act_blocks[b];
    const float* xb = x + r0 * obs_dim;
    const float* mu = actor.forward(params.data(), xb, rows, blk.actor);
    std::copy_n(mu, static_cast<size_t>(rows) * head, &act_mu[r0 * head]);
    if (want_value) {
      const float* v = critic.forward(params.data(), xb, rows, blk.critic);
      std::copy_n(v, rows, &act_v[r0]);
    }
  });
}

void PpoLearner::act(const float* obs, int n, core::Rng* rng, float* actions, float* logp,
                     float* value, float* raw_actions) {
  Impl& s = *impl_;
  if (n <= 0) return;
  grow(s.act_obs, static_cast<size_t>(n) * s.obs_dim);
  s.normalize_rows(obs, n, s.act_obs.data());
  s.forward_act(s.act_obs.data(), n, value != nullptr);
  if (value != nullptr) std::copy_n(s.act_v.data(), n, value);
  if (s.beta) {
    s.act_beta(n, rng, actions, logp, raw_actions);
    return;
  }
  if (s.cfg.bounded_mean) s.bound_means(s.act_mu.data(), static_cast<size_t>(n));
  const float* mu = s.act_mu.data();
  const float* log_std = s.params.data() + s.log_std_off;
  const int A = s.act_dim;
  const bool squash = s.cfg.squash == Squash::kTanh;
  s.act_sigma.resize(A);
  for (int d = 0; d < A; ++d) s.act_sigma[d] = std::exp(double(log_std[d]));
  for (int i = 0; i < n; ++i) {
    double lp = 0.0;
    for (int d = 0; d < A; ++d) {
      const size_t k = static_cast<size_t>(i) * A + d;
      const double sigma = s.act_sigma[d];
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
}

void PpoLearner::Impl::act_beta(int n, core::Rng* rng, float* actions, float* logp,
                                float* raw_actions) const {
  const int A = act_dim;
  for (int i = 0; i < n; ++i) {
    const float* h = &act_mu[static_cast<size_t>(i) * 2 * A];
    double lp = 0.0;
    for (int d = 0; d < A; ++d) {
      const size_t k = static_cast<size_t>(i) * A + d;
      const double a = beta_concentration(h[d], nullptr);
      const double b = beta_concentration(h[A + d], nullptr);
      // The log-density is evaluated at the stored float u, so the first epoch's ratio is 1.
      const float u =
          static_cast<float>(rng != nullptr ? sample_beta(a, b, *rng) : beta_mode(a, b));
      if (raw_actions != nullptr) raw_actions[k] = u;
      actions[k] = act_low[d] + u * (act_high[d] - act_low[d]);
      lp += beta_log_prob(a, b, double(u), nullptr, nullptr);
    }
    if (logp != nullptr) logp[i] = static_cast<float>(lp);
  }
}

void PpoLearner::set_action_box(const std::vector<float>& low, const std::vector<float>& high) {
  Impl& s = *impl_;
  check_action_box("PPO", s.act_dim, low, high,
                   s.beta               ? "policy = \"beta\""
                   : s.cfg.bounded_mean ? "bounded_mean = true"
                                        : "");
  s.act_low = low;
  s.act_high = high;
  if (!s.cfg.bounded_mean) return;
  s.mean_mid.resize(s.act_dim);
  s.mean_half.resize(s.act_dim);
  for (int d = 0; d < s.act_dim; ++d) {
    s.mean_mid[d] = 0.5 * (double(high[d]) + double(low[d]));
    s.mean_half[d] = 0.5 * (double(high[d]) - double(low[d]));
  }
}

void PpoLearner::Impl::bound_means(float* h, size_t n) const {
  if (mean_half.empty())
    throw core::ConfigError("PPO [ppo] bounded_mean = true needs the env's action box; none set");
  const size_t A = static_cast<size_t>(act_dim);
  for (size_t i = 0; i < n; ++i)
    for (size_t d = 0; d < A; ++d)
      h[i * A + d] =
          static_cast<float>(mean_mid[d] + mean_half[d] * std::tanh(double(h[i * A + d])));
}

void PpoLearner::value(const float* obs, int n, float* value) {
  Impl& s = *impl_;
  if (n <= 0) return;
  grow(s.act_obs, static_cast<size_t>(n) * s.obs_dim);
  s.normalize_rows(obs, n, s.act_obs.data());
  s.ensure_blocks(s.act_blocks, 1);
  const float* v = s.critic.forward(s.params.data(), s.act_obs.data(), n, s.act_blocks[0].critic);
  std::copy(v, v + n, value);
}

void PpoLearner::set_pool(core::ThreadPool* pool) { impl_->pool = pool; }

void PpoLearner::set_max_block_rows(int rows) {
  if (rows < 0) throw core::ConfigError("PPO max block rows must be >= 0");
  impl_->max_block_rows = static_cast<size_t>(rows);
}

std::map<std::string, double> PpoLearner::update(const Rollout& r, core::Rng& shuffle_rng) {
  return update_many({this}, {&r}, {&shuffle_rng}, impl_->pool)[0];
}

namespace {

/// Runs task(g, t) for t < counts[g] of every learner g in one batch on the pool (inline without
/// a pool or with at most one task).
void run_all(core::ThreadPool* pool, const std::vector<int>& counts,
             const std::function<void(size_t, size_t)>& task) {
  std::vector<size_t> off(counts.size() + 1, 0);
  for (size_t g = 0; g < counts.size(); ++g) off[g + 1] = off[g] + counts[g];
  auto one = [&](size_t i) {
    const size_t g = std::upper_bound(off.begin(), off.end(), i) - off.begin() - 1;
    task(g, i - off[g]);
  };
  if (pool != nullptr && off.back() > 1) {
    pool->run_blocks(off.back(), one);
  } else {
    for (size_t i = 0; i < off.back(); ++i) one(i);
  }
}

}  // namespace

std::vector<std::map<std::string, double>> PpoLearner::update_many(
    const std::vector<PpoLearner*>& ls, const std::vector<const Rollout*>& rs,
    const std::vector<core::Rng*>& rngs, core::ThreadPool* pool) {
  const size_t G = ls.size();
  const int n_epochs = ls[0]->impl_->cfg.n_epochs, n_mb = ls[0]->impl_->cfg.n_minibatches;
  std::vector<int> mb(G), cnt(G);
  for (size_t g = 0; g < G; ++g) {
    Impl& s = *ls[g]->impl_;
    s.check_rollout(*rs[g]);
    if (s.cfg.n_epochs != n_epochs || s.cfg.n_minibatches != n_mb)
      throw core::ConfigError("PPO update of several learners: n_epochs and n_minibatches differ");
    const int N = rs[g]->N;
    if (N % n_mb != 0) {
      throw core::ConfigError("PPO n_minibatches = " + std::to_string(n_mb) +
                              " must divide n_envs = " + std::to_string(N));
    }
    mb[g] = N / n_mb;
    s.perm.resize(N);
    s.mb_cols.resize(mb[g]);
  }
  std::vector<LossStats> sum(G);
  std::vector<double> grad_norm_sum(G, 0.0);
  auto each = [&](auto fn) {
    for (size_t g = 0; g < G; ++g) fn(*ls[g]->impl_, *rs[g], g);
  };
  // Rejax's (and CleanRL's) advantages: once, from the critic that collected the rollout.
  each([&](Impl& s, const Rollout& r, size_t) {
    if (s.cfg.advantages == AdvantageTiming::kRollout) s.rollout_gae(r);
  });
  for (int e = 0; e < n_epochs; ++e) {
    each([&](Impl& s, const Rollout& r, size_t g) {
      std::iota(s.perm.begin(), s.perm.end(), 0);
      for (int i = r.N - 1; i > 0; --i) {  // Fisher–Yates
        const int j = static_cast<int>(rngs[g]->below(static_cast<uint64_t>(i) + 1));
        std::swap(s.perm[i], s.perm[j]);
      }
    });
    for (int k = 0; k < n_mb; ++k) {
      each([&](Impl& s, const Rollout& r, size_t g) {
        std::copy(s.perm.begin() + k * mb[g], s.perm.begin() + (k + 1) * mb[g], s.mb_cols.begin());
        const bool per_mb = s.cfg.advantages == AdvantageTiming::kMinibatch;
        cnt[g] = s.prepare_setup(r, s.mb_cols.data(), mb[g], per_mb);
      });
      run_all(pool, cnt, [&](size_t g, size_t t) { ls[g]->impl_->prepare_task(t); });
      each([&](Impl& s, const Rollout&, size_t g) {
        if (s.cfg.advantages == AdvantageTiming::kMinibatch) {
          cnt[g] = s.gae_setup();
        } else {
          s.gather_rollout_gae();
          cnt[g] = 0;
        }
      });
      run_all(pool, cnt, [&](size_t g, size_t t) { ls[g]->impl_->gae_task(t); });
      each([&](Impl& s, const Rollout& r, size_t g) {
        cnt[g] = s.loss_setup(r, s.mb_cols.data(), mb[g], s.grad.data());
      });
      run_all(pool, cnt, [&](size_t g, size_t t) { ls[g]->impl_->loss_task(t); });
      each([&](Impl& s, const Rollout&, size_t g) {
        LossStats st;
        const double total = s.loss_finish(&st);
        if (!std::isfinite(total)) {
          throw core::RunError("PPO update: non-finite loss at epoch " + std::to_string(e) +
                               ", minibatch " + std::to_string(k));
        }
        const double gn =
            adam_step(s.params, s.grad, s.adam_m, s.adam_v, ++s.step, s.cfg.learning_rate, 0.9,
                      0.999, s.cfg.adam_eps, s.cfg.weight_decay, s.cfg.max_grad_norm, s.pool,
                      s.cfg.grad_clip == GradClip::kElement);
        if (!std::isfinite(gn)) {
          throw core::RunError("PPO update: non-finite gradient at epoch " + std::to_string(e) +
                               ", minibatch " + std::to_string(k));
        }
        sum[g].add(st);
        grad_norm_sum[g] += gn;
      });
    }
  }
  std::vector<std::map<std::string, double>> out(G);
  each([&](Impl& s, const Rollout& r, size_t g) {
    // PowerZooJax's seed PPO trainer (nnx-ppo): the normalizer folds in the rollout's raw
    // observations after the update.
    if (s.cfg.normalize_obs) s.norm.merge(r.obs.data(), r.T * r.N);
    const double scale = 1.0 / (static_cast<double>(n_epochs) * n_mb);
    fill_metrics(sum[g], scale, out[g], s.n_costs > 0, !s.beta);
    out[g]["grad_norm"] = grad_norm_sum[g] * scale;
  });
  return out;
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
  if (metrics != nullptr) fill_metrics(st, 1.0, *metrics, s.n_costs > 0, !s.beta);
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
  if (metrics != nullptr) fill_metrics(st, 1.0, *metrics, s.n_costs > 0, !s.beta);
  return total;
}

}  // namespace pz::rl
