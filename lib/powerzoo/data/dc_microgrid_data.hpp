// Data of the data-centre microgrid task: cluster workload traces (inference fraction per 5-min
// step) and GB calendar-year series (market index price, solar capacity factor) at 5-min steps
// (as PowerZooJax's powerzoojax/data/dc_microgrid_profiles.py; choices in data/README.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pz::data {

/// A cluster workload trace used cyclically as the data centre's inference fraction.
struct WorkloadTrace {
  std::string path;
  std::string column;
  std::string normalization;  ///< how the column became a fraction ("as is", "/ 100", ...)
  std::vector<double> frac;   ///< [n] one value per 5-min step, ≥ 0
};

/// Bundled names: `google` (google_dc_2019_5min.csv, cpu_util, fractions as they are), `azure`
/// (azure_dc_v2_5min.csv, cpu_usage divided by its maximum: the column is an absolute usage in
/// the millions, not a fraction), `alibaba` (alibaba_dc_2018_5min.csv, cpu_util_percent / 100).
/// Any other value is a CSV path whose column `cpu_util` holds fractions in [0, 1]. Throws
/// core::ConfigError naming the file and line for a missing file or column, a malformed row, or
/// a value that is not finite, negative, or (for a path) above 1.
WorkloadTrace load_workload_trace(const std::string& name_or_path);
/// load_workload_trace, once per process per name.
const WorkloadTrace& cached_workload_trace(const std::string& name_or_path);

/// A 30-min series of one UTC calendar year held for six 5-min steps: v[k] is the value of
/// [year-01-01 00:00 UTC + 5·k min, +5 min), k < 288·days(year).
struct YearSeries {
  std::string path;
  int year = 0;
  std::vector<double> v;
  int64_t n_substituted = 0;  ///< half hours whose value came from a fallback (price: N2EX or 0)
  double peak = 0;            ///< largest 30-min value before any normalization
};

/// GB market index price (GBP/MWh) from gb_market_index_price_30min.csv: the APX mid price if
/// finite and > 0, else N2EX if finite and > 0, else 0; clipped to [0, 500]. Throws
/// core::ConfigError naming file and line if the year is incomplete (a missing or repeated half
/// hour) or a row is malformed.
YearSeries load_gb_price(const std::string& path, int year);
/// The reference's price series: every row of the file in order (no calendar), with the same
/// APX / N2EX / 0 rule and clip, each row held for six 5-minute steps. Throws core::ConfigError
/// naming file and line for a malformed row.
YearSeries load_gb_price_rows(const std::string& path);

/// GB solar capacity factor from a startTime,solar_cf CSV, divided by the year's peak (as the
/// reference divides GB solar output by its peak). Throws core::ConfigError naming file and line
/// for an incomplete year, a non-finite or negative value, or a peak of 0.
YearSeries load_gb_solar(const std::string& path, int year);

/// The bundled series of 2025 (data/profiles), loaded once per process.
const YearSeries& bundled_gb_price_2025();
const YearSeries& bundled_gb_solar_2025();
/// load_gb_price_rows of the bundled file (2023-07-05 .. 2026-04-05), loaded once per process.
const YearSeries& bundled_gb_price_rows();

/// Sliding maximum: out[k] = max(v[(k + j) mod n] for j in [0, window)).
std::vector<double> forward_max(const std::vector<double>& v, int window);

}  // namespace pz::data
