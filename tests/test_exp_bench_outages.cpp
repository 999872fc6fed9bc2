// exp/bench/bench_outages: the generated outage schedules, the fixed rows' branches and a tiny
// timed run's invariants. No timed asserts.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/bench/bench_outages.hpp"

using namespace pz;

TEST_SUITE("exp_bench_outages") {
  TEST_CASE("held and swap schedules, hand-written for a 4-step episode") {
    CHECK(exp::outage_schedule_csv("held", 4, 2, 5) == "step,element,index,status\n0,branch,2,0\n");
    CHECK(exp::outage_schedule_csv("swap", 4, 2, 5) ==
          "step,element,index,status\n"
          "0,branch,2,0\n"
          "1,branch,2,1\n1,branch,5,0\n"
          "2,branch,5,1\n2,branch,2,0\n"
          "3,branch,2,1\n3,branch,5,0\n");
    CHECK_THROWS_AS(exp::outage_schedule_csv("both", 4, 2, 5), core::ConfigError);
    CHECK_THROWS_AS(exp::outage_schedule_csv("held", 0, 2, 5), core::ConfigError);
  }

  TEST_CASE("the fixed rows: unique names, distinct branches") {
    std::set<std::string> names;
    for (const auto& r : exp::outage_bench_cases()) {
      CHECK(names.insert(r.name).second);
      CHECK(r.branch_a != r.branch_b);
    }
    CHECK(names.count("trans_grid_dcopf_case118") == 1);
  }

  TEST_CASE("a tiny run of the case5 DC-OPF row: finite times, ratios as their quotients") {
    exp::OutageBenchCase row;
    for (const auto& r : exp::outage_bench_cases())
      if (r.name == "trans_grid_dcopf_case5") row = r;
    const auto res = exp::bench_outages(row, 1, 4);
    CHECK(res.intact_us > 0);
    CHECK(res.held_us > 0);
    CHECK(res.swap_us > 0);
    CHECK(res.swap_ratio() == doctest::Approx(res.swap_us / res.intact_us));
    const auto j = nlohmann::json::parse(exp::outage_bench_json({res}));
    REQUIRE(j.size() == 1);
    CHECK(j[0]["name"] == "trans_grid_dcopf_case5");
    CHECK(j[0]["branch_a"] == 2);
    CHECK(j[0]["vector_steps"] == 4);
  }

  TEST_CASE("a branch that islands the network is refused, naming the row and branch") {
    // case118 branch 184 cuts bus 117 off (examples/outages/case118_bridge.csv).
    exp::OutageBenchCase row{"bridge", "experiments/quickstart.toml", {"env.case=case118"}, 1, 184};
    CHECK_THROWS_WITH_AS(exp::bench_outages(row, 1, 1),
                         doctest::Contains("bench outage row 'bridge': branch 184"),
                         core::ConfigError);
  }
}
