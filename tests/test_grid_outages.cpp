// Out-of-service edits (grid/case/outages): `branch:K,gen:G` equals editing the case file's
// status column, for every branch of case118 and case300 (islanding ones included), and bad
// lists are refused saying what was expected and what was found.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/case/outages.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "test_grid_util.hpp"

namespace {

std::string bundled_text(const std::string& name) {
  std::ifstream in(std::string(PZ_SOURCE_DIR) + "/data/cases/" + name + ".m");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The case text with the status column (column `col`, 1-based) of data row `row` (0-based) of
/// matrix `matrix` ("branch": 11, "gen": 8) set to 0: the edit a user makes by hand.
std::string status_edited(const std::string& text, const std::string& matrix, int row, int col) {
  std::istringstream in(text);
  std::string line, out;
  bool inside = false;
  int r = -1;
  while (std::getline(in, line)) {
    if (line.find("mpc." + matrix + " = [") != std::string::npos) {
      inside = true;
    } else if (inside && line.find("];") != std::string::npos) {
      inside = false;
    } else if (inside && line.find_first_not_of(" \t") != std::string::npos &&
               line[line.find_first_not_of(" \t")] != '%' && ++r == row) {
      std::istringstream tok(line);
      std::vector<std::string> t;
      for (std::string s; tok >> s;) t.push_back(s);
      REQUIRE(static_cast<int>(t.size()) >= col);
      const bool semi = t[col - 1].back() == ';';
      t[col - 1] = semi ? "0;" : "0";
      line.clear();
      for (const auto& s : t) line += "\t" + s;
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

TEST_SUITE("grid_outages") {
  TEST_CASE("--out-of-service branch:K equals the case file with that branch's status 0") {
    for (const char* name : {"case118", "case300"}) {
      const std::string text = bundled_text(name);
      const pz::grid::Case base = pz::grid::parse_case(text, std::string(name) + ".m");
      int islanding = 0;
      for (int k = 0; k < base.n_branch(); ++k) {
        if (base.branch[k].status == 0) continue;  // out already: refused (below)
        pz::grid::Case a = base;
        pz::grid::apply_outages(a, pz::grid::parse_outages("branch:" + std::to_string(k + 1), a));
        const pz::grid::Case b =
            pz::grid::parse_case(status_edited(text, "branch", k, 11), "edited.m");
        REQUIRE(b.branch[k].status == 0);
        const auto ra = pz::grid::run_dcpf(a), rb = pz::grid::run_dcpf(b);
        REQUIRE(ra.success == rb.success);
        CHECK_MESSAGE(ra.branch_pf_mw == rb.branch_pf_mw, name << " branch " << k + 1);
        CHECK(ra.bus_va_deg == rb.bus_va_deg);
        CHECK(ra.gen_pg_mw == rb.gen_pg_mw);
        CHECK(ra.dead_buses == rb.dead_buses);
        islanding += pz::grid::find_islands(a).n > pz::grid::find_islands(base).n ? 1 : 0;
      }
      // Both cases have radial branches (a load or generator bus on one line): their outages
      // island, and the comparison covers them.
      CHECK_MESSAGE(islanding > 0, name);
    }
  }

  TEST_CASE("gen:G equals the case file with that gen's status 0") {
    const std::string text = bundled_text("case118");
    const pz::grid::Case base = pz::grid::parse_case(text, "case118.m");
    for (int g : {0, 10, base.n_gen() - 1}) {
      pz::grid::Case a = base;
      pz::grid::apply_outages(a, pz::grid::parse_outages("gen:" + std::to_string(g + 1), a));
      const pz::grid::Case b = pz::grid::parse_case(status_edited(text, "gen", g, 8), "e.m");
      REQUIRE(b.gen[g].status == 0);
      CHECK(pz::grid::run_dcpf(a).branch_pf_mw == pz::grid::run_dcpf(b).branch_pf_mw);
    }
    pz::grid::Case two = base;
    const auto o = pz::grid::parse_outages("branch:3,gen:2,branch:7", two);
    CHECK(o.branches == std::vector<int>{2, 6});
    CHECK(o.gens == std::vector<int>{1});
    pz::grid::apply_outages(two, o);
    CHECK(two.branch[2].status == 0);
    CHECK(two.branch[6].status == 0);
    CHECK(two.gen[1].status == 0);
    CHECK(two.branch[3].status == 1);
  }

  TEST_CASE("bad lists name what was expected and what was found") {
    const pz::grid::Case c = pz::test::bundled("case5");
    struct Bad {
      const char* text;
      const char* says;
    };
    const Bad bad[] = {
        {"", "found an empty value"},
        {"line:2", "expected the element 'branch' or 'gen', found 'line:2'"},
        {"branch", "expected items of the form branch:K or gen:G, found 'branch'"},
        {"branch:0", "expected a row number"},
        {"branch:-1", "found '-1'"},
        {"branch:1.5", "found '1.5'"},
        {"branch:7", "expected a branch row in 1..6"},
        {"gen:6", "expected a gen row in 1..5"},
        {"branch:2,branch:2", "found 'branch:2' twice"},
        {"branch:2,", "found ''"},
        {"branch:99999999999", "found '99999999999'"},
    };
    // A row the case has out already (a user trial: accepted, while a scenario file refuses it).
    pz::grid::Case off = c;
    off.branch[1].status = 0;
    try {
      pz::grid::parse_outages("gen:1,branch:2", off);
      FAIL("accepted a branch out of service already");
    } catch (const pz::core::ConfigError& e) {
      CHECK(std::string(e.what()).find("expected a branch in service in the case, found "
                                       "'branch:2' out of service in") != std::string::npos);
    }
    for (const Bad& b : bad) {
      try {
        pz::grid::parse_outages(b.text, c);
        FAIL("accepted '" << b.text << "'");
      } catch (const pz::core::ConfigError& e) {
        CHECK_MESSAGE(std::string(e.what()).find(b.says) != std::string::npos,
                      b.text << " -> " << e.what());
      }
    }
  }
}
