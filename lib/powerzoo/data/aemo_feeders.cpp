// AEMO regional demand as DSO feeder shapes (see aemo_feeders.hpp).
#include "powerzoo/data/aemo_feeders.hpp"

#include <algorithm>
#include <cmath>

#include "powerzoo/core/error.hpp"

namespace pz::data {

AemoFeeders load_aemo_feeders(const std::string& path, const std::vector<std::string>& regions) {
  AemoFeeders d;
  d.path = path;
  d.regions = regions;
  std::vector<std::vector<double>> raw;
  for (const std::string& r : regions) {
    Profile p = load_profile_csv(d.path, "interval_end_utc", r, 1800, 7200);
    // The file stamps interval ENDS: values[i] is the interval ending at t0 + i·30 min, so the
    // interval starting at t0 + j·30 min is values[j + 1].
    std::vector<double> s(p.values.begin() + (p.values.empty() ? 0 : 1), p.values.end());
    raw.push_back(std::move(s));
    d.reports.push_back(p.report);
    d.t0_unix = p.t0_unix;
  }
  size_t n = raw.empty() ? 0 : raw[0].size();
  for (const auto& s : raw) n = std::min(n, s.size());
  for (int64_t j = kAemoDayOffset, day = 0; j + kAemoDaySteps <= static_cast<int64_t>(n);
       j += kAemoDaySteps, ++day) {
    bool complete = true;
    for (const auto& s : raw)
      for (int k = 0; k < kAemoDaySteps; ++k) complete = complete && std::isfinite(s[j + k]);
    if (complete) (day % kAemoIidStride == 0 ? d.iid_starts : d.train_starts).push_back(j);
  }
  if (d.train_starts.empty() || d.iid_starts.empty())
    throw core::ConfigError(d.path + ": expected complete days for both DSO splits");
  for (auto& s : raw) {
    double sum = 0;
    for (int64_t j : d.train_starts)
      for (int k = 0; k < kAemoDaySteps; ++k) sum += s[j + k];
    const double mean = sum / (static_cast<double>(d.train_starts.size()) * kAemoDaySteps);
    d.train_mean_mw.push_back(mean);
    for (double& v : s) v = std::isfinite(v) ? v / mean : 1.0;
    d.shapes.push_back(std::move(s));
  }
  return d;
}

}  // namespace pz::data
