// Demand profiles: CSV time series on a regular grid, gap handling, calendar splits by UTC day.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pz::data {

/// What load_profile_csv did to the raw data (printed at start-up, stored in run.h5 attributes).
struct GapReport {
  int64_t n_rows = 0;            ///< data rows in the file
  int64_t n_missing_values = 0;  ///< rows present but with an empty value cell
  int64_t n_missing_rows = 0;    ///< grid timestamps absent from the file
  int64_t n_spikes = 0;          ///< single values < ½ or > 2× both neighbours, set to missing
  int64_t n_filled = 0;          ///< grid points filled by linear interpolation (gap <= max_fill)
  int64_t n_days_dropped = 0;    ///< UTC days left with an unfilled point
  std::string summary() const;
};

/// A time series on a regular grid starting at 00:00 UTC of the first day in the file.
/// values[i] is the value of interval [t0 + i·step, t0 + (i+1)·step); NaN where unfilled.
struct Profile {
  std::string path;
  std::string column;
  int64_t t0_unix = 0;  ///< seconds since epoch, UTC midnight
  int step_seconds = 1800;
  std::vector<double> values;
  GapReport report;
  int steps_per_day() const { return 86400 / step_seconds; }
  int64_t n_days() const { return static_cast<int64_t>(values.size()) / steps_per_day(); }
  /// True if day d (0-based from t0) has no NaN.
  bool day_complete(int64_t d) const;
};

/// Reads a CSV with a header row: `time_column` holds ISO-8601 UTC timestamps
/// ("2025-04-01T00:00:00.000Z" or "2025-04-01 00:00:00"), `value_column` a number or an empty
/// cell (missing). Rows must be strictly increasing in time on multiples of step_seconds.
/// Isolated spikes (one value below half or above twice both neighbours) count as missing.
/// Gaps (empty cells, absent rows, spikes) of at most max_fill_seconds are filled by linear
/// interpolation between the neighbouring values; longer gaps stay NaN so their days are
/// dropped by the splits. Throws core::ConfigError naming file and line for a malformed row,
/// a missing column, or out-of-order timestamps.
Profile load_profile_csv(const std::string& path, const std::string& time_column,
                         const std::string& value_column, int step_seconds = 1800,
                         int max_fill_seconds = 7200);

/// A bundled profile name ("gb_demand") or a CSV path → loaded profile. Bundled:
/// gb_demand = data/profiles/gb_demand_30min.csv, column Actual (MW, GB total demand).
/// A path uses its first column as time and column "Actual" if present, else the second column.
Profile load_profile(const std::string& name_or_path);

/// The file load_profile reads for `name_or_path` (the bundled file of a bundled name, else the
/// path itself). Throws core::ConfigError for a name that is neither.
std::string resolve_profile_path(const std::string& name_or_path);

/// Parses an ISO-8601 UTC timestamp "YYYY-MM-DD[THH:MM[:SS[.fff]]][Z]" (or a space for 'T')
/// into seconds since epoch; false if malformed.
bool parse_utc_timestamp(const std::string& s, int64_t& out);

/// Seconds since epoch of a "YYYY-MM-DD" date at 00:00 UTC. Throws ConfigError if malformed.
int64_t parse_date(const std::string& ymd);

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..12, day 1..31), and back.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);
struct CivilDate {
  int64_t year = 1970;
  unsigned month = 1, day = 1;
};
CivilDate civil_from_days(int64_t days);

/// Calendar split: days [first_day, last_day] inclusive (UTC).
struct Split {
  std::string name;
  std::string first_day, last_day;
};

/// Known splits of the GB benchmark: train = 2025-04-01..2025-12-31, iid = 2026-01-01..2026-03-31.
/// Throws ConfigError (with the known names) for an unknown split.
Split split_by_name(const std::string& name);

/// Offsets (grid indices) of episode starts: 00:00 UTC of each day of the split whose window of
/// `horizon` steps is complete. Throws ConfigError if none.
std::vector<int64_t> episode_starts(const Profile& p, const Split& s, int horizon);

/// Mean of the profile over the complete days of a split (the load normalizer).
double split_mean(const Profile& p, const Split& s);

}  // namespace pz::data
