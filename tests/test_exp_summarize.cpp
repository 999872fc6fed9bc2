// exp/summarize: table and CSV rows are never cut, whatever the label and seed-list lengths.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "powerzoo/exp/summarize.hpp"

using namespace pz;

TEST_SUITE("exp_summarize") {
  TEST_CASE("regression: rows longer than 511 bytes are printed whole") {
    exp::Summary s;
    s.metrics = {"return_mean"};
    exp::ConfigSummary c;
    c.label = "ppo.hidden=[" + std::string(600, '7') + "]";
    c.kind = "ppo";
    for (int i = 0; i < 200; ++i) c.seeds.push_back(1000 + i);
    c.stats["return_mean"] = exp::SeedStats{200, -1.5, 0.25, -1.4, -1.6, -1.4};
    s.configs.push_back(c);
    const std::string csv = exp::summary_csv(s);
    std::istringstream rows(csv);
    std::string header, row;
    std::getline(rows, header);
    std::getline(rows, row);
    CHECK(row.find(c.label) != std::string::npos);
    CHECK(row.find("1199,") != std::string::npos);         // the last seed, then the next field
    CHECK(std::count(row.begin(), row.end(), ',') == 10);  // all 11 fields, ci95_high last
    CHECK(std::stod(row.substr(row.rfind(',') + 1)) == -1.4);
    const std::string table = exp::summary_table(s);
    CHECK(table.find("[-1.6, -1.4]") != std::string::npos);
  }
}
