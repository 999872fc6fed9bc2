// Tests of the unit-commitment table reader: bundled case14 values, columns by name, errors.
#include <doctest/doctest.h>

#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/data/unit_commitment_table.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {
const std::string kHeader =
    "bus_id,mc_a,mc_b,mc_c,p_max,p_min,ramp_up,ramp_down,min_up_time,min_down_time,init_state,"
    "keep_time,init_start_up_cost,init_no_load_cost\n";

std::string error_of(const std::string& path) {
  try {
    data::read_unit_commitment_table(path, "caseX");
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_SUITE("data_unit_commitment_table") {
  TEST_CASE("bundled case14 table: rows in file order, numbers as written") {
    const std::string path = core::data_dir() + "/cases/case14_unit_commitment.csv";
    const auto rows = data::read_unit_commitment_table(path, "case14");
    REQUIRE(rows.size() == 5);
    const auto& r = rows[0];
    CHECK(r.line == 2);
    CHECK(r.bus_id_text == "1");
    CHECK(r.bus_id == 1.0);
    CHECK(r.mc_a == 0.0);
    CHECK(r.mc_b == 0.05541301);
    CHECK(r.mc_c == 34.216168);
    CHECK(r.p_max == 332.4);
    CHECK(r.p_min == 0.0);
    CHECK(r.ramp_up == 0.6953069);
    CHECK(r.ramp_down == 0.6953069);
    CHECK(r.min_up_time == 2.0);
    CHECK(r.min_down_time == 2.0);
    CHECK(r.init_state == 1.0);
    CHECK(r.keep_time == 48.0);
    CHECK(r.init_start_up_cost == 34238.45);
    CHECK(r.init_no_load_cost == 0.0);
    CHECK(rows[3].line == 5);
    CHECK(rows[3].bus_id == 6.0);
    CHECK(rows[3].mc_b == -2.3915932);
    CHECK(rows[3].min_up_time == 8.0);
    CHECK(rows[4].bus_id == 8.0);
    CHECK(rows[4].init_start_up_cost == 7950.56);
  }

  TEST_CASE("columns are found by name in any order; blank lines keep the line numbers") {
    const auto d = test::tmp_dir("pz_uct", "order");
    const std::string path = test::write(
        d / "t.csv",
        "init_no_load_cost,extra,keep_time,init_state,min_down_time,min_up_time,ramp_down,ramp_up,"
        "p_min,p_max,mc_c,mc_b,mc_a,bus_id,init_start_up_cost\r\n"
        "\r\n"
        "941.73,coal, -96 ,0,4,4,0.7,0.7,18,90,70,-2.335,0.030864,4,14167\r\n");
    const auto rows = data::read_unit_commitment_table(path, "caseX");
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].line == 3);
    CHECK(rows[0].bus_id == 4.0);
    CHECK(rows[0].keep_time == -96.0);
    CHECK(rows[0].p_max == 90.0);
    CHECK(rows[0].p_min == 18.0);
    CHECK(rows[0].mc_a == 0.030864);
    CHECK(rows[0].init_no_load_cost == 941.73);
    CHECK(rows[0].init_start_up_cost == 14167.0);
  }

  TEST_CASE("errors name file:line and the column") {
    const auto d = test::tmp_dir("pz_uct", "errors");
    const std::string missing = (d / "missing.csv").string();
    CHECK(error_of(missing) == missing +
                                   ": expected a unit-commitment CSV for case 'caseX', found no "
                                   "readable file");
    const std::string empty = test::write(d / "empty.csv", "");
    CHECK(error_of(empty) == empty + ":1: expected a header row");
    const std::string no_col = test::write(d / "no_col.csv", "bus_id,mc_a,mc_b\n1,2,3\n");
    CHECK(error_of(no_col) == no_col + ":1: expected a column 'mc_c', found none");
    const std::string short_row =
        test::write(d / "short.csv", kHeader + "1,0,1,2,100,0,0.5,0.5,2,2,1,4,10\n");
    CHECK(error_of(short_row) ==
          short_row + ":2: expected a value in column 'init_no_load_cost', found none");
    const std::string bad =
        test::write(d / "bad.csv", kHeader + "1,0,1,2,100,0,0.5,0.5,2,2,1,4,10,0\n\n" +
                                       "2,0,1x,2,100,0,0.5,0.5,2,2,1,4,10,0\n");
    CHECK(error_of(bad) == bad + ":4: expected a number in column 'mc_b', found '1x'");
    const std::string inf =
        test::write(d / "inf.csv", kHeader + "1,0,1,2,inf,0,0.5,0.5,2,2,1,4,10,0\n");
    CHECK(error_of(inf) == inf + ":2: expected a number in column 'p_max', found 'inf'");
    const std::string empty_cell =
        test::write(d / "cell.csv", kHeader + "1,0,1,2,100,0,,0.5,2,2,1,4,10,0\n");
    CHECK(error_of(empty_cell) ==
          empty_cell + ":2: expected a number in column 'ramp_up', found ''");
    const std::string pmin =
        test::write(d / "pmin.csv", kHeader + "1,0,1,2,100,120,0.5,0.5,2,2,1,4,10,0\n");
    CHECK(error_of(pmin) ==
          pmin + ":2: expected 0 <= p_min <= p_max, found p_min 120.000000, p_max 100.000000");
  }
}
