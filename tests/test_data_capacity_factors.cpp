// The strict capacity-factor CSV reader: grid, contiguity and [0, 1] checks with file:line errors.
#include <doctest/doctest.h>

#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/capacity_factors.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

std::string load_error(const std::string& text) {
  const auto d = test::tmp_dir("pz_cf", "err");
  try {
    data::load_capacity_factors(test::write(d / "cf.csv", text), "startTime", "solar_cf");
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("data_capacity_factors") {
  TEST_CASE("a small file: start, step, values and index_of") {
    const auto d = test::tmp_dir("pz_cf", "ok");
    const std::string path = test::write(d / "cf.csv",
                                         "startTime,other,solar_cf\n"
                                         "2025-06-01T11:00:00.000Z,x,0.25\n"
                                         "2025-06-01T11:30:00.000Z,x,1\n"
                                         "\n"
                                         "2025-06-01T12:00:00.000Z,x,0\n");
    const auto cf = data::load_capacity_factors(path, "startTime", "solar_cf");
    CHECK(cf.path == path);
    CHECK(cf.t0_unix == 1748775600);  // 2025-06-01 11:00 UTC
    CHECK(cf.values == std::vector<double>{0.25, 1.0, 0.0});
    CHECK(cf.index_of(1748775600 + 3600) == 2);
    CHECK(cf.index_of(1748775600 + 5400) == -1);  // past the end
    CHECK(cf.index_of(1748775600 + 60) == -1);    // off the grid
    CHECK(cf.index_of(1748775600 - 1800) == -1);
  }

  TEST_CASE("bad files name the file, line and what was found") {
    const std::string h = "startTime,solar_cf\n";
    const std::string r1 = "2025-06-01T11:00:00Z,0.5\n";
    CHECK(load_error(h + r1 + "2025-06-01T12:00:00Z,0.5\n")
              .ends_with("cf.csv:3: expected consecutive 30-minute rows, found "
                         "'2025-06-01T12:00:00Z' after a gap"));
    CHECK(load_error(h + r1 + r1)
              .ends_with("cf.csv:3: expected consecutive 30-minute rows, found "
                         "'2025-06-01T11:00:00Z' out of order or repeated"));
    CHECK(load_error(h + r1 + "2025-06-01T11:30:00Z,1.5\n")
              .ends_with("cf.csv:3: expected a capacity factor in [0, 1] in column 'solar_cf', "
                         "found '1.5'"));
    CHECK(load_error(h + r1 + "2025-06-01T11:30:00Z,\n").ends_with("found ''"));
    CHECK(load_error(h + r1 + "2025-06-01T11:30:00Z,nan\n").ends_with("found 'nan'"));
    CHECK(load_error(h + "2025-06-01T11:10:00Z,0.5\n")
              .ends_with("cf.csv:2: expected a timestamp on a 30-minute grid, found "
                         "'2025-06-01T11:10:00Z'"));
    CHECK(load_error(h + "yesterday,0.5\n").find("cf.csv:2: expected an ISO-8601") !=
          std::string::npos);
    CHECK(load_error("time,cf\n" + r1)
              .find("cf.csv:1: expected columns 'startTime' and "
                    "'solar_cf' in the header, found 'time,cf'") != std::string::npos);
    CHECK(load_error(h).ends_with("expected data rows after the header, found none"));
    CHECK_THROWS_WITH_AS(data::load_capacity_factors("/nonexistent/cf.csv", "a", "b"),
                         "capacity-factor file '/nonexistent/cf.csv' not found or not readable",
                         core::ConfigError);
  }
}
