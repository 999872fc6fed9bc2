// CSV profile loading with explicit gap handling, and calendar splits.
#include "powerzoo/data/profile.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"
#include "powerzoo/core/params.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/data/csv.hpp"

namespace pz::data {
namespace {

using core::ConfigError;
using core::echo;

// A run of timestamps without a value longer than this is not a gap to fill or a day to drop but
// a profile that does not cover its span (and would make the loader allocate the whole span).
constexpr int64_t kMaxGapSeconds = 86400;

std::string days_text(int64_t seconds) {
  return core::format_number(static_cast<double>(seconds) / 86400.0, 6) +
         (seconds == 86400 ? " day" : " days");
}

// The spacing most rows have; 0 with fewer than two rows.
int64_t common_spacing(const std::vector<std::pair<int64_t, double>>& rows) {
  std::map<int64_t, int64_t> count;
  for (size_t i = 1; i < rows.size(); ++i) ++count[rows[i].first - rows[i - 1].first];
  int64_t best = 0, n = 0;
  for (const auto& [d, c] : count)
    if (c > n) best = d, n = c;
  return best;
}

bool parse_int(const std::string& s, size_t pos, size_t len, int& out) {
  if (pos + len > s.size()) return false;
  auto r = std::from_chars(s.data() + pos, s.data() + pos + len, out);
  return r.ec == std::errc() && r.ptr == s.data() + pos + len;
}

// Parses "YYYY-MM-DD[THH:MM[:SS[.fff]]][Z]"; returns false if malformed.
bool parse_timestamp(const std::string& s, int64_t& out) {
  int y, mo, d, h = 0, mi = 0, se = 0;
  if (!parse_int(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !parse_int(s, 5, 2, mo) ||
      s[7] != '-' || !parse_int(s, 8, 2, d))
    return false;
  // 2025-04-31 and 23:59:60 used to be read as the next day or minute.
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] + (mo == 2 && leap)) return false;
  if (s.size() > 10) {
    if ((s[10] != 'T' && s[10] != ' ') || !parse_int(s, 11, 2, h) || s.size() < 16 ||
        s[13] != ':' || !parse_int(s, 14, 2, mi))
      return false;
    size_t k = 16;
    if (s.size() >= 19 && s[16] == ':') {
      if (!parse_int(s, 17, 2, se)) return false;
      k = 19;
      if (k < s.size() && s[k] == '.') {  // fractional seconds
        ++k;
        const size_t digits = k;
        while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
        if (k == digits) return false;
      }
    }
    // UTC only: "Z", "+00:00" or nothing. Another offset (+01:00) was silently ignored.
    const std::string zone = s.substr(k);
    if (!zone.empty() && zone != "Z" && zone != "+00:00" && zone != "+0000") return false;
    if (h > 23 || mi > 59 || se > 59) return false;
  }
  out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
  return true;
}

bool parse_double(const std::string& s, double& out) {
  const char* b = s.data();
  const char* e = s.data() + s.size();
  while (b < e && *b == ' ') ++b;
  while (e > b && e[-1] == ' ') --e;
  auto r = std::from_chars(b, e, out);
  return r.ec == std::errc() && r.ptr == e && std::isfinite(out);
}

}  // namespace

bool parse_utc_timestamp(const std::string& s, int64_t& out) { return parse_timestamp(s, out); }

std::string GapReport::summary() const {
  std::ostringstream os;
  os << n_rows << " rows, " << n_missing_values << " empty values, " << n_missing_rows
     << " missing timestamps, " << n_spikes << " isolated spikes; filled " << n_filled
     << " points (gaps <= 2 h) by linear "
     << "interpolation; dropped " << n_days_dropped << " days with longer gaps";
  return os.str();
}

bool Profile::day_complete(int64_t d) const {
  const int spd = steps_per_day();
  for (int i = 0; i < spd; ++i)
    if (std::isnan(values[static_cast<size_t>(d * spd + i)])) return false;
  return true;
}

