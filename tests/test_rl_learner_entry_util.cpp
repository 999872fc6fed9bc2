// The pieces learner entries share: multiply-adds of an MLP for the bench (hand-counted).
#include <doctest/doctest.h>

#include <vector>

#include "powerzoo/rl/learner_entry_util.hpp"

using namespace pz::rl;

TEST_SUITE("rl_learner_entry_util") {
  TEST_CASE("an MLP's multiply-adds are Σ in·out over its layers") {
    const std::vector<int> hidden = {4, 5};
    CHECK(mlp_macs(3, hidden, 2) == doctest::Approx(3 * 4 + 4 * 5 + 5 * 2));
    CHECK(mlp_first_layer_macs(3, hidden, 2) == doctest::Approx(12));
    CHECK(mlp_macs(3, {}, 2) == doctest::Approx(6));
    CHECK(mlp_first_layer_macs(3, {}, 2) == doctest::Approx(6));
  }

  TEST_CASE("the bench header names the hidden layers and the widest sets the GEMM width") {
    CHECK(hidden_text({64, 128, 32}) == "hidden 64 128 32");
    CHECK(hidden_text({}) == "hidden");
    CHECK(widest_layer({64, 128, 32}) == 128);
    CHECK(widest_layer({}) == 0);
  }
}
