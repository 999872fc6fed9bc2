// AEMO regional demand as the DSO task's feeder shapes: interval-start alignment, market-day
// splits (every 4th day iid) and normalization by the train mean.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "powerzoo/data/profile.hpp"

namespace pz::data {

constexpr int kAemoDaySteps = 48;   ///< half-hour steps per market day (= DSO episode)
constexpr int kAemoDayOffset = 28;  ///< 00:00 NEM market time (UTC+10) = 14:00 UTC = step 28
constexpr int kAemoIidStride = 4;   ///< market day index ≡ 0 (mod 4) is iid, the rest train

/// Feeder shapes built from one AEMO half-hourly demand file.
struct AemoFeeders {
  std::string path;
  int64_t t0_unix = 0;  ///< seconds since epoch of shapes[·][0]'s interval start (00:00 UTC)
  std::vector<std::string> regions;  ///< one region column per shape, e.g. NSW1, QLD1, VIC1
  /// shapes[r][j]: demand of region r in the interval starting at t0 + j·30 min (t0 = 00:00 UTC
  /// of the first day in the file) over its train mean (dimensionless, mean 1 on train); 1.0
  /// where the data stays missing.
  std::vector<std::vector<double>> shapes;
  std::vector<int64_t> train_starts;  ///< start steps (indices into shapes) of complete train days
  std::vector<int64_t> iid_starts;    ///< same for the iid days
  std::vector<GapReport> reports;     ///< per region, from load_profile_csv
  std::vector<double> train_mean_mw;  ///< per region: mean demand over the train days (MW)
};

/// Reads `path` (column interval_end_utc: ISO-8601 UTC interval ends, one MW column per region;
/// gaps up to 2 h filled as in load_profile_csv), shifts the interval-end stamps to interval
/// starts, cuts market days of kAemoDaySteps steps from step kAemoDayOffset, keeps days complete
/// in every region, sends day d to iid if d % kAemoIidStride == 0 (else train), and divides each
/// region by its train mean. Throws core::ConfigError for a bad file (see load_profile_csv) or
/// if either split has no complete day.
AemoFeeders load_aemo_feeders(const std::string& path, const std::vector<std::string>& regions);

}  // namespace pz::data
