// SAC learner (Haarnoja et al. 2018, arXiv:1812.05905, as Rejax 0.1.2): construction, acting with
// the squashed Gaussian, replay pushes, the per-vector-step update (gradient steps, Polyak) and the
// registration of "sac". The losses are in sac_loss.cpp, parameters and checkpoints in
// sac_state.cpp.
#include "powerzoo/rl/sac/sac.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/rl/action_box.hpp"
#include "powerzoo/rl/nn/policy_math.hpp"
#include "powerzoo/rl/sac/sac_impl.hpp"

namespace pz::rl {
namespace {

/// Rows per block of act(): batches under twice this run on the calling thread.
constexpr int kMinActRows = 24;

template <class T>
void grow(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

}  // namespace

SacLearner::SacLearner(int obs_dim, int act_dim, const PpoConfig& ppo, const SacConfig& sac,
                       core::Rng& init_rng)
    : impl_(std::make_unique<Impl>()) {
  if (obs_dim <= 0 || act_dim <= 0)
    throw core::ConfigError("SAC learner needs obs_dim > 0 and act_dim > 0, got " +
                            std::to_string(obs_dim) + ", " + std::to_string(act_dim));
  for (int h : ppo.hidden)
    if (h <= 0) throw core::ConfigError("SAC hidden layer sizes must be > 0");
  if (sac.batch_size <= 0 || sac.num_epochs <= 0 || !(sac.tau > 0 && sac.tau <= 1) ||
      !(sac.init_alpha > 0))
    throw core::ConfigError("SAC needs batch_size > 0, num_epochs > 0, tau in (0, 1], alpha > 0");
  Impl& s = *impl_;
  s.obs_dim = obs_dim;
  s.act_dim = act_dim;
  s.ppo = ppo;
  s.sac = sac;
  s.loc.assign(act_dim, 0.0);
  s.scale.assign(act_dim, 1.0);
  s.actor = detail::Mlp(obs_dim, ppo.hidden, 2 * act_dim, 0, sac.activation);
  s.critic[0] = detail::Mlp(obs_dim + act_dim, ppo.hidden, 1, 0, sac.activation);
  s.critic[1] =
      detail::Mlp(obs_dim + act_dim, ppo.hidden, 1, s.critic[0].n_params(), sac.activation);
  const size_t pa = s.actor.n_params(), pc = 2 * s.critic[0].n_params();
  s.actor_p.assign(pa, 0.0f);
  s.critic_p.assign(pc, 0.0f);
  s.actor.init(s.actor_p.data(), init_rng, 1.0f);
  s.critic[0].init(s.critic_p.data(), init_rng, 1.0f);
  s.critic[1].init(s.critic_p.data(), init_rng, 1.0f);
  s.target_p = s.critic_p;
  s.actor_g.assign(pa, 0.0f);
  s.actor_m.assign(pa, 0.0f);
  s.actor_v.assign(pa, 0.0f);
  s.critic_g.assign(pc, 0.0f);
  s.critic_m.assign(pc, 0.0f);
  s.critic_v.assign(pc, 0.0f);
  s.log_alpha[0] = static_cast<float>(std::log(sac.init_alpha));
  s.norm = ObsNormalizer(obs_dim);
  s.replay = ReplayBuffer(sac.buffer_size, obs_dim, act_dim);
}

SacLearner::~SacLearner() = default;
SacLearner::SacLearner(SacLearner&&) noexcept = default;
SacLearner& SacLearner::operator=(SacLearner&&) noexcept = default;

double SacLearner::Impl::alpha() const { return std::exp(double(log_alpha[0])); }

void SacLearner::Impl::run(int n, const std::function<void(size_t)>& fn) {
  if (pool != nullptr && n > 1) {
    pool->run_blocks(static_cast<size_t>(n), fn);
  } else {
    for (int b = 0; b < n; ++b) fn(static_cast<size_t>(b));
  }
}

void SacLearner::Impl::normalize_rows(const float* x, int n, float* out) const {
  if (ppo.normalize_obs) {
    norm.normalize(x, n, out);
  } else {
    std::copy(x, x + static_cast<size_t>(n) * obs_dim, out);
  }
}

double SacLearner::Impl::squash_row(const float* h, const float* xi, float* a) const {
  const int A = act_dim;
  double lp = 0.0;
  for (int d = 0; d < A; ++d) {
    const double mu = h[d];
    if (xi == nullptr) {
      a[d] = static_cast<float>(loc[d] + scale[d] * std::tanh(mu));
      continue;
    }
    const double ls = std::clamp(double(h[A + d]), kSacLogStdMin, kSacLogStdMax);
    const double u = mu + std::exp(ls) * double(xi[d]);
    lp += -0.5 * double(xi[d]) * double(xi[d]) - ls - kHalfLog2Pi - log1m_tanh2(u);
    a[d] = static_cast<float>(loc[d] + scale[d] * std::tanh(u));
  }
  return lp;
}

const std::string& SacLearner::name() const { return impl_->name; }

void SacLearner::act(const float* obs, int n, core::Rng* rng, float* actions) {
  Impl& s = *impl_;
  if (n <= 0) return;
  const int A = s.act_dim;
  grow(s.act_obs, static_cast<size_t>(n) * s.obs_dim);
  grow(s.act_h, static_cast<size_t>(n) * 2 * A);
  s.normalize_rows(obs, n, s.act_obs.data());
  const int nb = std::clamp(n / kMinActRows, 1, 4);
  if (static_cast<int>(s.act_blocks.size()) < nb) s.act_blocks.resize(nb);
  s.run(nb, [&](size_t b) {
    const int r0 = n * static_cast<int>(b) / nb, r1 = n * (static_cast<int>(b) + 1) / nb;
    const float* h = s.actor.forward(s.actor_p.data(), &s.act_obs[size_t(r0) * s.obs_dim], r1 - r0,
                                     s.act_blocks[b].actor);
    std::copy_n(h, size_t(r1 - r0) * 2 * A, &s.act_h[size_t(r0) * 2 * A]);
  });
  std::vector<float> xi(rng != nullptr ? A : 0);
  for (int i = 0; i < n; ++i) {
    for (float& x : xi) x = static_cast<float>(rng->normal());
    s.squash_row(&s.act_h[size_t(i) * 2 * A], rng != nullptr ? xi.data() : nullptr,
                 actions + size_t(i) * A);
  }
}

void SacLearner::collect_act(const float* obs, int n, core::Rng& rng, float* actions) {
  act(obs, n, &rng, actions);
}

void SacLearner::observe(const core::StepView& st) {
  Impl& s = *impl_;
  const int N = st.n;
  if (st.obs_dim != s.obs_dim || st.act_dim != s.act_dim || st.n_agents != 1)
    throw core::ConfigError("SAC observe: step of " + std::to_string(N) + " envs x " +
                            std::to_string(st.n_agents) + " agents, obs_dim " +
                            std::to_string(st.obs_dim) + ", act_dim " + std::to_string(st.act_dim) +
                            " does not match the learner");
  const size_t od = s.obs_dim;
  grow(s.push_done, static_cast<size_t>(N));
  grow(s.push_next, static_cast<size_t>(N) * od);
  for (int i = 0; i < N; ++i) {
    // A time limit is not a terminal state: bootstrap from the pre-reset observation.
    const bool ended = st.terminated[i] || st.truncated[i];
    s.push_done[i] = st.terminated[i] ? 1.0f : 0.0f;
    const float* next = ended ? st.final_obs + i * od : st.next_obs + i * od;
    std::copy_n(next, od, &s.push_next[i * od]);
  }
  s.replay.push(N, st.obs, st.actions, st.shaped_reward, s.push_done.data(), s.push_next.data());
  s.pushed += N;
  if (s.ppo.normalize_obs) s.norm.merge(st.next_obs, N);
}

int SacLearner::collect_steps() const { return impl_->ppo.rollout_length; }

namespace {

/// Fills b (resized, its buffers reused) with batch_size transitions drawn from the replay.
void sample_into(const ReplayBuffer& replay, int B, core::Rng& rng, std::vector<int>& idx,
                 SacBatch& b) {
  b.B = B;
  b.obs.resize(size_t(B) * replay.obs_dim());
  b.next_obs.resize(size_t(B) * replay.obs_dim());
  b.act.resize(size_t(B) * replay.act_dim());
  b.reward.resize(B);
  b.done.resize(B);
  idx.resize(B);
  replay.sample_indices(B, rng, idx.data());
  replay.gather(idx.data(), B, b.obs.data(), b.act.data(), b.reward.data(), b.done.data(),
                b.next_obs.data());
}

}  // namespace

SacBatch SacLearner::sample_batch(core::Rng& rng) const {
  const Impl& s = *impl_;
  SacBatch b;
  std::vector<int> idx;
  sample_into(s.replay, s.sac.batch_size, rng, idx, b);
  return b;
}

std::map<std::string, double> SacLearner::update(core::Rng& rng) {
  Impl& s = *impl_;
  std::map<std::string, double> out;
  // Rejax: train once global_step (transitions so far, after this step's push) > fill_buffer.
  if (s.pushed > s.sac.learning_starts) {
    for (int e = 0; e < s.sac.num_epochs; ++e) {
      sample_into(s.replay, s.sac.batch_size, rng, s.batch_idx, s.batch);
      for (const auto& [k, v] : gradient_step(s.batch, rng)) out[k] += v / s.sac.num_epochs;
    }
    out["sac/replay_size"] = s.replay.size();
  }
  polyak_update();
  return out;
}

std::map<std::string, double> SacLearner::gradient_step(const SacBatch& b, core::Rng& rng) {
  Impl& s = *impl_;
  const size_t n = static_cast<size_t>(b.B) * s.act_dim;
  s.noise_buf.resize(n);
  s.next_noise_buf.resize(n);
  for (auto& x : s.noise_buf) x = static_cast<float>(rng.normal());
  for (auto& x : s.next_noise_buf) x = static_cast<float>(rng.normal());
  auto finite = [&](double v, const char* what) {
    if (!std::isfinite(v))
      throw core::RunError(std::string("SAC update: non-finite ") + what + " at gradient step " +
                           std::to_string(s.grad_steps));
  };
  std::map<std::string, double> m;
  std::vector<float>& logp = s.logp_buf;
  // The losses leave their row blocks' gradients unreduced: reduce_optimize adds them in the
  // same pass as the clamp and the Adam step.
  s.defer_reduce = true;
  struct Restore {
    Impl& s;
    ~Restore() { s.defer_reduce = false; }
  } restore{s};
  const double l_actor = actor_loss(b, s.noise_buf, &s.actor_g, &logp);
  finite(l_actor, "actor loss");
  m["grad_norm/actor"] = s.reduce_optimize(s.loss_blocks, &SacBlock::grad_actor, s.actor_p,
                                           s.actor_g, s.actor_m, s.actor_v, s.actor_step);
  double q_mean = 0.0;
  const double l_q = critic_loss(b, s.next_noise_buf, &s.critic_g, &q_mean);  // updated actor
  finite(l_q, "critic loss");
  m["grad_norm/critic"] = s.reduce_optimize(s.loss_blocks, &SacBlock::grad_critic, s.critic_p,
                                            s.critic_g, s.critic_m, s.critic_v, s.critic_step);
  double dla = 0.0;
  const double l_alpha = alpha_loss(logp, &dla);
  s.alpha_g[0] = static_cast<float>(dla);
  s.optimize(s.log_alpha, s.alpha_g, s.alpha_m, s.alpha_v, s.alpha_step);
  ++s.grad_steps;
  double lp_mean = 0.0;
  for (int i = 0; i < b.B; ++i) lp_mean += logp[i];
  lp_mean /= b.B;
  m["losses/actor_loss"] = l_actor;
  m["losses/q_loss"] = l_q;
  m["losses/alpha_loss"] = l_alpha;
  m["losses/entropy"] = -lp_mean;
  m["sac/alpha"] = s.alpha();
  m["sac/q_mean"] = q_mean;
  m["policy/log_std_mean"] = s.log_std_mean;
  return m;
}

void SacLearner::set_action_box(const std::vector<float>& low, const std::vector<float>& high) {
  Impl& s = *impl_;
  check_action_box("SAC", s.act_dim, low, high, "sac");
  for (size_t d = 0; d < low.size(); ++d) {
    s.loc[d] = 0.5 * (double(high[d]) + double(low[d]));
    s.scale[d] = 0.5 * (double(high[d]) - double(low[d]));
  }
}

void SacLearner::set_pool(core::ThreadPool* pool) { impl_->pool = pool; }

void SacLearner::set_context(const LearnerContext& ctx) {
  if (!ctx.act_low.empty() || !ctx.act_high.empty()) set_action_box(ctx.act_low, ctx.act_high);
  set_pool(ctx.pool);
}

}  // namespace pz::rl