Profile load_profile_csv(const std::string& path, const std::string& time_column,
                         const std::string& value_column, int step_seconds, int max_fill_seconds) {
  CsvReader csv(path);
  if (!csv.is_open()) throw ConfigError("profile file '" + path + "' not found or not readable");
  if (!csv.read_header())
    throw ConfigError(path + ":1: expected a CSV header row, found an empty file");
  const auto& header = csv.header();
  const int tcol = csv.column(time_column), vcol = csv.column(value_column);
  if (tcol < 0 || vcol < 0)
    throw ConfigError(path + ":1: expected columns '" + echo(time_column) + "' and '" +
                      echo(value_column) + "' in the header, found '" + echo(csv.header_line()) +
                      "'");
  std::vector<std::pair<int64_t, double>> rows;  // (timestamp, value or NaN)
  GapReport rep;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  int64_t last_value_ts = 0, last_value_line = 0;  // the latest row with a value
  std::string last_value_time, first_row_time;
  int64_t first_row_ts = 0;
  while (csv.next_row()) {
    const auto& cells = csv.cells();
    const auto where = csv.where();
    if (cells.size() != header.size())
      throw ConfigError(where + "expected " + std::to_string(header.size()) +
                        " comma-separated fields, found " + std::to_string(cells.size()) + " in '" +
                        echo(csv.line()) + "'");
    int64_t ts;
    if (!parse_timestamp(cells[tcol], ts))
      throw ConfigError(where + "expected an ISO-8601 UTC timestamp in column '" +
                        echo(time_column) + "', found '" + show_cell(cells[tcol]) + "'");
    if (ts % step_seconds != 0)
      throw ConfigError(where + "expected a timestamp on a " + std::to_string(step_seconds / 60) +
                        "-minute grid, found '" + show_cell(cells[tcol]) + "'");
    if (!rows.empty() && ts <= rows.back().first)
      throw ConfigError(where + "expected timestamps strictly increasing, found '" +
                        show_cell(cells[tcol]) + "' after an equal or later one");
    double v = nan;
    const std::string& cell = cells[vcol];
    if (cell.find_first_not_of(' ') == std::string::npos) {
      ++rep.n_missing_values;
    } else if (!parse_double(cell, v)) {
      throw ConfigError(where + "expected a number or an empty cell in column '" +
                        echo(value_column) + "', found '" + show_cell(cell) + "'");
    } else if (v < 0) {
      // Every profile is a demand; a negative one scaled the case's loads into generators.
      throw ConfigError(where + "expected a demand >= 0 in column '" + echo(value_column) +
                        "', found '" + show_cell(cell) + "'");
    }
    if (rows.empty()) {
      first_row_ts = ts;
      first_row_time = cells[tcol];
    }
    // Empty values at the start are a gap too (13,000 of them passed as dropped days).
    if (!std::isnan(v) && last_value_line == 0 && ts - first_row_ts > kMaxGapSeconds)
      throw ConfigError(where + "expected no gap longer than 1 day between values, found " +
                        days_text(ts - first_row_ts) + " of empty values from the first row ('" +
                        echo(first_row_time) + "') to '" + show_cell(cells[tcol]) + "'");
    if (!std::isnan(v)) {
      if (last_value_line > 0 && ts - last_value_ts - step_seconds > kMaxGapSeconds)
        throw ConfigError(where + "expected no gap longer than 1 day between values, found " +
                          days_text(ts - last_value_ts - step_seconds) + " without one between '" +
                          echo(last_value_time) + "' (line " + std::to_string(last_value_line) +
                          ") and '" + show_cell(cells[tcol]) + "'");
      last_value_ts = ts;
      last_value_line = csv.line_number();
      last_value_time = cells[tcol];
    }
    rows.emplace_back(ts, v);
  }
  if (rows.empty()) throw ConfigError(path + ": expected data rows after the header, found none");
  if (last_value_line > 0 && rows.back().first - last_value_ts > kMaxGapSeconds)
    throw ConfigError(path + ": expected no gap longer than 1 day between values, found " +
                      days_text(rows.back().first - last_value_ts) +
                      " of empty values after the last value (line " +
                      std::to_string(last_value_line) + ", '" + echo(last_value_time) + "')");
  if (const int64_t d = common_spacing(rows); d != 0 && d != step_seconds)
    throw ConfigError(
        path + ": expected a profile with a step of " + std::to_string(step_seconds / 60) +
        " minutes (dt_hours = " + core::format_number(step_seconds / 3600.0) + "), found rows " +
        std::to_string(d / 60) + " minutes apart (the most common spacing)");
  rep.n_rows = static_cast<int64_t>(rows.size());

  Profile p;
  p.path = path;
  p.column = value_column;
  p.step_seconds = step_seconds;
  p.t0_unix = rows.front().first - ((rows.front().first % 86400) + 86400) % 86400;
  const int64_t last = rows.back().first;
  const int64_t end_day = last - ((last % 86400) + 86400) % 86400 + 86400;
  const int64_t n = (end_day - p.t0_unix) / step_seconds;
  p.values.assign(static_cast<size_t>(n), nan);
  std::vector<uint8_t> present(static_cast<size_t>(n), 0);
  for (const auto& [ts, v] : rows) {
    const auto i = static_cast<size_t>((ts - p.t0_unix) / step_seconds);
    p.values[i] = v;
    present[i] = 1;
  }
  // Absent timestamps strictly inside the covered span count as missing rows.
  const auto first_i = (rows.front().first - p.t0_unix) / step_seconds;
  const auto last_i = (last - p.t0_unix) / step_seconds;
  for (int64_t i = first_i; i <= last_i; ++i)
    if (!present[static_cast<size_t>(i)]) ++rep.n_missing_rows;

  // Isolated spikes (a single value below half, or above twice, both neighbours) are metering
  // errors, not demand: treat them as missing so the gap filling below replaces them.
  for (int64_t i = 1; i + 1 < n; ++i) {
    const double a = p.values[static_cast<size_t>(i - 1)], v = p.values[static_cast<size_t>(i)],
                 b = p.values[static_cast<size_t>(i + 1)];
    if (std::isnan(a) || std::isnan(v) || std::isnan(b) || a <= 0 || b <= 0) continue;
    if (v < 0.5 * std::min(a, b) || v > 2.0 * std::max(a, b)) {
      p.values[static_cast<size_t>(i)] = nan;
      ++rep.n_spikes;
    }
  }
  // Fill interior runs of NaN up to max_fill_seconds by linear interpolation.
  const int64_t max_run = max_fill_seconds / step_seconds;
  int64_t i = 0;
  while (i < n) {
    if (!std::isnan(p.values[static_cast<size_t>(i)])) {
      ++i;
      continue;
    }
    int64_t j = i;
    while (j < n && std::isnan(p.values[static_cast<size_t>(j)])) ++j;
    const int64_t run = j - i;
    if (i > 0 && j < n && run <= max_run) {
      const double a = p.values[static_cast<size_t>(i - 1)];
      const double b = p.values[static_cast<size_t>(j)];
      for (int64_t k = i; k < j; ++k)
        p.values[static_cast<size_t>(k)] =
            a + (b - a) * static_cast<double>(k - i + 1) / static_cast<double>(run + 1);
      rep.n_filled += run;
    }
    i = j;
  }
  for (int64_t d = 0; d < p.n_days(); ++d)
    if (!p.day_complete(d)) ++rep.n_days_dropped;
  p.report = rep;
  return p;
}

