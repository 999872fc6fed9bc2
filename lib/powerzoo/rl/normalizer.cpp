// Running observation normalizer: batched Welford/Chan merge, clipped standardization (rl.md
// §1.10).
#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/ppo.hpp"

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

void ObsNormalizer::normalize(const float* x, int n, float* out) const {
  for (int i = 0; i < n; ++i) {
    const float* xi = x + static_cast<size_t>(i) * dim_;
    float* oi = out + static_cast<size_t>(i) * dim_;
    for (int d = 0; d < dim_; ++d) {
      oi[d] = std::clamp((xi[d] - shift_[d]) * scale_[d], -10.0f, 10.0f);
    }
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
    if (it == sd.f64.end()) throw core::ConfigError("checkpoint: missing '" + prefix + name + "'");
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
  count_ = count[0];
  mean_ = mean;
  m2_ = m2;
  refresh();
}

}  // namespace pz::rl
