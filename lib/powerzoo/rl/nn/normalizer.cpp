// Running observation normalizer: batched Welford/Chan merge, clipped standardization (as
// Stable-Baselines3's RunningMeanStd).
#include "powerzoo/rl/nn/normalizer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/nn/tensor_impl.hpp"

namespace pz::rl {

ObsNormalizer::ObsNormalizer(int dim)
    : dim_(dim), mean_(dim, 0.0), m2_(dim, 0.0), scale_(dim, 1.0f), shift_(dim, 0.0f) {}

void ObsNormalizer::refresh() {
  for (int d = 0; d < dim_; ++d) {
    if (count_ > 0) {
      shift_[d] = static_cast<float>(mean_[d]);
      scale_[d] = static_cast<float>(1.0 / std::sqrt(std::max(m2_[d] / count_, 1e-6)));
    } else {
      shift_[d] = 0.0f;
      scale_[d] = 1.0f;
    }
  }
}

// Row by row as one vectorized expression over [dim] (x may equal out).
void ObsNormalizer::normalize(const float* x, int n, float* out) const {
  const size_t d = static_cast<size_t>(dim_);
  const auto shift = rl::detail::vec(shift_.data(), d);
  const auto scale = rl::detail::vec(scale_.data(), d);
  for (int i = 0; i < n; ++i) {
    auto oi = rl::detail::vec(out + static_cast<size_t>(i) * d, d);
    const auto xi = rl::detail::vec(x + static_cast<size_t>(i) * d, d);
    xt::noalias(oi) = xt::clip((xi - shift) * scale, -10.0f, 10.0f);
  }
}

// Chan, Golub & LeVeque (1979) pairwise update: with batch statistics (n, μ_b, M2_b),
// count' = count + n, μ' = μ + (μ_b − μ)·n/count', M2' = M2 + M2_b + (μ_b − μ)²·count·n/count'.
void ObsNormalizer::merge(const float* x, int n) {
  if (n <= 0) return;
  std::vector<double> mb(dim_, 0.0), m2b(dim_, 0.0);
  for (int i = 0; i < n; ++i) {
    const float* xi = x + static_cast<size_t>(i) * dim_;
    for (int d = 0; d < dim_; ++d) mb[d] += xi[d];
  }
  for (int d = 0; d < dim_; ++d) mb[d] /= n;
  for (int i = 0; i < n; ++i) {
    const float* xi = x + static_cast<size_t>(i) * dim_;
    for (int d = 0; d < dim_; ++d) {
      const double e = xi[d] - mb[d];
      m2b[d] += e * e;
    }
  }
  const double total = count_ + n;
  for (int d = 0; d < dim_; ++d) {
    const double delta = mb[d] - mean_[d];
    mean_[d] += delta * n / total;
    m2_[d] += m2b[d] + delta * delta * count_ * n / total;
  }
  count_ = total;
  refresh();
}

void ObsNormalizer::save(core::StateDict& sd, const std::string& prefix) const {
  sd.f64[prefix + "count"] = {count_};
  sd.f64[prefix + "mean"] = mean_;
  sd.f64[prefix + "m2"] = m2_;
}

void ObsNormalizer::load(const core::StateDict& sd, const std::string& prefix) {
  auto get = [&](const std::string& name, size_t size) -> const std::vector<double>& {
    auto it = sd.f64.find(prefix + name);
    if (it == sd.f64.end())
      throw core::ConfigError(core::absent_entry(sd, prefix + name, "float64"));
    if (it->second.size() != size) {
      throw core::ConfigError("checkpoint: '" + prefix + name + "' has " +
                              std::to_string(it->second.size()) + " values, expected " +
                              std::to_string(size));
    }
    return it->second;
  };
  const auto& count = get("count", 1);
  const auto& mean = get("mean", dim_);
  const auto& m2 = get("m2", dim_);
  // A negative count or sum of squares gives a NaN scale (sqrt of a negative variance) that
  // poisons every observation; a checkpoint holding one is corrupt.
  if (!(count[0] >= 0))
    throw core::ConfigError("checkpoint: '" + prefix + "count' expected >= 0, found " +
                            std::to_string(count[0]));
  for (size_t d = 0; d < m2.size(); ++d)
    if (!(m2[d] >= 0) || (count[0] == 0 && m2[d] != 0))
      throw core::ConfigError("checkpoint: '" + prefix + "m2' [" + std::to_string(d) +
                              "] expected >= 0 (0 while count is 0), found " +
                              std::to_string(m2[d]));
  count_ = count[0];
  mean_ = mean;
  m2_ = m2;
  refresh();
}

// SB3 RunningMeanStd.update_from_moments (parallel algorithm of Chan et al.) on the batch of
// discounted returns, then VecNormalize.normalize_reward.
void RewardNormalizer::normalize(const float* rewards, const uint8_t* dones, int n, float* out) {
  if (ret_.empty()) ret_.assign(n, 0.0);
  if (static_cast<int>(ret_.size()) != n)
    throw core::ConfigError("reward normalizer: expected " + std::to_string(ret_.size()) +
                            " envs per step, found " + std::to_string(n));
  double bm = 0;
  for (int i = 0; i < n; ++i) {
    ret_[i] = ret_[i] * gamma_ + rewards[i];
    bm += ret_[i];
  }
  bm /= n;
  double bv = 0;
  for (int i = 0; i < n; ++i) bv += (ret_[i] - bm) * (ret_[i] - bm);
  bv /= n;
  const double tot = count_ + n;
  const double delta = bm - mean_;
  const double m2 = var_ * count_ + bv * n + delta * delta * count_ * n / tot;
  mean_ += delta * n / tot;
  var_ = m2 / tot;
  count_ = tot;
  const double inv = 1.0 / std::sqrt(var_ + 1e-8);
  for (int i = 0; i < n; ++i) {
    out[i] = static_cast<float>(std::clamp(rewards[i] * inv, -10.0, 10.0));
    if (dones[i]) ret_[i] = 0.0;
  }
}

void RewardNormalizer::save(core::StateDict& sd, const std::string& prefix) const {
  sd.f64[prefix + "moments"] = {count_, mean_, var_};
  sd.f64[prefix + "returns"] = ret_;
}

void RewardNormalizer::load(const core::StateDict& sd, const std::string& prefix) {
  auto mo = sd.f64.find(prefix + "moments");
  if (mo == sd.f64.end())
    throw core::ConfigError(core::absent_entry(sd, prefix + "moments", "float64"));
  auto re = sd.f64.find(prefix + "returns");
  if (re == sd.f64.end())
    throw core::ConfigError(core::absent_entry(sd, prefix + "returns", "float64"));
  if (mo == sd.f64.end() || mo->second.size() != 3 || re == sd.f64.end())
    throw core::ConfigError("checkpoint: missing or malformed '" + prefix +
                            "moments' / 'returns' (reward normalizer)");
  if (!(mo->second[0] >= 0) || !(mo->second[2] >= 0))
    throw core::ConfigError(
        "checkpoint: '" + prefix + "moments' expected count >= 0 and variance >= 0, found count " +
        std::to_string(mo->second[0]) + ", variance " + std::to_string(mo->second[2]));
  count_ = mo->second[0];
  mean_ = mo->second[1];
  var_ = mo->second[2];
  ret_ = re->second;
}

}  // namespace pz::rl
