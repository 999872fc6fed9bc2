// Tests of the outage scenario-file reader: rows as written, sorted by step, and every bad row
// named by file and line.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/outage_schedule.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {
std::string error_of(const std::string& text, int n_branch = 7, int n_gen = 5, int horizon = 48) {
  const auto d = test::tmp_dir("pz_outsched", "err");
  const std::string path = test::write(d / "s.csv", text);
  try {
    const auto s = data::read_outage_schedule(path);
    data::check_outage_schedule(s, n_branch, n_gen, horizon);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_SUITE("data_outage_schedule") {
  TEST_CASE("rows as written, columns by name, sorted by step (file order within a step)") {
    const auto d = test::tmp_dir("pz_outsched", "ok");
    const std::string path = test::write(d / "s.csv",
                                         "element,index,status,step\n"
                                         "branch,3,0,10\n"
                                         "\n"
                                         "gen,2,0,4\n"
                                         "branch,3,1,20\n"
                                         "branch,1,0,4\n");
    const auto s = data::read_outage_schedule(path);
    REQUIRE(s.events.size() == 4);
    CHECK(s.events[0].step == 4);
    CHECK(s.events[0].element == data::OutageElement::kGen);
    CHECK(s.events[0].index == 2);
    CHECK(s.events[0].line == 4);
    CHECK(s.events[1].step == 4);
    CHECK(s.events[1].element == data::OutageElement::kBranch);
    CHECK(s.events[1].index == 1);
    CHECK(s.events[1].line == 6);
    CHECK(s.events[2].step == 10);
    CHECK(s.events[2].status == 0);
    CHECK(s.events[3].step == 20);
    CHECK(s.events[3].status == 1);
    CHECK(s.events[3].line == 5);
    CHECK_NOTHROW(data::check_outage_schedule(s, 3, 2, 21));
  }

  TEST_CASE("bad rows name the file, the line, what was expected and what was found") {
    const std::string h = "step,element,index,status\n";
    std::string e = error_of(h + "0,branch,1,0\n3,line,2,0\n");
    CHECK(e.find("s.csv:3:") != std::string::npos);
    CHECK(e.find("expected element 'branch' or 'gen', found 'line'") != std::string::npos);
    e = error_of(h + "0,branch,8,0\n");
    CHECK(e.find("s.csv:2:") != std::string::npos);
    CHECK(e.find("expected a branch row of the case (1..7), found index 8") != std::string::npos);
    e = error_of(h + "0,gen,6,0\n");
    CHECK(e.find("expected a gen row of the case (1..5), found index 6") != std::string::npos);
    e = error_of(h + "48,branch,1,0\n");
    CHECK(e.find("s.csv:2:") != std::string::npos);
    CHECK(e.find("expected a step within the episode (0..47") != std::string::npos);
    CHECK(e.find("found step 48") != std::string::npos);
    e = error_of(h + "nan,branch,1,0\n");
    CHECK(e.find("expected an integer step >= 0 in column 'step', found 'nan'") !=
          std::string::npos);
    e = error_of(h + "1.5,branch,1,0\n");
    CHECK(e.find("found '1.5'") != std::string::npos);
    e = error_of(h + "1,branch,0,0\n");
    CHECK(e.find("expected a 1-based case row (integer >= 1) in column 'index', found '0'") !=
          std::string::npos);
    e = error_of(h + "1,branch,1,2\n");
    CHECK(e.find("expected 0 (out) or 1 (back in service) in column 'status', found '2'") !=
          std::string::npos);
    e = error_of(h + "1,branch,1,0\n2,gen,1,0\n1,branch,1,1\n");
    CHECK(e.find("s.csv:4:") != std::string::npos);
    CHECK(e.find("a second row for step 1, branch 1") != std::string::npos);
    e = error_of("step,element,status\n1,branch,0\n");
    CHECK(e.find("s.csv:1:") != std::string::npos);
    CHECK(e.find("expected a column 'index'") != std::string::npos);
    CHECK(e.find("found 'step,element,status'") != std::string::npos);
    e = error_of(h + "1,branch,1\n");
    CHECK(e.find("s.csv:2: expected a value in column 'status', found none") != std::string::npos);
    e = error_of("");
    CHECK(e.find("s.csv:1: expected a header row") != std::string::npos);
  }

  // Guards the two holes a user trial found: a row's extra cell was dropped unread, and a step
  // written 1e1 was read as step 10.
  TEST_CASE("an extra cell and an integer in float notation are refused, naming line and column") {
    const std::string h = "step,element,index,status\n";
    std::string e = error_of(h + "0,branch,1,0\n4,branch,2,0,1\n");
    CHECK(e.find("s.csv:3: expected 4 comma-separated fields, found 5: column 5 ('1') is past the "
                 "header 'step,element,index,status'") != std::string::npos);
    e = error_of(h + "1e1,branch,1,0\n");
    CHECK(e.find("s.csv:2: expected an integer step >= 0 in column 'step', found '1e1'") !=
          std::string::npos);
    e = error_of(h + "1,branch,2.0,0\n");
    CHECK(e.find("s.csv:2: expected a 1-based case row (integer >= 1) in column 'index', found "
                 "'2.0'") != std::string::npos);
    e = error_of(h + "1,branch,2,0e0\n");
    CHECK(e.find("in column 'status', found '0e0'") != std::string::npos);
  }

  // Guards issue 36 (a user trial with env.outages=FILE): '+6' was read as 6, a 'comment' column
  // was ignored, and Excel's byte-order mark made 'step' an unknown column.
  TEST_CASE("a '+' sign and an extra header column are refused; spaces, BOM and CRLF read") {
    const std::string h = "step,element,index,status\n";
    std::string e = error_of(h + "+6,branch,1,0\n");
    CHECK(e.find("s.csv:2: expected an integer step >= 0 in column 'step', found '+6' (no '+' "
                 "sign: write 6)") != std::string::npos);
    e = error_of(h + "6,branch,+1,0\n");
    CHECK(e.find("in column 'index', found '+1' (no '+' sign: write 1)") != std::string::npos);
    e = error_of("step,element,index,status,comment\n6,branch,1,0,line 2 trips\n");
    CHECK(
        e.ends_with("/s.csv:1: expected only the columns step, element, index, status (in any "
                    "order), found column 5 'comment'"));
    e = error_of("step,element,index,status,\n6,branch,1,0,\n");  // a trailing comma
    CHECK(e.find("s.csv:1: expected only the columns step, element, index, status (in any "
                 "order), found column 5 ''") != std::string::npos);
    e = error_of(h + "6,branch\xC2\xA0,1,0\n");  // a no-break space is not trimmed: shown
    CHECK(e.find("expected element 'branch' or 'gen', found 'branch\\u00A0'") != std::string::npos);

    const auto d = test::tmp_dir("pz_outsched", "excel");
    const auto s = data::read_outage_schedule(
        test::write(d / "x.csv",
                    "\xEF\xBB\xBFstep, element, index, status\r\n 6 ,branch, 2,0\r\n24,\tgen\t,3 ,"
                    "0\r\n18,branch,2,1\r\n"));
    REQUIRE(s.events.size() == 3);
    CHECK(s.events[0].step == 6);
    CHECK(s.events[0].element == data::OutageElement::kBranch);
    CHECK(s.events[0].index == 2);
    CHECK(s.events[0].status == 0);
    CHECK(s.events[1].step == 18);
    CHECK(s.events[1].status == 1);
    CHECK(s.events[2].step == 24);
    CHECK(s.events[2].element == data::OutageElement::kGen);
    CHECK(s.events[2].index == 3);
    CHECK(s.events[2].line == 3);
  }

  TEST_CASE("a missing file is named") {
    try {
      data::read_outage_schedule("/nonexistent/x.csv");
      FAIL("no error");
    } catch (const core::ConfigError& e) {
      CHECK(std::string(e.what()).find("/nonexistent/x.csv: expected an outage scenario CSV") !=
            std::string::npos);
    }
  }

  TEST_CASE("env-declared kinds: rows name the kind's position; bad kinds and units are named") {
    const std::vector<std::string> kinds = {"pv", "battery", "diesel", "grid"};
    const auto d = test::tmp_dir("pz_outsched", "kinds");
    const std::string h = "step,element,index,status\n";
    const auto s = data::read_outage_schedule(
        test::write(d / "ok.csv", h + "5,grid,1,0\n2,battery,1,0\n5,battery,1,1\n"), kinds);
    REQUIRE(s.events.size() == 3);
    CHECK(s.events[0].step == 2);
    CHECK(s.events[0].kind == 1);
    CHECK(s.events[1].kind == 3);
    CHECK(s.events[1].line == 2);
    CHECK(s.events[2].kind == 1);
    CHECK(s.events[2].status == 1);
    CHECK_NOTHROW(data::check_outage_schedule(s, kinds, {1, 1, 1, 1}, 6));
    const auto error = [&](const std::string& text, int horizon = 48) -> std::string {
      try {
        const auto t = data::read_outage_schedule(test::write(d / "bad.csv", h + text), kinds);
        data::check_outage_schedule(t, kinds, {1, 1, 1, 1}, horizon);
      } catch (const core::ConfigError& e) {
        return e.what();
      }
      return "no error";
    };
    std::string e = error("0,pv,1,0\n1,branch,1,0\n");
    CHECK(e.find("bad.csv:3: expected element 'pv', 'battery', 'diesel' or 'grid', found "
                 "'branch'") != std::string::npos);
    e = error("0,diesel,2,0\n");
    CHECK(e.find("bad.csv:2: expected a diesel unit (1..1), found index 2") != std::string::npos);
    e = error("0,pv,0,0\n");
    CHECK(e.find("expected a 1-based unit (integer >= 1) in column 'index', found '0'") !=
          std::string::npos);
    e = error("3,pv,1,0\n3,pv,1,1\n");
    CHECK(e.find("bad.csv:3:") != std::string::npos);
    CHECK(e.find("a second row for step 3, pv 1") != std::string::npos);
    e = error("0,pv,1,0\n3,grid,1,0\n", 3);
    CHECK(e.find("bad.csv:3: expected a step within the episode (0..2") != std::string::npos);
    // Two kinds at the same step and index are two rows, not a duplicate.
    CHECK(error("3,pv,1,0\n3,grid,1,0\n") == "no error");
  }
}
