// [output] trajectory_evals and trajectory_episodes: the evaluations and episodes run.h5 keeps.
#include "powerzoo/exp/run/trajectory_keep.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pz::exp {
namespace {

long long step_of(const std::map<std::string, double>& row) {
  const auto it = row.find("global_step");
  return it == row.end() ? -1 : static_cast<long long>(it->second);
}

// Columns [0, k) of each row of a [rows, n, width] array.
template <class V>
V first_columns(const V& a, size_t rows, size_t n, size_t k) {
  if (rows * n == 0 || a.size() % (rows * n) != 0) return a;
  const size_t width = a.size() / (rows * n);
  V out(rows * k * width);
  for (size_t r = 0; r < rows; ++r)
    std::copy_n(a.begin() + static_cast<std::ptrdiff_t>(r * n * width), k * width,
                out.begin() + static_cast<std::ptrdiff_t>(r * k * width));
  return out;
}

}  // namespace

std::set<long long> kept_trajectory_steps(const std::vector<std::map<std::string, double>>& rows,
                                          const std::string& policy) {
  std::set<long long> kept;
  if (rows.empty()) return kept;
  if (policy == "all") {
    for (const auto& row : rows) kept.insert(step_of(row));
    return kept;
  }
  // The same rule as the training loop's best.h5: a later evaluation is best only when strictly
  // better, so of equal returns the earliest stays best.
  double best = -std::numeric_limits<double>::infinity();
  long long best_step = step_of(rows.front());
  for (const auto& row : rows) {
    const auto it = row.find("shaped_return_mean");
    if (it != row.end() && it->second > best) best = it->second, best_step = step_of(row);
  }
  kept.insert(step_of(rows.front()));
  kept.insert(best_step);
  kept.insert(step_of(rows.back()));
  return kept;
}

vec::CollectRecord first_episodes(const vec::CollectRecord& r, long long episodes) {
  if (episodes <= 0 || episodes >= r.N) return r;
  const size_t T = static_cast<size_t>(r.T), N = static_cast<size_t>(r.N);
  const size_t k = static_cast<size_t>(episodes);
  vec::CollectRecord out = r;
  out.N = static_cast<int>(k);
  out.obs = first_columns(r.obs, T, N, k);
  out.action = first_columns(r.action, T, N, k);
  out.reward = first_columns(r.reward, T, N, k);
  out.costs = first_columns(r.costs, T, N, k);
  out.terminated = first_columns(r.terminated, T, N, k);
  out.truncated = first_columns(r.truncated, T, N, k);
  out.trace = first_columns(r.trace, T, N, k);
  out.trace_vec = first_columns(r.trace_vec, T, N, k);
  out.final_obs = first_columns(r.final_obs, 1, N, k);
  return out;
}

}  // namespace pz::exp
