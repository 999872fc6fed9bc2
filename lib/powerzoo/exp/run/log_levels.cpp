// Level of each train column, level filter, percentiles and weight statistics.
#include "powerzoo/exp/run/log_levels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace pz::exp {

std::string metric_level(std::string_view c) {
  if (c.starts_with("group/")) {
    const size_t slash = c.find('/', 6);
    if (slash != std::string_view::npos) c = c.substr(slash + 1);
  }
  if (c.starts_with("throughput/")) return "throughput";
  if (c.starts_with("grad_norm")) return "grad_norm";
  if (c.starts_with("weights/")) return "weights";
  if (c.starts_with("policy/") || c == "sac/alpha") return "actor_extra";
  if (c == "sac/q_mean") return "critic_extra";
  if (c.starts_with("losses/")) {
    const std::string_view k = c.substr(7);
    if (k == "approx_kl" || k == "clipping_fraction") return "actor_extra";
    if (k.find("R^2") != std::string_view::npos) return "critic_extra";
    return "losses";
  }
  return "";
}

std::map<std::string, double> filter_levels(const std::map<std::string, double>& row,
                                            const std::vector<std::string>& levels) {
  std::map<std::string, double> out;
  for (const auto& [k, v] : row) {
    const std::string level = metric_level(k);
    if (level.empty() || std::find(levels.begin(), levels.end(), level) != levels.end())
      out.emplace(k, v);
  }
  return out;
}

double percentile(std::vector<double> x, double q) {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(x.begin(), x.end());
  const double pos = q / 100.0 * static_cast<double>(x.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, x.size() - 1);
  return x[lo] + (pos - static_cast<double>(lo)) * (x[hi] - x[lo]);
}

std::string percentile_name(double q) {
  std::ostringstream os;
  os << "p" << q;
  return os.str();
}

void add_percentiles(std::map<std::string, double>& row, const std::string& prefix,
                     const std::string& suffix, const std::vector<double>& x,
                     const std::vector<double>& qs) {
  for (double q : qs) row[prefix + percentile_name(q) + suffix] = percentile(x, q);
}

void add_weight_stats(std::map<std::string, double>& row,
                      const std::vector<std::span<const float>>& params,
                      const std::vector<double>& qs) {
  double n = 0, sum = 0, sq = 0, amax = 0;
  for (const auto& p : params)
    for (float w : p) {
      n += 1;
      sum += w;
      sq += static_cast<double>(w) * w;
      amax = std::max(amax, std::abs(static_cast<double>(w)));
    }
  if (n == 0) return;
  const double mean = sum / n;
  row["weights/mean"] = mean;
  row["weights/std"] = std::sqrt(std::max(sq / n - mean * mean, 0.0));
  row["weights/abs_max"] = amax;
  if (qs.empty()) return;
  std::vector<double> all;
  all.reserve(static_cast<size_t>(n));
  for (const auto& p : params) all.insert(all.end(), p.begin(), p.end());
  add_percentiles(row, "weights/", "", all, qs);
}

}  // namespace pz::exp
