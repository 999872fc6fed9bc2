// SAC learner state: flat parameters of the actor, the critics and their targets, the temperature,
// checkpoint save/load (optimizers, counters, normalizer, replay buffer).
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/sac/sac.hpp"
#include "powerzoo/rl/sac/sac_impl.hpp"

namespace pz::rl {
namespace {

const std::string kPrefix = "learner/";

void set_flat(std::vector<float>& dst, const std::vector<float>& src, const char* what) {
  if (src.size() != dst.size())
    throw core::ConfigError(std::string("SAC ") + what + ": got " + std::to_string(src.size()) +
                            " values, expected " + std::to_string(dst.size()));
  dst = src;
}

}  // namespace

std::vector<float> SacLearner::actor_parameters() const { return impl_->actor_p; }
void SacLearner::set_actor_parameters(const std::vector<float>& p) {
  set_flat(impl_->actor_p, p, "actor parameters");
}
std::vector<float> SacLearner::critic_parameters() const { return impl_->critic_p; }
void SacLearner::set_critic_parameters(const std::vector<float>& p) {
  set_flat(impl_->critic_p, p, "critic parameters");
}
std::vector<float> SacLearner::target_critic_parameters() const { return impl_->target_p; }
void SacLearner::set_target_critic_parameters(const std::vector<float>& p) {
  set_flat(impl_->target_p, p, "target critic parameters");
}
double SacLearner::log_alpha() const { return impl_->log_alpha[0]; }
void SacLearner::set_log_alpha(double log_alpha) {
  impl_->log_alpha[0] = static_cast<float>(log_alpha);
}
double SacLearner::target_entropy() const {
  return impl_->sac.target_entropy_per_dim * impl_->act_dim;
}
int64_t SacLearner::gradient_steps() const { return impl_->grad_steps; }
int64_t SacLearner::transitions_seen() const { return impl_->pushed; }
ObsNormalizer& SacLearner::normalizer() { return impl_->norm; }
const ReplayBuffer& SacLearner::replay() const { return impl_->replay; }

namespace {

// The shapes a checkpoint must match: obs, act, hidden…, activation, buffer capacity.
std::vector<int64_t> layout_of(int obs_dim, int act_dim, const PpoConfig& ppo,
                               const SacConfig& sac) {
  std::vector<int64_t> l = {obs_dim, act_dim};
  for (int h : ppo.hidden) l.push_back(h);
  l.push_back(sac.activation == Activation::kRelu ? -1 : -2);  // negative: not a hidden size
  l.push_back(sac.buffer_size);
  return l;
}

// The flat arrays of the learner, by checkpoint name.
template <class Impl>
auto arrays(Impl& s) {
  return std::vector<std::pair<std::string, decltype(&s.actor_p)>>{
      {"actor", &s.actor_p},
      {"critic", &s.critic_p},
      {"critic_target", &s.target_p},
      {"log_alpha", &s.log_alpha},
      {"adam/actor/m", &s.actor_m},
      {"adam/actor/v", &s.actor_v},
      {"adam/critic/m", &s.critic_m},
      {"adam/critic/v", &s.critic_v},
      {"adam/log_alpha/m", &s.alpha_m},
      {"adam/log_alpha/v", &s.alpha_v}};
}

}  // namespace

void SacLearner::trainable_parameters(std::vector<std::span<const float>>& out) const {
  out.emplace_back(impl_->actor_p);
  out.emplace_back(impl_->critic_p);
  out.emplace_back(impl_->log_alpha);
}

void SacLearner::save(core::StateDict& sd) const {
  const Impl& s = *impl_;
  sd.i64[kPrefix + "sac/layout"] = layout_of(s.obs_dim, s.act_dim, s.ppo, s.sac);
  for (const auto& [name, v] : arrays(s)) sd.f32[kPrefix + name] = *v;
  sd.i64[kPrefix + "sac/counters"] = {s.actor_step, s.critic_step, s.alpha_step, s.pushed,
                                      s.grad_steps};
  s.norm.save(sd, kPrefix + "normalizer/");
  s.replay.save(sd, kPrefix + "replay/");
}

void SacLearner::load(const core::StateDict& sd) {
  Impl& s = *impl_;
  const auto lit = sd.i64.find(kPrefix + "sac/layout");
  if (lit == sd.i64.end())
    throw core::ConfigError(core::absent_entry(sd, kPrefix + "sac/layout", "int64"));
  if (lit == sd.i64.end() || lit->second != layout_of(s.obs_dim, s.act_dim, s.ppo, s.sac))
    throw core::ConfigError(
        "checkpoint: SAC learner layout (obs_dim, act_dim, hidden…, activation, buffer_size) "
        "missing or different from this learner");
  // Validate everything on copies before touching the learner.
  std::vector<std::vector<float>> values;
  for (const auto& [name, v] : arrays(s)) {
    const auto it = sd.f32.find(kPrefix + name);
    if (it == sd.f32.end())
      throw core::ConfigError(core::absent_entry(sd, kPrefix + name, "float32"));
    if (it->second.size() != v->size())
      throw core::ConfigError("checkpoint: '" + kPrefix + name + "' has " +
                              std::to_string(it->second.size()) + " values, expected " +
                              std::to_string(v->size()));
    values.push_back(it->second);
  }
  const auto cit = sd.i64.find(kPrefix + "sac/counters");
  if (cit == sd.i64.end())
    throw core::ConfigError(core::absent_entry(sd, kPrefix + "sac/counters", "int64"));
  if (cit == sd.i64.end() || cit->second.size() != 5)
    throw core::ConfigError("checkpoint: missing or malformed '" + kPrefix + "sac/counters'");
  ObsNormalizer norm(s.obs_dim);
  norm.load(sd, kPrefix + "normalizer/");
  ReplayBuffer replay(s.sac.buffer_size, s.obs_dim, s.act_dim);
  replay.load(sd, kPrefix + "replay/");
  size_t k = 0;
  for (const auto& [name, v] : arrays(s)) *v = std::move(values[k++]);
  const auto& c = cit->second;
  s.actor_step = c[0], s.critic_step = c[1], s.alpha_step = c[2], s.pushed = c[3];
  s.grad_steps = c[4];
  s.norm = std::move(norm);
  s.replay = std::move(replay);
}

}  // namespace pz::rl
