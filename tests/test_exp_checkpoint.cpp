// exp/run/checkpoint: the metric history's write order, which progress.csv and the TensorBoard
// events replay on resume.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "powerzoo/exp/run/checkpoint.hpp"

namespace pz {

TEST_SUITE("exp checkpoint") {
  TEST_CASE("rows_in_write_order: by step, the train row before the evaluation at one step") {
    exp::MetricHistory h;
    // As a run records them: the step-0 evaluation, then per iteration a train row and, every
    // other iteration, an evaluation at the same step. Groups are stored apart.
    h.eval = {{{"global_step", 0}, {"r", 10}}, {{"global_step", 200}, {"r", 12}}};
    h.train = {{{"global_step", 100}, {"l", 1}},
               {{"global_step", 200}, {"l", 2}},
               {{"global_step", 300}, {"l", 3}}};
    const auto rows = exp::rows_in_write_order(h);
    REQUIRE(rows.size() == 5);
    const std::vector<std::pair<bool, double>> expect = {
        {true, 0}, {false, 100}, {false, 200}, {true, 200}, {false, 300}};
    for (size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i].eval == expect[i].first);
      CHECK(rows[i].row->at("global_step") == expect[i].second);
    }
    CHECK(rows[3].row == &h.eval[1]);  // pointers into the history, not copies
    // A row without a global_step counts as step 0 (histories written before it existed).
    h.train.push_back({{"l", 4}});
    const auto rows2 = exp::rows_in_write_order(h);
    CHECK_FALSE(rows2[0].eval);  // at step 0 too, the train row comes first
    CHECK(rows2[0].row == &h.train.back());
    CHECK(rows2[1].eval);
  }
}

}  // namespace pz
