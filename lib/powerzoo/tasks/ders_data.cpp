// DERs task data: load / PV day pairing, splits and normalization (see ders_data.hpp).
#include "powerzoo/tasks/ders_data.hpp"

#include <algorithm>
#include <cstdio>

#include "powerzoo/core/cache.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/data/profile.hpp"

namespace pz::tasks {
namespace {

constexpr int kSteps = data::kAemoDaySteps;
constexpr int64_t kDay = 86400;
constexpr int64_t kMarketOffset = 10 * 3600;  // NEM market time = UTC+10
constexpr int kKeptDays = 365;

int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

std::string ymd(const data::CivilDate& c) {
  char b[16];
  std::snprintf(b, sizeof b, "%04lld-%02u-%02u", static_cast<long long>(c.year), c.month, c.day);
  return b;
}

}  // namespace

DersData pair_ders_days(const data::AemoFeeders& load, const data::CapacityFactors& pv) {
  if (load.shapes.empty()) throw core::ConfigError(load.path + ": expected one load region");
  DersData out;
  out.load_path = load.path;
  out.pv_path = pv.path;
  const std::vector<double>& shape = load.shapes[0];
  const int64_t pv_year = data::civil_from_days(floor_div(pv.t0_unix, kDay)).year;
  struct Day {
    int64_t market_index, load_start, pv_start;
    std::string date;
  };
  std::vector<Day> days;
  std::vector<int64_t> all = load.train_starts;
  all.insert(all.end(), load.iid_starts.begin(), load.iid_starts.end());
  std::sort(all.begin(), all.end());
  for (int64_t j : all) {
    const int64_t d = (j - data::kAemoDayOffset) / kSteps;
    if (d >= kKeptDays) continue;
    // Local (market-time) date of the day's first interval.
    const data::CivilDate c =
        data::civil_from_days(floor_div(load.t0_unix + j * 1800 + kMarketOffset, kDay));
    const int64_t pv_unix = data::days_from_civil(pv_year, c.month, c.day) * kDay;
    const int64_t i = pv.index_of(pv_unix);
    if (i < 0 || i + kSteps > static_cast<int64_t>(pv.values.size()))
      throw core::ConfigError(pv.path + ": expected capacity factors for " +
                              ymd({pv_year, c.month, c.day}) + " (paired with the load day " +
                              ymd(c) + "), found none");
    days.push_back({d, j, i, ymd(c)});
  }
  if (days.empty()) throw core::ConfigError(load.path + ": expected complete load days");
  for (const Day& day : days)
    for (int k = 0; k < kSteps; ++k) {
      out.load_peak = std::max(out.load_peak, shape[day.load_start + k]);
      out.pv_peak = std::max(out.pv_peak, pv.values[day.pv_start + k]);
    }
  if (!(out.load_peak > 0) || !(out.pv_peak > 0))
    throw core::ConfigError(pv.path + ": expected a positive peak load and PV over the days");
  for (const Day& day : days) {
    DersDays& s = day.market_index % data::kAemoIidStride == 0 ? out.iid : out.train;
    s.starts.push_back(static_cast<int64_t>(s.dates.size()) * kSteps);
    s.dates.push_back(day.date);
    for (int k = 0; k < kSteps; ++k) {
      s.load.push_back(shape[day.load_start + k] / out.load_peak);
      s.pv.push_back(pv.values[day.pv_start + k] / out.pv_peak);
    }
  }
  if (out.train.starts.empty() || out.iid.starts.empty())
    throw core::ConfigError(load.path + ": expected days in both DERs splits");
  return out;
}

const DersData& ders_data() {
  static core::Cache<DersData> cache;
  const std::string dir = core::data_dir() + "/profiles/";
  return cache.get(dir, [&] {
    const auto load = data::load_aemo_feeders(dir + "aemo_operational_demand_30min.csv", {"NSW1"});
    const auto pv =
        data::load_capacity_factors(dir + "gb_solar_synthetic_30min.csv", "startTime", "solar_cf");
    return pair_ders_days(load, pv);
  });
}

}  // namespace pz::tasks