std::string resolve_profile_path(const std::string& name_or_path) {
  if (name_or_path == "gb_demand") return core::data_dir() + "/profiles/gb_demand_30min.csv";
  const bool is_path =
      name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".csv");
  if (!is_path)
    throw ConfigError(
        "[env] profile: expected a bundled profile name (gb_demand) or a path to a "
        "CSV file, found '" +
        echo(name_or_path) + "'");
  return name_or_path;
}

Profile load_profile(const std::string& name_or_path) {
  if (name_or_path == "gb_demand")
    return load_profile_csv(resolve_profile_path(name_or_path), "startTime", "Actual");
  resolve_profile_path(name_or_path);  // a name that is neither bundled nor a path throws
  CsvReader csv(name_or_path);
  if (!csv.is_open())
    throw ConfigError("profile file '" + name_or_path + "' not found or not readable");
  csv.read_header();  // an empty file leaves the header empty: rejected just below
  const auto& header = csv.header();
  if (header.size() < 2)
    throw ConfigError(name_or_path +
                      ":1: expected a header with a time column and a value "
                      "column, found '" +
                      echo(csv.header_line()) + "'");
  std::string value_col = header[1];
  for (const auto& h : header)
    if (h == "Actual") value_col = h;
  return load_profile_csv(name_or_path, header[0], value_col);
}

