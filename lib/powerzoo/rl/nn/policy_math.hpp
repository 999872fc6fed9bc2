// Internal to rl: closed forms shared by the Gaussian policies (PPO's, SAC's squashed one).
#pragma once

#include <cmath>

namespace pz::rl {

inline constexpr double kHalfLog2Pi = 0.91893853320467274178;   // ½·log(2π)
inline constexpr double kHalfLog2PiE = 1.41893853320467274178;  // ½·log(2πe)

/// log(1 − tanh²u) = 2(log 2 − u − softplus(−2u)), stable for large |u| (as Stable-Baselines3's
/// RunningMeanStd).
inline double log1m_tanh2(double u) {
  constexpr double kLog2 = 0.69314718055994530942;
  const double x = -2.0 * u;
  const double softplus = x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  return 2.0 * (kLog2 - u - softplus);
}

}  // namespace pz::rl
