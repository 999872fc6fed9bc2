// Loaders of the data-centre microgrid data: workload traces, GB price and solar at 5-min steps.
#include "powerzoo/data/dc_microgrid_data.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>

#include "powerzoo/core/cache.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/params.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/data/csv.hpp"
#include "powerzoo/data/profile.hpp"

namespace pz::data {
namespace {

using core::ConfigError;

constexpr int kHold = 6;  // 5-min steps per half hour

// A number cell; false for an empty, malformed or non-finite cell ("nan" and "inf" parse, but
// are not finite).
bool parse_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = b + s.size();
  auto r = std::from_chars(b, e, out);
  return r.ec == std::errc() && r.ptr == e;
}

CsvReader open_csv(const std::string& path, const std::vector<std::string>& columns,
                   std::vector<int>& idx) {
  CsvReader r(path);
  if (!r.is_open()) throw ConfigError(path + ": cannot open the file");
  if (!r.read_header()) throw ConfigError(csv_where(path, 1) + "expected a header row, found none");
  for (const auto& c : columns) {
    const int i = r.column(c);
    if (i < 0)
      throw ConfigError(csv_where(path, 1) + "expected a column '" + c + "', found header '" +
                        show_cell(r.header_line()) + "'");
    idx.push_back(i);
  }
  return r;
}

const std::string& cell(const CsvReader& r, int i) {
  static const std::string empty;
  return i < static_cast<int>(r.cells().size()) ? r.cells()[i] : empty;
}

struct BundledTrace {
  const char* name;
  const char* file;
  const char* column;
};
constexpr BundledTrace kTraces[] = {
    {"google", "google_dc_2019_5min.csv", "cpu_util"},
    {"azure", "azure_dc_v2_5min.csv", "cpu_usage"},
    {"alibaba", "alibaba_dc_2018_5min.csv", "cpu_util_percent"},
};

// Reads every row of a 30-min series in [year-01-01, year+1-01-01) and calls value(row, t) for
// each half hour k in order; checks that the rows of the year are exactly its half hours.
template <class Value>
void read_year(CsvReader& r, int time_col, int year, Value value) {
  const int64_t t0 = parse_date(std::to_string(year) + "-01-01");
  const int64_t t1 = parse_date(std::to_string(year + 1) + "-01-01");
  const int64_t n = (t1 - t0) / 1800;
  int64_t k = 0;
  while (r.next_row()) {
    int64_t ts = 0;
    if (!parse_utc_timestamp(cell(r, time_col), ts))
      throw ConfigError(r.where() + "expected an ISO-8601 UTC timestamp in column '" +
                        core::echo(r.header()[time_col]) + "', found '" +
                        show_cell(cell(r, time_col)) + "'");
    if (ts < t0 || ts >= t1) continue;
    if (ts != t0 + 1800 * k)
      throw ConfigError(r.where() + "expected half hour " + std::to_string(k + 1) + " of " +
                        std::to_string(n) + " of " + std::to_string(year) +
                        " (the rows of the year must be its consecutive half hours), found '" +
                        show_cell(cell(r, time_col)) + "'");
    value(r, k);
    ++k;
  }
  if (k != n)
    throw ConfigError(r.path() + ": expected " + std::to_string(n) + " half hours of " +
                      std::to_string(year) + ", found " + std::to_string(k));
}

std::vector<double> hold6(const std::vector<double>& half_hours) {
  std::vector<double> v;
  v.reserve(half_hours.size() * kHold);
  for (double x : half_hours) v.insert(v.end(), kHold, x);
  return v;
}

}  // namespace

WorkloadTrace load_workload_trace(const std::string& name_or_path) {
  const BundledTrace* b = nullptr;
  for (const auto& t : kTraces)
    if (name_or_path == t.name) b = &t;
  WorkloadTrace w;
  w.path = b ? core::data_dir() + "/profiles/" + b->file : name_or_path;
  w.column = b ? b->column : "cpu_util";
  std::vector<int> idx;
  CsvReader r = open_csv(w.path, {w.column}, idx);
  while (r.next_row()) {
    double x = 0;
    const std::string& c = cell(r, idx[0]);
    const bool ok = parse_number(c, x) && std::isfinite(x) && x >= 0 && (b || x <= 1);
    if (!ok)
      throw ConfigError(r.where() + "column '" + w.column + "': expected a finite " +
                        (b ? std::string("number >= 0") : std::string("fraction in [0, 1]")) +
                        ", found '" + show_cell(c) + "'");
    w.frac.push_back(x);
  }
  if (w.frac.empty()) throw ConfigError(w.path + ": expected at least one data row, found none");
  // A user trace shorter than an episode would repeat within a day; bundled traces are longer.
  constexpr size_t kDay = 288;
  if (!b && w.frac.size() < kDay)
    throw ConfigError(w.path + ": column '" + w.column + "': expected at least " +
                      std::to_string(kDay) + " rows (a day of five-minute steps), found " +
                      std::to_string(w.frac.size()));
  if (b && std::string(b->name) == "alibaba") {
    for (double& x : w.frac) x /= 100.0;
    w.normalization = "/ 100 (percent)";
  } else if (b && std::string(b->name) == "azure") {
    const double mx = *std::max_element(w.frac.begin(), w.frac.end());
    if (!(mx > 0)) throw ConfigError(w.path + ": column '" + w.column + "' is all zero");
    for (double& x : w.frac) x /= mx;
    w.normalization = "/ its maximum " + core::format_number(mx);
  } else {
    w.normalization = "as is (fractions)";
  }
  return w;
}