// Howard Hinnant's civil-date algorithms ("chrono-Compatible Low-Level Date Algorithms").
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

CivilDate civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<int64_t>(yoe) + era * 400 + (m <= 2), m, d};
}

int64_t parse_date(const std::string& ymd) {
  int64_t ts;
  if (ymd.size() != 10 || !parse_timestamp(ymd, ts))
    throw ConfigError("expected a date YYYY-MM-DD, found '" + core::echo(ymd) + "'");
  return ts;
}

Split split_by_name(const std::string& name) {
  if (name == "train") return {"train", "2025-04-01", "2025-12-31"};
  if (name == "iid") return {"iid", "2026-01-01", "2026-03-31"};
  throw ConfigError("[env] split: expected one of train, iid, found '" + core::echo(name) + "'");
}

std::vector<int64_t> episode_starts(const Profile& p, const Split& s, int horizon) {
  const int64_t d0 = (parse_date(s.first_day) - p.t0_unix) / 86400;
  const int64_t d1 = (parse_date(s.last_day) - p.t0_unix) / 86400;
  const int spd = p.steps_per_day();
  std::vector<int64_t> starts;
  for (int64_t d = std::max<int64_t>(d0, 0); d <= d1; ++d) {
    const int64_t start = d * spd;
    if (start + horizon > static_cast<int64_t>(p.values.size())) break;
    bool ok = true;
    for (int k = 0; k < horizon && ok; ++k)
      ok = !std::isnan(p.values[static_cast<size_t>(start + k)]);
    if (ok) starts.push_back(start);
  }
  if (starts.empty())
    throw ConfigError("profile '" + p.path + "': split '" + s.name + "' (" + s.first_day + ".." +
                      s.last_day + ") has no complete " + std::to_string(horizon) +
                      "-step window in the data");
  return starts;
}

double split_mean(const Profile& p, const Split& s) {
  const int64_t d0 = std::max<int64_t>((parse_date(s.first_day) - p.t0_unix) / 86400, 0);
  const int64_t d1 =
      std::min<int64_t>((parse_date(s.last_day) - p.t0_unix) / 86400, p.n_days() - 1);
  double sum = 0;
  int64_t count = 0;
  const int spd = p.steps_per_day();
  for (int64_t d = d0; d <= d1; ++d) {
    if (!p.day_complete(d)) continue;
    for (int k = 0; k < spd; ++k) sum += p.values[static_cast<size_t>(d * spd + k)];
    count += spd;
  }
  if (count == 0)
    throw ConfigError("profile '" + p.path + "': split '" + s.name + "' has no complete day");
  const double mean = sum / static_cast<double>(count);
  // Loads are the case's loads scaled by value / mean: a zero or negative mean has no such scale.
  if (!(mean > 0) || !std::isfinite(mean))
    throw ConfigError("profile '" + p.path + "': expected a positive mean over split '" + s.name +
                      "' (loads scale by value / mean), found " + core::format_number(mean));
  return mean;
}

}  // namespace pz::data
