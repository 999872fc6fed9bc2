// Data of the DC microgrid task: workload normalizations, the GB price rule, solar peak
// normalization, the six-fold hold, the forward maximum, bad values named by file and line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/dc_microgrid_data.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

// "YYYY-MM-DDTHH:MM:00Z" of a Unix time (civil date by Howard Hinnant's algorithm).
std::string iso(int64_t t) {
  const int64_t z = t / 86400 + 719468, sec = t % 86400;
  const int64_t era = z / 146097, doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
  char b[40];
  std::snprintf(b, sizeof b, "%04lld-%02lld-%02lldT%02lld:%02lld:00Z",
                static_cast<long long>(yoe + era * 400 + (m <= 2)), static_cast<long long>(m),
                static_cast<long long>(d), static_cast<long long>(sec / 3600),
                static_cast<long long>(sec % 3600 / 60));
  return b;
}

// A 30-min CSV with n rows from 2030-01-01 00:00 UTC; row(k) gives the cells after the time.
template <class Row>
std::string csv_2030(const std::string& header, int n, Row row) {
  std::string s = header + "\n";
  for (int k = 0; k < n; ++k) s += iso(1893456000LL + 1800LL * k) + "," + row(k) + "\n";
  return s;
}

}  // namespace

TEST_SUITE("data_dc_microgrid_data") {
  TEST_CASE("bundled workloads: google as is, azure over its maximum, alibaba over 100") {
    const auto g = data::load_workload_trace("google");
    CHECK(g.frac.size() == 8064);
    CHECK(g.frac[0] == doctest::Approx(0.4416155843647663));
    const auto a = data::load_workload_trace("azure");
    CHECK(a.frac.size() == 8640);
    CHECK(*std::max_element(a.frac.begin(), a.frac.end()) == 1.0);
    CHECK(*std::min_element(a.frac.begin(), a.frac.end()) > 0.5);  // ~5.2e6 / ~7.8e6
    const auto b = data::load_workload_trace("alibaba");
    CHECK(b.frac.size() == 2243);
    CHECK(b.frac[0] == doctest::Approx(0.16126976521322472));
    double m = 0;
    for (double x : b.frac) m += x / b.frac.size();
    // PowerZooJax's alibaba_dc_2018 manifest: mean 0.40 after / 100
    CHECK(m == doctest::Approx(0.40).epsilon(0.05));
  }

  TEST_CASE("a workload CSV with a negative or non-finite value is refused by file and line") {
    const auto d = test::tmp_dir("pz_dcmg_data", "workload");
    const std::string neg =
        test::write(d / "neg.csv", "time_stamp,cpu_util\n0,0.5\n1,-0.1\n2,0.4\n");
    CHECK_THROWS_WITH_AS(data::load_workload_trace(neg),
                         (neg + ":3: column 'cpu_util': expected a finite fraction in [0, 1], "
                                "found '-0.1'")
                             .c_str(),
                         core::ConfigError);
    const std::string nan = test::write(d / "nan.csv", "time_stamp,cpu_util\n0,0.5\n1,nan\n");
    CHECK_THROWS_WITH_AS(data::load_workload_trace(nan), doctest::Contains(":3: column 'cpu_util'"),
                         core::ConfigError);
    const std::string big = test::write(d / "big.csv", "time_stamp,cpu_util\n0,6135515.8\n");
    CHECK_THROWS_WITH_AS(data::load_workload_trace(big), doctest::Contains("found '6135515.8'"),
                         core::ConfigError);
    const std::string col = test::write(d / "col.csv", "time_stamp,cpu\n0,0.5\n");
    CHECK_THROWS_WITH_AS(data::load_workload_trace(col),
                         doctest::Contains(":1: expected a column 'cpu_util'"), core::ConfigError);
    const std::string two = test::write(d / "two.csv", "time_stamp,cpu_util\n0,0.5\n1,0.25\n");
    CHECK_THROWS_WITH_AS(data::load_workload_trace(two),
                         (two + ": column 'cpu_util': expected at least 288 rows (a day of "
                                "five-minute steps), found 2")
                             .c_str(),
                         core::ConfigError);
    std::string day = "time_stamp,cpu_util\n";
    for (int k = 0; k < 288; ++k) day += std::to_string(k) + (k % 2 ? ",0.25\n" : ",0.5\n");
    const auto w = data::load_workload_trace(test::write(d / "ok.csv", day));
    REQUIRE(w.frac.size() == 288u);
    CHECK(w.frac[0] == 0.5);
    CHECK(w.frac[287] == 0.25);
  }

  TEST_CASE("price: APX if > 0, else N2EX, else 0; clipped to [0, 500]; each half hour x6") {
    const auto d = test::tmp_dir("pz_dcmg_data", "price");
    const std::string hdr = "startTime,settlementPeriod,mid_price_APXMIDP,mid_price_N2EXMIDP";
    auto row = [](int k) -> std::string {
      if (k == 1) return "1,0,88.5";    // APX 0 → N2EX
      if (k == 2) return "1,,0";        // neither → 0
      if (k == 3) return "1,1352.9,0";  // clipped to 500
      if (k == 4) return "1,nan,40";    // non-finite APX → N2EX
      return "1," + std::to_string(50 + k) + ",0";
    };
    const auto p =
        data::load_gb_price(test::write(d / "full.csv", csv_2030(hdr, 17520, row)), 2030);
    CHECK(p.v.size() == 17520u * 6);
    CHECK(p.v[0 * 6] == 50.0);
    CHECK(p.v[1 * 6] == 88.5);
    CHECK(p.v[2 * 6] == 0.0);
    CHECK(p.v[3 * 6] == 500.0);
    CHECK(p.v[4 * 6] == 40.0);
    for (int k = 0; k < 6; ++k) CHECK(p.v[5 * 6 + k] == 55.0);
    CHECK(p.n_substituted == 3);
    CHECK(p.peak == 50.0 + 17519);  // the largest raw value (row 17519), before the clip
    CHECK(p.v.back() == 500.0);
    const std::string short_year = test::write(d / "short.csv", csv_2030(hdr, 48, row));
    CHECK_THROWS_WITH_AS(data::load_gb_price(short_year, 2030),
                         doctest::Contains("expected 17520 half hours of 2030, found 48"),
                         core::ConfigError);
    const auto& y = data::bundled_gb_price_2025();
    CHECK(y.v.size() == 288u * 365);
    CHECK(y.n_substituted == 5);  // half hours of 2025 without an APX price (no N2EX either)
    CHECK(*std::max_element(y.v.begin(), y.v.end()) == 500.0);
  }

  TEST_CASE("solar: divided by the year's peak, held for six steps; a gap is named by line") {
    const auto& s = data::bundled_gb_solar_2025();
    CHECK(s.v.size() == 288u * 365);
    CHECK(*std::max_element(s.v.begin(), s.v.end()) == 1.0);
    CHECK(s.peak == doctest::Approx(0.719).epsilon(0.01));
    CHECK(s.v[0] == 0.0);  // midnight
    const auto d = test::tmp_dir("pz_dcmg_data", "solar");
    const std::string gap = test::write(
        d / "gap.csv", "startTime,solar_cf\n2025-01-01T00:00:00Z,0\n2025-01-01T01:00:00Z,0\n");
    CHECK_THROWS_WITH_AS(data::load_gb_solar(gap, 2025),
                         doctest::Contains("gap.csv:3: expected half hour 2 of 17520 of 2025"),
                         core::ConfigError);
    const std::string neg = test::write(
        d / "neg.csv", "startTime,solar_cf\n2025-01-01T00:00:00Z,0\n2025-01-01T00:30:00Z,-1\n");
    CHECK_THROWS_WITH_AS(data::load_gb_solar(neg, 2025),
                         doctest::Contains("neg.csv:3: column 'solar_cf': expected a finite "
                                           "number >= 0, found '-1'"),
                         core::ConfigError);
  }

  TEST_CASE("forward_max looks ahead `window` steps and wraps around the end") {
    const std::vector<double> v = {1, 5, 2, 0, 3, 4};
    CHECK(data::forward_max(v, 1) == v);
    CHECK(data::forward_max(v, 2) == std::vector<double>{5, 5, 2, 3, 4, 4});
    CHECK(data::forward_max(v, 3) == std::vector<double>{5, 5, 3, 4, 4, 5});
    CHECK(data::forward_max(v, 6) == std::vector<double>(6, 5.0));
  }
}
