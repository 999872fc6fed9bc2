// Tests of the DSO feeder shapes from AEMO demand: interval-start shift, market-day splits, means.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/data/aemo_feeders.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {
// UTC days 2025-01-01..(n_days): interval ends on the half hour; A = 1000 + grid index, B = 50.
// Rows with grid index in [skip_from, skip_to] are left out.
std::string aemo_file(int n_days, int skip_from = -1, int skip_to = -1) {
  std::string s = "interval_end_utc,A,X,B\n";
  for (int i = 0; i < n_days * 48; ++i) {
    if (i >= skip_from && i <= skip_to) continue;
    char ts[64];
    std::snprintf(ts, sizeof ts, "2025-01-%02dT%02d:%02d:00.000Z", 1 + i / 48, (i % 48) / 2,
                  (i % 2) * 30);
    s += std::string(ts) + "," + std::to_string(1000 + i) + ",7,50\n";
  }
  return s;
}
}  // namespace

TEST_SUITE("data_aemo_feeders") {
  TEST_CASE("market days from step 28, every 4th iid, incomplete days dropped, train mean 1") {
    // 6 UTC days: 287 interval-start steps, market days 0..4 at 28, 76, 124, 172, 220; days 0 and
    // 4 are iid. Rows 130..134 (2.5 h) are absent: train day 2 (steps 124..171) is incomplete.
    const auto d = test::tmp_dir("pz_aemo", "small");
    const std::string path = test::write(d / "a.csv", aemo_file(6, 130, 134));
    const auto f = data::load_aemo_feeders(path, {"A", "B"});
    CHECK(f.path == path);
    CHECK(f.regions == std::vector<std::string>{"A", "B"});
    CHECK(f.iid_starts == std::vector<int64_t>{28, 220});
    CHECK(f.train_starts == std::vector<int64_t>{76, 172});
    REQUIRE(f.reports.size() == 2);
    CHECK(f.reports[0].n_rows == 288 - 5);
    CHECK(f.reports[0].n_missing_rows == 5);
    CHECK(f.reports[0].n_days_dropped == 1);
    // Train mean of A: 1000 + (j + 1) over j in 76..123 and 172..219 = 1001 + 147.5.
    REQUIRE(f.train_mean_mw.size() == 2);
    CHECK(f.train_mean_mw[0] == 1148.5);
    CHECK(f.train_mean_mw[1] == 50.0);
    REQUIRE(f.shapes.size() == 2);
    REQUIRE(f.shapes[0].size() == 287);
    CHECK(f.shapes[0][0] == 1001.0 / 1148.5);  // the interval starting at 00:00 ends at 00:30
    CHECK(f.shapes[0][76] == 1077.0 / 1148.5);
    CHECK(f.shapes[0][128] == 1129.0 / 1148.5);
    CHECK(f.shapes[0][129] == 1.0);  // still missing: neutral shape
    CHECK(f.shapes[0][133] == 1.0);
    CHECK(f.shapes[0][134] == 1135.0 / 1148.5);
    CHECK(f.shapes[1][200] == 1.0);
  }

  TEST_CASE("a split without a complete day is an error") {
    const auto d = test::tmp_dir("pz_aemo", "short");
    const std::string path = test::write(d / "b.csv", aemo_file(2));  // one market day: iid only
    try {
      data::load_aemo_feeders(path, {"A"});
      FAIL("expected ConfigError");
    } catch (const core::ConfigError& e) {
      CHECK(std::string(e.what()) == path + ": expected complete days for both DSO splits");
    }
    CHECK_THROWS_AS(data::load_aemo_feeders(path, {"Z"}), core::ConfigError);
  }

  TEST_CASE("bundled AEMO file: NSW1, QLD1, VIC1") {
    const auto f = data::load_aemo_feeders(
        core::data_dir() + "/profiles/aemo_operational_demand_30min.csv", {"NSW1", "QLD1", "VIC1"});
    // 370 UTC days from 2025-01-27: 369 market days, 93 iid and 276 train, none dropped.
    CHECK(f.train_starts.size() == 276);
    CHECK(f.iid_starts.size() == 93);
    CHECK(f.iid_starts[1] == 220);
    CHECK(f.train_starts[0] == 76);
    for (const auto& r : f.reports) {
      CHECK(r.n_rows == 17760);
      CHECK(r.n_missing_rows == 0);
      CHECK(r.n_spikes == 0);
      CHECK(r.n_days_dropped == 0);
    }
    // Means recomputed independently from the CSV (same summation order).
    CHECK(f.train_mean_mw[0] == 7600.293629227053);
    CHECK(f.train_mean_mw[1] == 6220.022946859904);
    CHECK(f.train_mean_mw[2] == 5086.93538647343);
    CHECK(f.shapes[0][28] == 1.134298281167428);
    CHECK(f.shapes[2][28] == 1.1386030212613656);
    double sum = 0;
    for (int64_t j : f.train_starts)
      for (int k = 0; k < data::kAemoDaySteps; ++k) sum += f.shapes[1][j + k];
    CHECK(sum / (276.0 * 48) == doctest::Approx(1.0).epsilon(1e-12));
  }
}
