// Tests of the MATPOWER case parser, case path resolution and generator cost evaluation.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "test_grid_util.hpp"

namespace {

using pz::core::ConfigError;
using pz::grid::Case;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Message of the ConfigError thrown by parse_case(text, file), or "" if none.
std::string parse_error(const std::string& text, const std::string& file) {
  try {
    pz::grid::parse_case(text, file);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// Three buses with non-contiguous ids, comments everywhere, mixed row terminators.
const char* kSmallCase = R"(function mpc = small3
% a hand-written test case
mpc.version = '2';
mpc.baseMVA = 100;   % system base
mpc.bus = [
  10  3  0    0   0 0 1 1 0 230 1 1.1 0.9;   % slack
  20	1	50	10	0	0	1	1	0	230	1	1.1	0.9
  30  2  -0.5 1e-3 0 0 1 1 0 230 1 1.1 0.9; % negative load
];
mpc.gen = [
  10 0  0 Inf -Inf 1 100 1 200 0;  30 20 0 10 -10 1 100 1 1e2 0
];
mpc.branch = [
  10 20 0.01 0.1  0 0   0 0 0     0 1;
  20 30 0.01 0.2  0 150 0 0 0.978 0 1;
  10 30 0.01 0.25 0 0   0 0 0     0 1
];
mpc.gencost = [
  2 0 0 3 0.01 20 100 0 0 0;
  1 5 6 3 0 0 100 2000 200 5000;
  2 0 0 2 1 0 0 0 0 0;
  2 0 0 2 1 0 0 0 0 0;
];
mpc.bus_name = {
  'Ten';
  'Twenty % not a comment';
  'Thirty';
};
x = unknown_function(3);
disp('ignored statement')
)";

}  // namespace

TEST_SUITE("grid_case") {
  TEST_CASE("case5 contents") {
    const Case c = pz::grid::load_case(pz::grid::resolve_case_path("case5"));
    CHECK(c.name == "case5");
    CHECK(c.source_path.find("case5.m") != std::string::npos);
    CHECK(c.base_mva == 100);
    REQUIRE(c.n_bus() == 5);
    REQUIRE(c.n_gen() == 5);
    REQUIRE(c.n_branch() == 6);
    for (int k = 0; k < 5; ++k) CHECK(c.bus[k].id == k + 1);
    CHECK(c.bus[1].pd_mw == 300);
    CHECK(c.bus[3].qd_mvar == doctest::Approx(131.47));
    CHECK(c.bus[3].type == 3);
    CHECK(c.ref_bus_idx == 3);
    const double pmax[] = {40, 170, 520, 200, 600};
    const int gbus[] = {0, 0, 2, 3, 4};
    for (int g = 0; g < 5; ++g) {
      CHECK(c.gen[g].pmax_mw == pmax[g]);
      CHECK(c.gen_bus_idx[g] == gbus[g]);
      CHECK(c.gen[g].status == 1);
    }
    CHECK(c.gen[2].pg_mw == doctest::Approx(323.49));
    CHECK(c.gen[1].qmin_mvar == doctest::Approx(-127.5));
    const double rate[] = {400, 0, 0, 0, 0, 240};
    for (int l = 0; l < 6; ++l) CHECK(c.branch[l].rate_a_mva == rate[l]);
    CHECK(c.branch[0].x_pu == doctest::Approx(0.0281));
    CHECK(c.branch[5].from == 4);
    CHECK(c.branch[5].to == 5);
    CHECK(c.branch_from_idx[5] == 3);
    CHECK(c.branch_to_idx[5] == 4);
    CHECK(c.branch[0].angmin_deg == -360);
    REQUIRE(c.gencost.size() == 5);
    const double lin[] = {14, 15, 30, 40, 10};
    for (int g = 0; g < 5; ++g) {
      CHECK(c.gencost[g].model == 2);
      REQUIRE(c.gencost[g].coeffs.size() == 2);
      CHECK(c.gencost[g].coeffs[0] == lin[g]);
      CHECK(c.gencost[g].coeffs[1] == 0);
    }
    CHECK(pz::grid::gen_cost(c.gencost[2], 100) == doctest::Approx(3000));
  }

  TEST_CASE("non-contiguous bus ids, comments, row terminators and number formats") {
    const Case c = pz::grid::parse_case(kSmallCase, "small3.m");
    CHECK(c.name == "small3");
    REQUIRE(c.n_bus() == 3);
    REQUIRE(c.n_gen() == 2);
    REQUIRE(c.n_branch() == 3);
    CHECK(c.bus[0].id == 10);
    CHECK(c.bus[1].id == 20);
    CHECK(c.bus[2].id == 30);
    CHECK(c.bus[1].pd_mw == 50);  // tab-separated row ended by a newline
    CHECK(c.bus[2].pd_mw == -0.5);
    CHECK(c.bus[2].qd_mvar == 1e-3);
    CHECK(c.bus_index(30) == 2);
    CHECK_THROWS_AS(c.bus_index(31), ConfigError);
    CHECK(c.gen_bus_idx == std::vector<int>{0, 2});
    CHECK(c.gen[0].qmax_mvar == std::numeric_limits<double>::infinity());
    CHECK(c.gen[0].qmin_mvar == -std::numeric_limits<double>::infinity());
    CHECK(c.gen[1].pmax_mw == 100);  // two rows on one line
    CHECK(c.branch_from_idx == std::vector<int>{0, 1, 0});
    CHECK(c.branch_to_idx == std::vector<int>{1, 2, 2});
    CHECK(c.ref_bus_idx == 0);
    // rateA 0 is kept as 0 (unlimited); tap 0 means 1.
    CHECK(c.branch[0].rate_a_mva == 0);
    CHECK(c.branch[1].rate_a_mva == 150);
    CHECK(c.branch[0].tap == 0);
    CHECK(c.branch[0].effective_tap() == 1.0);
    CHECK(c.branch[1].effective_tap() == 0.978);
    // ANGMIN/ANGMAX optional (11 columns here).
    CHECK(c.branch[0].angmin_deg == -360);
    CHECK(c.branch[2].angmax_deg == 360);
    // gencost with 2·ng rows: only the first ng (active power) rows are kept.
    REQUIRE(c.gencost.size() == 2);
    CHECK(c.gencost[0].coeffs == std::vector<double>{0.01, 20, 100});
    CHECK(c.gencost[1].model == 1);
    CHECK(c.gencost[1].startup == 5);
    CHECK(c.gencost[1].shutdown == 6);
    CHECK(c.gencost[1].coeffs == std::vector<double>{0, 0, 100, 2000, 200, 5000});
  }

  TEST_CASE("no ref bus: first bus is the reference") {
    std::string text = kSmallCase;
    text.replace(text.find("10  3  0"), 8, "10  2  0");
    const Case c = pz::grid::parse_case(text, "noref.m");
    CHECK(c.ref_bus_idx == 0);
  }

  TEST_CASE("gen_cost polynomial by hand") {
    pz::grid::GenCost q{2, 0, 0, {0.01, 20, 100}};
    CHECK(pz::grid::gen_cost(q, 50) == doctest::Approx(0.01 * 2500 + 20 * 50 + 100));
    CHECK(pz::grid::gen_cost(q, 0) == 100);
    pz::grid::GenCost lin{2, 0, 0, {14, 0}};
    CHECK(pz::grid::gen_cost(lin, 40) == doctest::Approx(560));
    pz::grid::GenCost cubic{2, 0, 0, {1, 0, 0, 2}};
    CHECK(pz::grid::gen_cost(cubic, 3) == doctest::Approx(29));
    pz::grid::GenCost empty{2, 0, 0, {}};
    CHECK(pz::grid::gen_cost(empty, 3) == 0);
  }

  TEST_CASE("gen_cost piecewise linear by hand") {
    const Case c = pz::grid::parse_case(kSmallCase, "small3.m");
    const pz::grid::GenCost& pw = c.gencost[1];  // (0,0) (100,2000) (200,5000)
    CHECK(pz::grid::gen_cost(pw, 0) == doctest::Approx(0));
    CHECK(pz::grid::gen_cost(pw, 50) == doctest::Approx(1000));
    CHECK(pz::grid::gen_cost(pw, 100) == doctest::Approx(2000));
    CHECK(pz::grid::gen_cost(pw, 150) == doctest::Approx(3500));
    CHECK(pz::grid::gen_cost(pw, 200) == doctest::Approx(5000));
    CHECK(pz::grid::gen_cost(pw, 250) == doctest::Approx(6500));  // last segment extrapolated
    CHECK(pz::grid::gen_cost(pw, -10) == doctest::Approx(-200));  // first segment extrapolated
  }

  TEST_CASE("truncated file: matrix never closed") {
    const std::string full = read_text(pz::grid::resolve_case_path("case5"));
    // The file cut in half (here just after mpc.bus): a ConfigError naming file and line.
    std::string msg = parse_error(full.substr(0, full.size() / 2), "case5_half.m");
    INFO(msg);
    REQUIRE(!msg.empty());
    CHECK(msg.find("case5_half.m:") == 0);
    CHECK(std::isdigit(static_cast<unsigned char>(msg[std::string("case5_half.m:").size()])));
    // Cut inside the gen matrix: the matrix is never closed.
    const size_t in_gen = full.find("323.49");
    msg = parse_error(full.substr(0, in_gen), "case5_cut.m");
    CHECK(msg.find("case5_cut.m:36: expected ']' closing mpc.gen (opened at line 33), found end of "
                   "file") == 0);
    // Every prefix that ends before mpc.branch is closed throws ConfigError (never crashes).
    const size_t branch_end = full.find("];", full.find("mpc.branch"));
    for (size_t cut = 0; cut <= branch_end; cut += 37) {
      CAPTURE(cut);
      CHECK_THROWS_AS(pz::grid::parse_case(full.substr(0, cut), "cut.m"), ConfigError);
    }
    const size_t gencost = full.find("mpc.gencost");
    CHECK_THROWS_AS(pz::grid::parse_case(full.substr(0, gencost + 30), "cut.m"), ConfigError);
  }

  TEST_CASE("malformed input errors name file, line, expectation and finding") {
    std::string text = kSmallCase;
    text.replace(text.find("-0.5 1e-3"), 4, "abc!");
    std::string msg = parse_error(text, "bad.m");
    INFO(msg);
    CHECK(msg.find("bad.m:8: expected a number in mpc.bus, found 'abc'") == 0);

    text = kSmallCase;
    text.replace(text.find("30 20 0 10"), 2, "99");
    msg = parse_error(text, "bad.m");
    CHECK(msg.find("bad.m:11: expected gen bus to be a bus id of mpc.bus, found 99") == 0);

    text = kSmallCase;
    text.replace(text.find("20 30 0.01"), 5, "20 31");
    msg = parse_error(text, "bad.m");
    CHECK(msg.find("bad.m:15: expected branch to-bus") == 0);

    text = kSmallCase;
    text.replace(text.find("30  2  -0.5"), 2, "10");
    msg = parse_error(text, "bad.m");
    CHECK(msg.find("bad.m:8: expected unique bus ids, found bus 10 again (first at line 6)") == 0);

    text = kSmallCase;
    text.replace(text.find("1 1 0 230 1 1.1 0.9; % negative"), 5, "1 1");
    msg = parse_error(text, "bad.m");
    CHECK(msg.find("bad.m:8: expected 13 columns in mpc.bus row 3") == 0);

    text = kSmallCase;
    text.replace(text.find("mpc.baseMVA = 100"), 17, "mpc.baseMVA = 0");
    msg = parse_error(text, "bad.m");
    CHECK(msg.find("bad.m:4: expected mpc.baseMVA in [0.001, 1e6] MVA, found 0") == 0);

    text = kSmallCase;
    text.replace(text.find("mpc.branch = ["), 10, "mpc.lines ");
    msg = parse_error(text, "bad.m");
    CHECK(msg.find("expected an mpc.branch matrix") != std::string::npos);

    CHECK(parse_error("mpc.baseMVA = 100;\nmpc.bus = [1 3 0 0 0 0 1 1 0 1 1 1.1];\n", "x.m")
              .find("x.m:2: expected at least 13 columns in mpc.bus, found 12") == 0);
    CHECK(parse_error(std::string(kSmallCase) + "mpc.areas = [1 2;\n", "open.m")
              .find("expected ']' closing mpc.areas") != std::string::npos);
  }

  TEST_CASE("missing files and unknown bundled names") {
    CHECK_THROWS_WITH_AS(pz::grid::load_case("/nonexistent/dir/case5.m"),
                         "case file '/nonexistent/dir/case5.m' not found", ConfigError);
    CHECK_THROWS_WITH_AS(pz::grid::resolve_case_path("nosuchdir/x.m"),
                         "case file 'nosuchdir/x.m' not found", ConfigError);
    CHECK_THROWS_WITH_AS(pz::grid::resolve_case_path("nosuch.m"), "case file 'nosuch.m' not found",
                         ConfigError);
    try {
      pz::grid::resolve_case_path("case6");
      FAIL("expected ConfigError");
    } catch (const ConfigError& e) {
      const std::string msg = e.what();
      CHECK(msg.find("'case6'") != std::string::npos);
      CHECK(msg.find("case118") != std::string::npos);
      CHECK(msg.find("case5") != std::string::npos);
    }
    // A user path is returned unchanged when it exists.
    const std::string p = pz::grid::resolve_case_path("case5");
    CHECK(pz::grid::resolve_case_path(p) == p);
  }

  TEST_CASE("all bundled cases parse with the expected sizes") {
    // name -> (buses, gens, branches), as in data/README.md
    const std::map<std::string, std::tuple<int, int, int>> expected = {
        {"case5", {5, 5, 6}},        {"case9", {9, 3, 9}},
        {"case14", {14, 5, 20}},     {"case24_ieee_rts", {24, 33, 38}},
        {"case30", {30, 6, 41}},     {"case39", {39, 10, 46}},
        {"case57", {57, 7, 80}},     {"case118", {118, 54, 186}},
        {"case300", {300, 69, 411}}, {"case33bw", {33, 1, 37}},
        {"case69", {69, 1, 68}},     {"case141", {141, 1, 140}}};
    const std::vector<std::string> names = pz::grid::bundled_cases();
    CHECK(std::is_sorted(names.begin(), names.end()));
    CHECK(names.size() == expected.size());
    for (const auto& name : names) {
      CAPTURE(name);
      REQUIRE(expected.count(name) == 1);
      const Case c = pz::grid::load_case(pz::grid::resolve_case_path(name));
      const auto [nb, ng, nl] = expected.at(name);
      CHECK(c.name == name);
      CHECK(c.n_bus() == nb);
      CHECK(c.n_gen() == ng);
      CHECK(c.n_branch() == nl);
      CHECK(c.gencost.size() == static_cast<size_t>(ng));
      CHECK(c.bus[c.ref_bus_idx].type == 3);
    }
    const Case c33 = pz::grid::load_case(pz::grid::resolve_case_path("case33bw"));
    int open = 0;
    for (const auto& br : c33.branch) open += br.status == 0;
    CHECK(open == 5);
    const Case c118 = pz::grid::load_case(pz::grid::resolve_case_path("case118"));
    CHECK(c118.bus[c118.ref_bus_idx].id == 69);
    CHECK(c118.bus[c118.ref_bus_idx].va_deg == 30);
  }

  TEST_CASE("post-processing statements on the matrices") {
    std::string text = kSmallCase;
    text += "scale = 2;\nmpc.bus(2, PD) = mpc.bus(2, PD) * scale + 1;\n";
    text += "mpc.gen(end, [PMAX, PMIN]) = [300 10];\nmpc.baseMVA = mpc.baseMVA / 10;\n";
    const Case c = pz::grid::parse_case(text, "post.m");
    CHECK(c.bus[1].pd_mw == 101);
    CHECK(c.gen[1].pmax_mw == 300);
    CHECK(c.gen[1].pmin_mw == 10);
    CHECK(c.base_mva == 10);
    const std::string msg =
        parse_error(std::string(kSmallCase) + "mpc.bus(:, PD) = foo(mpc.bus(:, PD));\n", "post.m");
    INFO(msg);
    CHECK(msg.find("post.m:31: expected a supported function, found 'foo('") == 0);
  }

  TEST_CASE("distribution cases apply their unit conversions (kW -> MW, ohm -> p.u., pf)") {
    // case33bw/case69/case141 end with MATPOWER statements that rescale PD/QD and r/x.
    const Case c33 = pz::grid::load_case(pz::grid::resolve_case_path("case33bw"));
    CHECK(c33.base_mva == 10);
    CHECK(c33.bus[1].pd_mw == doctest::Approx(0.1));
    CHECK(c33.bus[1].qd_mvar == doctest::Approx(0.06));
    const double zbase = 12.66 * 12.66 / 10.0;
    CHECK(c33.branch[0].r_pu == doctest::Approx(0.0922 / zbase).epsilon(1e-12));
    CHECK(c33.branch[0].x_pu == doctest::Approx(0.0470 / zbase).epsilon(1e-12));
    // Compare every load with MATPOWER's own loaded case (golden AC PF echo of PD/QD).
    for (const char* name : {"case33bw", "case141"}) {
      CAPTURE(name);
      const nlohmann::json j = pz::test::golden(std::string(name) + "_acpf.json");
      const Case c = pz::grid::load_case(pz::grid::resolve_case_path(name));
      REQUIRE(j.at("bus_pd_mw").size() == c.bus.size());
      double dev = 0;
      for (size_t k = 0; k < c.bus.size(); ++k) {
        dev = std::max(dev, std::abs(c.bus[k].pd_mw - j["bus_pd_mw"][k].get<double>()));
        dev = std::max(dev, std::abs(c.bus[k].qd_mvar - j["bus_qd_mvar"][k].get<double>()));
      }
      CHECK(dev < 1e-9);
    }
  }

  TEST_CASE("regression: NaN and Inf in case columns are bad input (QMAX/QMIN may be Inf)") {
    const std::string base = read_text(pz::grid::resolve_case_path("case5"));
    auto with_gen_col = [&](int col, const std::string& value) {
      // The first gen row of case5: replace column `col` (1-based).
      const size_t at = base.find("mpc.gen = [");
      const size_t row = base.find('\n', at) + 1, end = base.find('\n', row);
      std::stringstream ss(base.substr(row, end - row));
      std::string out, cell;
      for (int k = 1; ss >> cell; ++k) out += (k > 1 ? "\t" : "\t") + (k == col ? value : cell);
      return base.substr(0, row) + out + base.substr(end);
    };
    CHECK(parse_error(with_gen_col(9, "nan"), "c.m") ==
          "c.m:34: expected a finite number in mpc.gen row 1 column 9 (PMAX), found nan");
    CHECK(parse_error(with_gen_col(9, "Inf"), "c.m") ==
          "c.m:34: expected a finite number in mpc.gen row 1 column 9 (PMAX), found inf");
    CHECK(parse_error(with_gen_col(4, "Inf"), "c.m").empty());
    std::string rate = base;
    rate.replace(rate.find("400\t400\t400"), 3, "NaN");
    CHECK(parse_error(rate, "c.m").find("mpc.branch row") != std::string::npos);
    std::string cost = base;
    const size_t gc = cost.find('\n', cost.find("mpc.gencost = [")) + 1;
    cost.replace(cost.find("14", gc), 2, "1e30");
    CHECK(parse_error(cost, "c.m").find("magnitude <= 1e15 in mpc.gencost row 1") !=
          std::string::npos);
  }

  TEST_CASE("regression: a negative branch rating is bad input, not an unlimited line") {
    // The DC solvers read RATE_A < 0 as unlimited (0 is MATPOWER's "unlimited") and reported a
    // wrong optimum with exit 0.
    std::string base = read_text(pz::grid::resolve_case_path("case5"));
    const size_t row = base.find("\t4\t5\t");
    base.replace(base.find("\t240\t", row), 5, "\t-240\t");
    CHECK(parse_error(base, "c.m") ==
          "c.m:49: expected mpc.branch row 6 column 6 (RATE_A) >= 0 (0 = unlimited), found "
          "-240.000000");
  }

  TEST_CASE("regression: control flow is refused, block comments are skipped") {
    const std::string base = read_text(pz::grid::resolve_case_path("case5"));
    const int n_lines = static_cast<int>(std::count(base.begin(), base.end(), '\n'));
    CHECK(parse_error(base + "if 0\n  mpc.bus(:, PD) = mpc.bus(:, PD) * 2;\nend\n", "c.m") ==
          "c.m:" + std::to_string(n_lines + 1) +
              ": expected a MATPOWER case statement (control flow is not evaluated), found 'if'");
    CHECK(parse_error(base + "return;\nmpc.baseMVA = 1;\n", "c.m").find("found 'return'") !=
          std::string::npos);
    CHECK(parse_error(base + "end\nmpc.baseMVA = 1;\n", "c.m").find("nothing after the 'end'") !=
          std::string::npos);
    CHECK(parse_error(base + "end\n\n", "c.m").empty());  // the end of the case function
    const Case c = pz::grid::parse_case(
        base + "%{\nmpc.bus(:, PD) = mpc.bus(:, PD) * 2;\n  %{\n nested\n  %}\n%}\n", "c.m");
    double pd = 0;
    for (const auto& b : c.bus) pd += b.pd_mw;
    CHECK(pd == doctest::Approx(1000.0));
  }
}
