// Replay buffer: ring writes, uniform index sampling, gathers and checkpoint entries.
#include "powerzoo/rl/sac/replay.hpp"

#include <algorithm>

#include "powerzoo/core/error.hpp"

namespace pz::rl {

ReplayBuffer::ReplayBuffer(int capacity, int obs_dim, int act_dim)
    : capacity_(capacity), obs_dim_(obs_dim), act_dim_(act_dim) {
  if (capacity <= 0 || obs_dim <= 0 || act_dim <= 0)
    throw core::ConfigError("replay buffer needs capacity, obs_dim and act_dim > 0, got " +
                            std::to_string(capacity) + ", " + std::to_string(obs_dim) + ", " +
                            std::to_string(act_dim));
  const size_t c = static_cast<size_t>(capacity);
  obs_.resize(c * obs_dim);
  next_obs_.resize(c * obs_dim);
  act_.resize(c * act_dim);
  reward_.resize(c);
  done_.resize(c);
}

void ReplayBuffer::push(int n, const float* obs, const float* act, const float* reward,
                        const float* done, const float* next_obs) {
  const size_t od = obs_dim_, ad = act_dim_;
  for (int i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(pos_);
    std::copy_n(obs + i * od, od, &obs_[r * od]);
    std::copy_n(next_obs + i * od, od, &next_obs_[r * od]);
    std::copy_n(act + i * ad, ad, &act_[r * ad]);
    reward_[r] = reward[i];
    done_[r] = done[i];
    pos_ = pos_ + 1 == capacity_ ? 0 : pos_ + 1;
    size_ = std::min(size_ + 1, capacity_);
  }
}

void ReplayBuffer::sample_indices(int B, core::Rng& rng, int* idx) const {
  if (size_ == 0) throw core::RunError("replay buffer: sampling from an empty buffer");
  for (int j = 0; j < B; ++j) idx[j] = static_cast<int>(rng.below(static_cast<uint64_t>(size_)));
}

void ReplayBuffer::gather(const int* idx, int B, float* obs, float* act, float* reward, float* done,
                          float* next_obs) const {
  const size_t od = obs_dim_, ad = act_dim_;
  for (int j = 0; j < B; ++j) {
    const size_t r = static_cast<size_t>(idx[j]);
    std::copy_n(&obs_[r * od], od, obs + j * od);
    std::copy_n(&next_obs_[r * od], od, next_obs + j * od);
    std::copy_n(&act_[r * ad], ad, act + j * ad);
    reward[j] = reward_[r];
    done[j] = done_[r];
  }
}

void ReplayBuffer::save(core::StateDict& sd, const std::string& prefix) const {
  const size_t n = static_cast<size_t>(size_), od = obs_dim_, ad = act_dim_;
  sd.i64[prefix + "ring"] = {capacity_, obs_dim_, act_dim_, size_, pos_};
  sd.f32[prefix + "obs"].assign(obs_.begin(), obs_.begin() + n * od);
  sd.f32[prefix + "next_obs"].assign(next_obs_.begin(), next_obs_.begin() + n * od);
  sd.f32[prefix + "action"].assign(act_.begin(), act_.begin() + n * ad);
  sd.f32[prefix + "reward"].assign(reward_.begin(), reward_.begin() + n);
  sd.f32[prefix + "done"].assign(done_.begin(), done_.begin() + n);
}

void ReplayBuffer::load(const core::StateDict& sd, const std::string& prefix) {
  const auto rit = sd.i64.find(prefix + "ring");
  if (rit == sd.i64.end())
    throw core::ConfigError(core::absent_entry(sd, prefix + "ring", "int64"));
  if (rit == sd.i64.end() || rit->second.size() != 5)
    throw core::ConfigError("checkpoint: missing or malformed '" + prefix + "ring'");
  const auto& ring = rit->second;
  if (ring[0] != capacity_ || ring[1] != obs_dim_ || ring[2] != act_dim_)
    throw core::ConfigError("checkpoint: replay buffer of capacity " + std::to_string(ring[0]) +
                            " (obs " + std::to_string(ring[1]) + ", act " +
                            std::to_string(ring[2]) + ") does not match this learner's " +
                            std::to_string(capacity_) + " (obs " + std::to_string(obs_dim_) +
                            ", act " + std::to_string(act_dim_) + ")");
  const int64_t n = ring[3], pos = ring[4];
  if (n < 0 || n > capacity_ || pos < 0 || pos >= capacity_ || (n < capacity_ && pos != n))
    throw core::ConfigError("checkpoint: '" + prefix + "ring' has size " + std::to_string(n) +
                            " and position " + std::to_string(pos) + " for capacity " +
                            std::to_string(capacity_));
  auto get = [&](const char* name, size_t width) -> const std::vector<float>& {
    const auto it = sd.f32.find(prefix + name);
    if (it == sd.f32.end())
      throw core::ConfigError(core::absent_entry(sd, prefix + name, "float32"));
    if (it->second.size() != static_cast<size_t>(n) * width)
      throw core::ConfigError("checkpoint: '" + prefix + name + "' has " +
                              std::to_string(it->second.size()) + " values, expected " +
                              std::to_string(static_cast<size_t>(n) * width));
    return it->second;
  };
  const auto& o = get("obs", obs_dim_);
  const auto& no = get("next_obs", obs_dim_);
  const auto& a = get("action", act_dim_);
  const auto& r = get("reward", 1);
  const auto& d = get("done", 1);
  std::copy(o.begin(), o.end(), obs_.begin());
  std::copy(no.begin(), no.end(), next_obs_.begin());
  std::copy(a.begin(), a.end(), act_.begin());
  std::copy(r.begin(), r.end(), reward_.begin());
  std::copy(d.begin(), d.end(), done_.begin());
  size_ = static_cast<int>(n);
  pos_ = static_cast<int>(pos);
}

}  // namespace pz::rl
