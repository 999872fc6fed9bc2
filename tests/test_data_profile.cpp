// Tests of CSV profile loading, gap filling and calendar splits.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/profile.hpp"

using namespace pz;
namespace fs = std::filesystem;

namespace {
std::string write_tmp(const std::string& name, const std::string& text) {
  const fs::path p =
      fs::temp_directory_path() / ("pz_profile_" + std::to_string(getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p.string();
}

// Two days of half-hourly data with value = index, optionally editing some rows.
std::string two_days(const std::vector<int>& drop_rows, const std::vector<int>& empty_rows) {
  std::string s = "startTime,DAForecast,Actual\n";
  for (int i = 0; i < 96; ++i) {
    if (std::find(drop_rows.begin(), drop_rows.end(), i) != drop_rows.end()) continue;
    char ts[64];
    std::snprintf(ts, sizeof ts, "2025-04-%02dT%02d:%02d:00.000Z", 1 + i / 48, (i % 48) / 2,
                  (i % 2) * 30);
    const bool empty = std::find(empty_rows.begin(), empty_rows.end(), i) != empty_rows.end();
    s += std::string(ts) + ",1," + (empty ? "" : std::to_string(100 + i)) + "\n";
  }
  return s;
}
}  // namespace

TEST_SUITE("data_profile") {
  TEST_CASE("short gaps are filled by linear interpolation") {
    // Rows 10, 11 absent (1 h) and row 30 empty: all filled; values are linear in the index.
    const auto p =
        data::load_profile_csv(write_tmp("a.csv", two_days({10, 11}, {30})), "startTime", "Actual");
    CHECK(p.values.size() == 96);
    CHECK(p.report.n_rows == 94);
    CHECK(p.report.n_missing_rows == 2);
    CHECK(p.report.n_missing_values == 1);
    CHECK(p.report.n_filled == 3);
    CHECK(p.report.n_days_dropped == 0);
    CHECK(p.values[10] == doctest::Approx(110.0));
    CHECK(p.values[11] == doctest::Approx(111.0));
    CHECK(p.values[30] == doctest::Approx(130.0));
  }

  TEST_CASE("a gap longer than 2 hours drops its day") {
    // Rows 60..64 absent: 2.5 h > 2 h, so day 2 stays incomplete and is dropped.
    const auto p = data::load_profile_csv(write_tmp("b.csv", two_days({60, 61, 62, 63, 64}, {})),
                                          "startTime", "Actual");
    CHECK(p.report.n_filled == 0);
    CHECK(p.report.n_days_dropped == 1);
    CHECK(p.day_complete(0));
    CHECK_FALSE(p.day_complete(1));
    CHECK(std::isnan(p.values[62]));
    const data::Split s{"x", "2025-04-01", "2025-04-02"};
    const auto starts = data::episode_starts(p, s, 48);
    REQUIRE(starts.size() == 1);
    CHECK(starts[0] == 0);
    // Mean over complete days only: day 1 holds 100..147.
    CHECK(data::split_mean(p, s) == doctest::Approx(123.5));
  }

  TEST_CASE("an isolated spike is treated as missing and interpolated") {
    std::string text = two_days({}, {});
    text.replace(text.find(",1,120"), 6, ",1,12");  // 120 -> 12: below half of 119 and 121
    const auto p = data::load_profile_csv(write_tmp("s.csv", text), "startTime", "Actual");
    CHECK(p.report.n_spikes == 1);
    CHECK(p.report.n_filled == 1);
    CHECK(p.values[20] == doctest::Approx(120.0));
  }

  TEST_CASE("malformed rows name the file and line") {
    std::string text = two_days({}, {});
    text.replace(text.find("2025-04-01T05:00"), 16, "2025-04-01T05:0x");
    const auto path = write_tmp("c.csv", text);
    try {
      data::load_profile_csv(path, "startTime", "Actual");
      FAIL("expected ConfigError");
    } catch (const core::ConfigError& e) {
      const std::string m = e.what();
      CHECK(m.find(path + ":12:") != std::string::npos);
      CHECK(m.find("timestamp") != std::string::npos);
    }
    std::string bad_value = two_days({}, {});
    bad_value.replace(bad_value.find(",1,103"), 6, ",1,1O3");
    CHECK_THROWS_AS(data::load_profile_csv(write_tmp("d.csv", bad_value), "startTime", "Actual"),
                    core::ConfigError);
    CHECK_THROWS_AS(
        data::load_profile_csv(write_tmp("e.csv", "startTime,Actual\n2025-04-01T00:00:00Z\n"),
                               "startTime", "Actual"),
        core::ConfigError);
    CHECK_THROWS_AS(
        data::load_profile_csv(write_tmp("f.csv", "time,value\n"), "startTime", "Actual"),
        core::ConfigError);
    CHECK_THROWS_AS(data::load_profile_csv("/nonexistent/x.csv", "startTime", "Actual"),
                    core::ConfigError);
  }

  TEST_CASE("out-of-order timestamps are rejected") {
    const std::string text = "startTime,Actual\n2025-04-01T00:30:00Z,1\n2025-04-01T00:00:00Z,2\n";
    CHECK_THROWS_AS(data::load_profile_csv(write_tmp("g.csv", text), "startTime", "Actual"),
                    core::ConfigError);
  }

  TEST_CASE("bundled GB demand: gaps and splits") {
    const auto p = data::load_profile("gb_demand");
    // The file misses 5 half-hour rows (four gaps of 1-1.5 h), all filled; Actual has no empty
    // cells (the 1,536 empty cells are in DAForecast); 10 isolated metering spikes (e.g.
    // 5,113 MW at 2025-11-18 12:00 between ~40 GW neighbours) are replaced.
    CHECK(p.report.n_missing_rows == 5);
    CHECK(p.report.n_missing_values == 0);
    CHECK(p.report.n_spikes == 10);
    CHECK(p.report.n_filled == 5 + 10);
    CHECK(p.report.n_days_dropped == 0);
    const auto train = data::episode_starts(p, data::split_by_name("train"), 48);
    const auto iid = data::episode_starts(p, data::split_by_name("iid"), 48);
    CHECK(train.size() == 275);  // 2025-04-01 .. 2025-12-31
    CHECK(iid.size() == 90);     // 2026-01-01 .. 2026-03-31
    // Winter days are heavier than the train mean.
    const double train_mean = data::split_mean(p, data::split_by_name("train"));
    const double iid_mean = data::split_mean(p, data::split_by_name("iid"));
    CHECK(iid_mean > 1.1 * train_mean);
    CHECK_THROWS_AS(data::split_by_name("test"), core::ConfigError);
  }
}
