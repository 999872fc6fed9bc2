// exp/train/progress_line: the line's fields, per-group means of IPPO's metrics, divergence
// warnings.
#include <doctest/doctest.h>

#include <cmath>
#include <iostream>
#include <sstream>

#include "powerzoo/exp/train/progress_line.hpp"

using pz::exp::ProgressLine;

namespace {
// Captures std::cerr for the lifetime of the object.
struct CerrCapture {
  std::ostringstream text;
  std::streambuf* old = std::cerr.rdbuf(text.rdbuf());
  ~CerrCapture() { std::cerr.rdbuf(old); }
};
}  // namespace

TEST_SUITE("exp_progress_line") {
  TEST_CASE("metric: the key itself, else the mean of the per-group keys") {
    CHECK(ProgressLine::metric({{"losses/approx_kl", 0.5}}, "losses/approx_kl") == 0.5);
    CHECK(ProgressLine::metric({{"battery/losses/approx_kl", 0.01},
                                {"renewable/losses/approx_kl", 0.03},
                                {"xlosses/approx_kl", 9.0}},
                               "losses/approx_kl") == doctest::Approx(0.02));
    CHECK(std::isnan(ProgressLine::metric({{"losses/critic", 1.0}}, "losses/approx_kl")));
  }

  TEST_CASE("text: steps, percentage, ETA, last eval return and cost, losses, learner status") {
    ProgressLine p(false, 0, 1000, "voltage_violation");
    p.eval({{"return_mean", -12.5}, {"cost/voltage_violation", 0.25}});
    CerrCapture cap;
    p.iteration(250, 10.0,
                {{"episode_return", -3}, {"losses/actor", 0.125}, {"losses/approx_kl", 0.0125}},
                {});
    // 250 steps in 10 s = 25 steps/s; 750 to go = 30 s.
    CHECK(p.text(250, 10.0, {{"lambda/voltage_violation", 2}}) ==
          "step 250/1000 (25%) | 25 steps/s | ETA 0:00:30 | eval return -12.5 | eval "
          "voltage_violation 0.25 | train return -3 | actor loss 0.125 | approx_kl 0.0125 | "
          "lambda/voltage_violation 2");
    CHECK(cap.text.str().empty());
  }

  TEST_CASE("divergence: one warning each for approx_kl and the critic loss, with the step") {
    ProgressLine p(false, 0, 1000000, "");
    CerrCapture cap;
    for (int i = 1; i <= 8; ++i) p.iteration(i * 100, i, {{"losses/critic", 1.0}}, {});
    CHECK(cap.text.str().empty());
    p.iteration(900, 9, {{"losses/critic", 2e4}, {"losses/approx_kl", 3.0}}, {});
    p.iteration(1000, 10, {{"losses/critic", 5e4}, {"losses/approx_kl", 4.0}}, {});
    const std::string w = cap.text.str();
    CHECK(w.find("approx_kl 3 at global step 900") != std::string::npos);
    CHECK(w.find("critic loss 20000 at global step 900") != std::string::npos);
    CHECK(w.find("global step 1000") == std::string::npos);  // once each
  }
}