const WorkloadTrace& cached_workload_trace(const std::string& name_or_path) {
  static core::Cache<WorkloadTrace> cache;
  return cache.get(name_or_path, [&] { return load_workload_trace(name_or_path); });
}

namespace {

// The price rule of one row: APX if finite and > 0, else N2EX if so, else 0; clipped.
void price_row(const CsvReader& row, const std::vector<int>& idx, YearSeries& y,
               std::vector<double>& hh) {
  double apx = 0, n2ex = 0;
  const bool a_ok = parse_number(cell(row, idx[1]), apx) && std::isfinite(apx) && apx > 0;
  const bool n_ok = parse_number(cell(row, idx[2]), n2ex) && std::isfinite(n2ex) && n2ex > 0;
  const double p = a_ok ? apx : n_ok ? n2ex : 0.0;
  y.n_substituted += !a_ok;
  y.peak = std::max(y.peak, p);
  hh.push_back(std::clamp(p, 0.0, 500.0));
}

}  // namespace

YearSeries load_gb_price(const std::string& path, int year) {
  std::vector<int> idx;
  CsvReader r = open_csv(path, {"startTime", "mid_price_APXMIDP", "mid_price_N2EXMIDP"}, idx);
  YearSeries y;
  y.path = path;
  y.year = year;
  std::vector<double> hh;
  read_year(r, idx[0], year, [&](const CsvReader& row, int64_t) { price_row(row, idx, y, hh); });
  y.v = hold6(hh);
  return y;
}

YearSeries load_gb_price_rows(const std::string& path) {
  std::vector<int> idx;
  CsvReader r = open_csv(path, {"startTime", "mid_price_APXMIDP", "mid_price_N2EXMIDP"}, idx);
  YearSeries y;
  y.path = path;
  std::vector<double> hh;
  while (r.next_row()) price_row(r, idx, y, hh);
  if (hh.empty()) throw ConfigError(path + ": expected at least one data row, found none");
  y.v = hold6(hh);
  return y;
}

YearSeries load_gb_solar(const std::string& path, int year) {
  std::vector<int> idx;
  CsvReader r = open_csv(path, {"startTime", "solar_cf"}, idx);
  YearSeries y;
  y.path = path;
  y.year = year;
  std::vector<double> hh;
  read_year(r, idx[0], year, [&](const CsvReader& row, int64_t) {
    double x = 0;
    const std::string& c = cell(row, idx[1]);
    if (!parse_number(c, x) || !std::isfinite(x) || x < 0)
      throw ConfigError(row.where() + "column 'solar_cf': expected a finite number >= 0, found '" +
                        show_cell(c) + "'");
    y.peak = std::max(y.peak, x);
    hh.push_back(x);
  });
  if (!(y.peak > 0)) throw ConfigError(path + ": column 'solar_cf' is all zero in the year");
  for (double& x : hh) x /= y.peak;
  y.v = hold6(hh);
  return y;
}

const YearSeries& bundled_gb_price_2025() {
  static const YearSeries s =
      load_gb_price(core::data_dir() + "/profiles/gb_market_index_price_30min.csv", 2025);
  return s;
}

const YearSeries& bundled_gb_price_rows() {
  static const YearSeries s =
      load_gb_price_rows(core::data_dir() + "/profiles/gb_market_index_price_30min.csv");
  return s;
}

const YearSeries& bundled_gb_solar_2025() {
  static const YearSeries s =
      load_gb_solar(core::data_dir() + "/profiles/gb_solar_synthetic_30min.csv", 2025);
  return s;
}

std::vector<double> forward_max(const std::vector<double>& v, int window) {
  const int64_t n = static_cast<int64_t>(v.size());
  std::vector<double> out(v.size());
  if (n == 0 || window < 1) return out;
  // Monotone deque over the doubled index range, so the window wraps around the end.
  std::deque<int64_t> dq;
  int64_t next = 0;  // next index (unwrapped) to push
  for (int64_t k = 0; k < n; ++k) {
    while (next < k + window) {
      while (!dq.empty() && v[dq.back() % n] <= v[next % n]) dq.pop_back();
      dq.push_back(next++);
    }
    while (dq.front() < k) dq.pop_front();
    out[k] = v[dq.front() % n];
  }
  return out;
}

}  // namespace pz::data
