// core::echo: user input shown in error messages is cut and made printable.
#include <doctest/doctest.h>

#include <string>

#include "powerzoo/core/echo.hpp"

using pz::core::echo;
using pz::core::printable_utf8;

TEST_SUITE("core_echo") {
  TEST_CASE("short printable UTF-8 passes unchanged") {
    CHECK(echo("case5.m") == "case5.m");
    CHECK(echo("déjà vu\tok") == "déjà vu\tok");
    CHECK(echo("") == "");
  }

  TEST_CASE("bytes that are not UTF-8 and control characters become \\xHH") {
    CHECK(echo("caf\xe9!") == "caf\\xE9!");
    CHECK(echo(std::string("a\0b", 3)) == "a\\x00b");
    CHECK(echo("line\nbreak") == "line\\x0Abreak");
    CHECK(echo("\xc0\xaf") == "\\xC0\\xAF");  // an overlong '/' is not UTF-8
    CHECK(echo("\xe2\x82") == "\\xE2\\x82");  // a sequence cut short
  }

  TEST_CASE("long input is cut at a character boundary with its length") {
    const std::string s(100000, 'k');
    const std::string e = echo(s);
    CHECK(e == std::string(80, 'k') + "... (100000 characters)");
    std::string u;  // 2-byte characters: the cut never splits one
    for (int i = 0; i < 60; ++i) u += "é";
    CHECK(echo(u, 5) == "ééé... (120 characters)");
    CHECK(echo("abcdef", 6) == "abcdef");
  }

  TEST_CASE("printable_utf8") {
    CHECK(printable_utf8("tiny-run_3"));
    CHECK(printable_utf8("é\t"));
    CHECK_FALSE(printable_utf8(std::string("a\0", 2)));
    CHECK_FALSE(printable_utf8("\x7f"));
    CHECK_FALSE(printable_utf8("\xff"));
  }
}
