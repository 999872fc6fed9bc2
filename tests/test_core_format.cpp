// core::format_number and core::format_printf: the one number formatter of messages and tables.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "powerzoo/core/format.hpp"

using pz::core::format_number;
using pz::core::format_printf;

TEST_SUITE("core_format") {
  TEST_CASE("format_number(x) is the shortest text that reads back exactly") {
    CHECK(format_number(0.5) == "0.5");
    CHECK(format_number(0.1 + 0.2) == "0.30000000000000004");
    CHECK(std::stod(format_number(1.0 / 3.0)) == 1.0 / 3.0);
    CHECK(format_number(1e308) == "1e+308");
    CHECK(format_number(std::numeric_limits<double>::infinity()) == "inf");
  }

  TEST_CASE("format_number(x, digits) writes as printf's %.*g and an ostream's << x") {
    CHECK(format_number(1.0 / 3.0, 6) == "0.333333");
    CHECK(format_number(1e6, 6) == "1e+06");
    CHECK(format_number(123456.7, 6) == "123457");
    CHECK(format_number(2.0 / 3.0, 4) == "0.6667");
    CHECK(format_number(0.5, 12) == "0.5");
    CHECK(format_number(std::nan(""), 6) == "nan");
  }

  TEST_CASE("format_printf does not cut a long result") {
    CHECK(format_printf("%6.2f|%s|%d", 3.14159, "ab", 7) == "  3.14|ab|7");
    const std::string label(700, 'x');
    CHECK(format_printf("[%s]", label.c_str()) == "[" + label + "]");
    CHECK(format_printf("plain") == "plain");
  }
}
