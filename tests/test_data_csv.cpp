// Tests of the project's one CSV reader: splitting, header lookup, rows and line numbers.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/csv.hpp"
#include "test_util.hpp"

using namespace pz;
using Cells = std::vector<std::string>;

TEST_SUITE("data_csv") {
  TEST_CASE("cells lose quotes, carriage returns and surrounding spaces and tabs") {
    CHECK(data::split_csv_line("a,b,c") == Cells{"a", "b", "c"});
    CHECK(data::split_csv_line(" a , b\t,\"c\"\r") == Cells{"a", "b", "c"});
    CHECK(data::split_csv_line("6, 7,\t8 ") == Cells{"6", "7", "8"});  // "6, 7" as users write
    CHECK(data::split_csv_line("1 2,a\tb") == Cells{"1 2", "a\tb"});   // inner ones stay
    CHECK(data::split_csv_line("\"2025-04-01T00:00:00Z\", 12.5 ") ==
          Cells{"2025-04-01T00:00:00Z", "12.5"});
    CHECK(data::split_csv_line("a,b,") == Cells{"a", "b", ""});  // trailing comma: empty cell
    CHECK(data::split_csv_line(",") == Cells{"", ""});
    CHECK(data::split_csv_line("") == Cells{""});
    CHECK(data::split_csv_line("   ") == Cells{""});
    CHECK(data::split_csv_line("\"a,b\"") == Cells{"a", "b"});  // no quoting: a comma splits
    CHECK(data::is_blank_line(" \t\r"));
    CHECK(data::is_blank_line(""));
    CHECK_FALSE(data::is_blank_line(" ,"));
    CHECK(data::csv_where("x/f.csv", 7) == "x/f.csv:7: ");
  }

  TEST_CASE("rows come with their 1-based line numbers; blank lines are skipped") {
    const auto d = test::tmp_dir("pz_csv", "rows");
    const std::string path = test::write(d / "t.csv",
                                         "time, \"value\",note\r\n"
                                         "2025-04-01,1.5,x\r\n"
                                         "\r\n"
                                         "   \n"
                                         "2025-04-02,,\r\n"
                                         "2025-04-03,3\n");
    data::CsvReader csv(path);
    REQUIRE(csv.is_open());
    CHECK(csv.path() == path);
    REQUIRE(csv.read_header());
    CHECK(csv.header() == Cells{"time", "value", "note"});
    CHECK(csv.header_line() == "time, \"value\",note");  // raw text without CRLF, for messages
    CHECK(csv.column("time") == 0);
    CHECK(csv.column("value") == 1);
    CHECK(csv.column("note") == 2);
    CHECK(csv.column("Value") == -1);
    CHECK(csv.column("") == -1);

    REQUIRE(csv.next_row());
    CHECK(csv.line_number() == 2);
    CHECK(csv.cells() == Cells{"2025-04-01", "1.5", "x"});
    CHECK(csv.line() == "2025-04-01,1.5,x");
    CHECK(csv.where() == path + ":2: ");
    REQUIRE(csv.next_row());
    CHECK(csv.line_number() == 5);
    CHECK(csv.cells() == Cells{"2025-04-02", "", ""});
    REQUIRE(csv.next_row());
    CHECK(csv.line_number() == 6);
    CHECK(csv.cells() == Cells{"2025-04-03", "3"});
    CHECK(csv.where() == path + ":6: ");
    CHECK_FALSE(csv.next_row());
    CHECK(csv.cells().empty());
    CHECK_FALSE(csv.next_row());
  }

  // Guards against a header naming a column twice: the first one had been used silently.
  TEST_CASE("a column named twice in the header is refused when it is looked up") {
    const auto d = test::tmp_dir("pz_csv", "dup");
    const std::string path = test::write(d / "t.csv", "a,b,a\n1,2,3\n");
    data::CsvReader csv(path);
    REQUIRE(csv.read_header());
    CHECK_THROWS_WITH_AS(csv.column("a"),
                         (path + ":1: expected the column 'a' once in the header, found it at "
                                 "columns 1 and 3")
                             .c_str(),
                         core::ConfigError);
    CHECK(csv.column("b") == 1);
    CHECK(csv.column("c") == -1);
  }

  TEST_CASE("missing and empty files, header only") {
    const auto d = test::tmp_dir("pz_csv", "empty");
    data::CsvReader missing((d / "nope.csv").string());
    CHECK_FALSE(missing.is_open());
    CHECK_FALSE(missing.read_header());

    data::CsvReader empty(test::write(d / "e.csv", ""));
    CHECK(empty.is_open());
    CHECK_FALSE(empty.read_header());
    CHECK(empty.header().empty());
    CHECK(empty.header_line().empty());
    CHECK_FALSE(empty.next_row());

    data::CsvReader header_only(test::write(d / "h.csv", "a,b\n\n"));
    REQUIRE(header_only.read_header());
    CHECK(header_only.line_number() == 1);
    CHECK(header_only.header() == Cells{"a", "b"});
    CHECK_FALSE(header_only.next_row());
    CHECK(header_only.line_number() == 2);  // the blank line 2 was read and skipped

    data::CsvReader no_newline(test::write(d / "n.csv", "a,b\n1,2"));
    REQUIRE(no_newline.read_header());
    REQUIRE(no_newline.next_row());
    CHECK(no_newline.cells() == Cells{"1", "2"});
    CHECK(no_newline.line_number() == 2);
  }

  // Guards the integer columns (the outage scenario's step, index, status) against float
  // notation: a user trial's step "1e1" was read as step 10; a second trial's "+6" was read as 6.
  TEST_CASE("integer_cell takes digits with an optional '-' only, within its range") {
    const auto d = test::tmp_dir("pz_csv", "ints");
    const std::string path = test::write(
        d / "i.csv", "n\n12\n 4 \n-3\n007\n1e1\n10.\n0x1\n 1 2\n-\n99999999999999999999\n11\n");
    data::CsvReader csv(path);
    REQUIRE(csv.read_header());
    for (int64_t want : {12, 4, -3, 7}) {
      REQUIRE(csv.next_row());
      CHECK(csv.integer_cell(0, "n", -10, 20, "an integer") == want);
    }
    for (const char* bad : {"1e1", "10.", "0x1", "1 2", "-", "99999999999999999999"}) {
      CAPTURE(bad);
      REQUIRE(csv.next_row());
      CHECK_THROWS_WITH_AS(
          csv.integer_cell(0, "n", -10, 20, "an integer"),
          (csv.where() + "expected an integer in column 'n', found '" + bad + "'").c_str(),
          core::ConfigError);
    }
    REQUIRE(csv.next_row());  // digits, but past hi
    CHECK_THROWS_AS(csv.integer_cell(0, "n", -10, 10, "an integer"), core::ConfigError);
  }

  // Guards every reader of the project (outage scenarios, UC tables, action files, ...)
  // against a row with a cell past the header's columns, which each dropped unread.
  TEST_CASE("a row with more cells than the header is refused naming line and column") {
    const auto d = test::tmp_dir("pz_csv", "extra");
    const std::string path = test::write(d / "e.csv", "a,b\n1,2\n3\n4,5,6\n");
    data::CsvReader csv(path);
    REQUIRE(csv.read_header());
    REQUIRE(csv.next_row());
    REQUIRE(csv.next_row());  // fewer cells: the caller's to refuse ("found none")
    CHECK(csv.cells() == Cells{"3"});
    CHECK_THROWS_WITH_AS(
        csv.next_row(),
        (path + ":4: expected 2 comma-separated fields, found 3: column 3 ('6') is past "
                "the header 'a,b'")
            .c_str(),
        core::ConfigError);
    // A trailing comma is an extra (empty) cell too.
    const std::string trailing = test::write(d / "t.csv", "a,b\n1,2,\n");
    data::CsvReader t(trailing);
    REQUIRE(t.read_header());
    CHECK_THROWS_WITH_AS(t.next_row(), doctest::Contains("t.csv:2: expected 2 comma-separated"),
                         core::ConfigError);
  }

  TEST_CASE("number_cell and integer_cell parse whole cells and name file, line and column") {
    const auto d = test::tmp_dir("pz_csv", "cells");
    const std::string path =
        test::write(d / "c.csv", "x,n\n2.5e1,3.0\nnan,1.5\n1e400,7\n12abc,-1\n1\n");
    data::CsvReader csv(path);
    REQUIRE(csv.read_header());
    REQUIRE(csv.next_row());
    CHECK(csv.number_cell(0, "x") == 25.0);
    // "3.0" is a float in an integer column: refused (a user trial found "1e1" read as 10).
    CHECK_THROWS_WITH_AS(
        csv.integer_cell(1, "n", 0, 10, "an integer in [0, 10]"),
        (path + ":2: expected an integer in [0, 10] in column 'n', found '3.0'").c_str(),
        core::ConfigError);
    REQUIRE(csv.next_row());
    CHECK_THROWS_WITH_AS(csv.number_cell(0, "x"),
                         (path + ":3: expected a number in column 'x', found 'nan'").c_str(),
                         core::ConfigError);
    CHECK_THROWS_AS(csv.integer_cell(1, "n", 0, 10, "an integer"), core::ConfigError);  // 1.5
    REQUIRE(csv.next_row());
    CHECK_THROWS_AS(csv.number_cell(0, "x"), core::ConfigError);  // out of range
    CHECK(csv.integer_cell(1, "n", 0, 10, "an integer") == 7);
    REQUIRE(csv.next_row());
    CHECK_THROWS_WITH_AS(csv.number_cell(0, "x"),
                         (path + ":5: expected a number in column 'x', found '12abc'").c_str(),
                         core::ConfigError);
    CHECK(csv.number_cell(1, "n") == -1.0);
    REQUIRE(csv.next_row());
    CHECK_THROWS_WITH_AS(csv.number_cell(1, "n"),
                         (path + ":6: expected a value in column 'n', found none").c_str(),
                         core::ConfigError);
  }

  // Guards the sign rule (issue 36, a user trial): "+6" was read as 6 in integer columns and by
  // number_cell, while every other number reader refused it. Now one rule: no '+'.
  TEST_CASE("a leading '+' is refused in integer and number cells, with the fix in the message") {
    const auto d = test::tmp_dir("pz_csv", "plus");
    const std::string path = test::write(d / "p.csv", "n,x\n+6,+2.5\n 6 ,\t-2.5e1 \n");
    data::CsvReader csv(path);
    REQUIRE(csv.read_header());
    REQUIRE(csv.next_row());
    CHECK_THROWS_WITH_AS(csv.integer_cell(0, "n", 0, 10, "an integer"),
                         (path + ":2: expected an integer in column 'n', found '+6' (no '+' sign: "
                                 "write 6)")
                             .c_str(),
                         core::ConfigError);
    CHECK_THROWS_WITH_AS(
        csv.number_cell(1, "x"),
        (path + ":2: expected a number in column 'x', found '+2.5' (no '+' sign: write 2.5)")
            .c_str(),
        core::ConfigError);
    REQUIRE(csv.next_row());  // surrounding spaces and tabs are trimmed: the cells read
    CHECK(csv.integer_cell(0, "n", 0, 10, "an integer") == 6);
    CHECK(csv.number_cell(1, "x") == -25.0);
  }

  TEST_CASE("parse_csv_number: from_chars syntax, the whole cell, finite") {
    double v = 0;
    CHECK((data::parse_csv_number("2.5e1", v) && v == 25.0));
    CHECK((data::parse_csv_number("-.5", v) && v == -0.5));
    CHECK((data::parse_csv_number("5.", v) && v == 5.0));
    for (const char* bad : {"", "+1", " 1", "1 ", "0x1p3", "nan", "inf", "-inf", "infinity",
                            "1e400", "1,5", "1.5x", "--1"}) {
      CAPTURE(bad);
      CHECK_FALSE(data::parse_csv_number(bad, v));
    }
  }

  TEST_CASE("show_cell makes tabs and invisible Unicode spaces visible") {
    CHECK(data::show_cell("6") == "6");
    CHECK(data::show_cell("6\t7") == "6\\t7");
    CHECK(data::show_cell("6\xC2\xA0") == "6\\u00A0");  // no-break space
    CHECK(data::show_cell("\xE2\x80\x8B"
                          "6") == "\\u200B6");                    // zero-width space
    CHECK(data::show_cell("\xEF\xBB\xBFstep") == "\\uFEFFstep");  // a BOM not at the file's start
    CHECK(data::show_cell("\xE2\x80\xAF\xE2\x81\xA0") == "\\u202F\\u2060");
    CHECK(data::show_cell("caf\xC3\xA9\x01") == "caf\xC3\xA9\\x01");  // UTF-8 kept, control escaped
  }

  // Guards issue 36 (a user trial): Excel's "CSV UTF-8" starts with a byte-order mark, which made
  // the first column 'step' unknown with an invisible character in the message.
  TEST_CASE("a UTF-8 byte-order mark is skipped; CRLF files read as LF files") {
    const auto d = test::tmp_dir("pz_csv", "bom");
    const std::string path =
        test::write(d / "b.csv", "\xEF\xBB\xBFstep,value\r\n1,2.5\r\n\r\n3,4\r\n");
    data::CsvReader csv(path);
    REQUIRE(csv.read_header());
    CHECK(csv.header() == Cells{"step", "value"});
    CHECK(csv.header_line() == "step,value");
    CHECK(csv.column("step") == 0);
    REQUIRE(csv.next_row());
    CHECK(csv.line() == "1,2.5");
    CHECK(csv.integer_cell(0, "step", 0, 9, "a step") == 1);
    CHECK(csv.number_cell(1, "value") == 2.5);
    REQUIRE(csv.next_row());
    CHECK(csv.line_number() == 4);
    CHECK(csv.cells() == Cells{"3", "4"});
    CHECK_FALSE(csv.next_row());
    // Only at the start of the file: a BOM in a later line is a character of its cell.
    const std::string later = test::write(d / "l.csv",
                                          "a\n\xEF\xBB\xBF"
                                          "1\n");
    data::CsvReader l(later);
    REQUIRE(l.read_header());
    REQUIRE(l.next_row());
    CHECK_THROWS_WITH_AS(
        l.integer_cell(0, "a", 0, 9, "an integer"),
        (later + ":2: expected an integer in column 'a', found '\\uFEFF1'").c_str(),
        core::ConfigError);
  }

  TEST_CASE("UTF-16 files and CR-only line endings are refused by name") {
    const auto d = test::tmp_dir("pz_csv", "enc");
    const std::string u16 = test::write(d / "u.csv", std::string("\xFF\xFEs\0t\0e\0p\0\n\0", 12));
    data::CsvReader u(u16);
    CHECK_THROWS_WITH_AS(u.read_header(),
                         (u16 + ":1: expected a UTF-8 CSV, found a UTF-16 byte-order mark (Excel's "
                                "\"Unicode text\"; save the file as \"CSV UTF-8\")")
                             .c_str(),
                         core::ConfigError);
    const std::string cr = test::write(d / "c.csv", "a,b\r1,2\r3,4\r");
    data::CsvReader c(cr);
    CHECK_THROWS_WITH_AS(c.read_header(),
                         (cr + ":1: expected lines ending in LF or CRLF, found a carriage return "
                               "inside line 1 (CR-only line endings? save the file with LF or "
                               "CRLF line endings)")
                             .c_str(),
                         core::ConfigError);
    const std::string mid = test::write(d / "m.csv", "a,b\n1,2\r3,4\n");
    data::CsvReader m(mid);
    REQUIRE(m.read_header());
    CHECK_THROWS_WITH_AS(m.next_row(), doctest::Contains("m.csv:2: expected lines ending in LF"),
                         core::ConfigError);
  }

  // Guards issue 36 (a user trial): a scenario file's 'comment' column was accepted and ignored.
  TEST_CASE("expect_only_columns names the first column outside the fixed header") {
    const auto d = test::tmp_dir("pz_csv", "only");
    data::CsvReader ok(test::write(d / "o.csv", "b, a\n"));
    REQUIRE(ok.read_header());
    CHECK_NOTHROW(ok.expect_only_columns({"a", "b"}, "a, b"));
    const std::string path = test::write(d / "x.csv", "a,b,comment\n");
    data::CsvReader x(path);
    REQUIRE(x.read_header());
    CHECK_THROWS_WITH_AS(
        x.expect_only_columns({"a", "b"}, "a, b"),
        (path + ":1: expected only the columns a, b, found column 3 'comment'").c_str(),
        core::ConfigError);
    const std::string trailing = test::write(d / "t.csv", "a,b,\n");
    data::CsvReader t(trailing);
    REQUIRE(t.read_header());
    CHECK_THROWS_WITH_AS(
        t.expect_only_columns({"a", "b"}, "a, b"),
        (trailing + ":1: expected only the columns a, b, found column 3 ''").c_str(),
        core::ConfigError);
  }
}
