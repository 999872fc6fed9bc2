// Replay buffer of an off-policy learner: a ring of transitions (obs, action, reward, done,
// next_obs) with uniform sampling and checkpointing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"

namespace pz::rl {

/// A circular buffer of `capacity` transitions (Rejax 0.1.2's ReplayBuffer). Rows are
/// written at pos(), which advances by one per transition and wraps to 0 at capacity, so once
/// full the oldest transition is overwritten first. Observations are stored raw.
class ReplayBuffer {
 public:
  ReplayBuffer() = default;
  /// Throws core::ConfigError unless capacity, obs_dim and act_dim are > 0.
  ReplayBuffer(int capacity, int obs_dim, int act_dim);

  /// Appends n transitions: obs, next_obs [n, obs_dim], act [n, act_dim], reward, done [n]
  /// (done = 1: no bootstrap from next_obs).
  void push(int n, const float* obs, const float* act, const float* reward, const float* done,
            const float* next_obs);

  int capacity() const { return capacity_; }
  int size() const { return size_; }  ///< stored transitions, ≤ capacity
  int pos() const { return pos_; }    ///< row the next transition goes to
  int obs_dim() const { return obs_dim_; }
  int act_dim() const { return act_dim_; }

  /// B row indices drawn uniformly from [0, size()) with replacement, one rng.below per index in
  /// order. Throws core::RunError if the buffer is empty.
  void sample_indices(int B, core::Rng& rng, int* idx) const;
  /// Copies rows idx [B] into obs, next_obs [B, obs_dim], act [B, act_dim], reward, done [B].
  void gather(const int* idx, int B, float* obs, float* act, float* reward, float* done,
              float* next_obs) const;

  /// The filled rows and the ring position under prefix ("learner/replay/").
  void save(core::StateDict& sd, const std::string& prefix) const;
  /// Inverse of save(); throws core::ConfigError if the entries are missing or do not fit this
  /// buffer's capacity and dimensions (the buffer is unchanged then).
  void load(const core::StateDict& sd, const std::string& prefix);

 private:
  int capacity_ = 0, obs_dim_ = 0, act_dim_ = 0;
  int size_ = 0, pos_ = 0;
  std::vector<float> obs_, act_, reward_, done_, next_obs_;
};

}  // namespace pz::rl
