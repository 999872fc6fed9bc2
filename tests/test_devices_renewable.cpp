// Renewable bundle (PowerZooJax powerzoojax/envs/resource/renewable.py): curtailment, Q limited at
// the S rating, costs, observation layouts by flag.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/devices/renewable.hpp"

using namespace pz;
using devices::Renewable;
using devices::RenewableDevice;

namespace {
RenewableDevice pv(double cost = 0) {
  RenewableDevice d;
  d.cap_mw = 0.2;
  d.s_rated_mva = 0.22;
  d.curtail_cost_per_mwh = cost;
  return d;
}
}  // namespace

TEST_SUITE("devices_renewable") {
  TEST_CASE("half curtailment halves P; Q fills the rest of S") {
    const Renewable r({pv(40)}, 0.5, true, true);
    auto s = r.make_state();
    const double cf[1] = {0.5};
    double p[1], q[1];
    const float a[2] = {0.0f, 1.0f};
    const auto st = r.step(s, a, cf, p, q);
    CHECK(p[0] == doctest::Approx(0.05));
    const double q_max = std::sqrt(0.22 * 0.22 - 0.05 * 0.05);
    CHECK(q[0] == doctest::Approx(q_max));
    CHECK(st.cost_q_clip == doctest::Approx((0.22 - q_max) / 0.22));
    CHECK(st.curtailed_mw == doctest::Approx(0.05));
    CHECK(st.cost_curtailment == doctest::Approx(0.05 * 0.5 * 40));  // 1 $
    float o[4];
    r.observe(s, o);
    CHECK(o[0] == doctest::Approx(0.5));
    CHECK(o[1] == doctest::Approx(0.25));
    CHECK(o[2] == doctest::Approx(q_max / 0.22));
    CHECK(o[3] == doctest::Approx(0.5));
  }

  TEST_CASE("at full output Q is limited to √(S² − cap²)") {
    const Renewable r({pv()}, 0.5, true, true);
    auto s = r.make_state();
    const double cf[1] = {1.0};
    double p[1], q[1];
    const float a[2] = {1.0f, -1.0f};
    r.step(s, a, cf, p, q);
    CHECK(p[0] == doctest::Approx(0.2));
    CHECK(q[0] == doctest::Approx(-std::sqrt(0.22 * 0.22 - 0.04)));
  }

  TEST_CASE("full curtailment gives zero P and all of S for Q") {
    const Renewable r({pv()}, 0.5, true, true);
    auto s = r.make_state();
    const double cf[1] = {0.8};
    double p[1], q[1];
    const float a[2] = {-1.0f, 0.5f};
    r.step(s, a, cf, p, q);
    CHECK(p[0] == 0.0);
    CHECK(q[0] == doctest::Approx(0.11));
  }

  TEST_CASE("layouts by flag; exogenous PV follows the capacity factor") {
    CHECK(Renewable({pv()}, 0.5, true, true).obs_per_device() == 4);
    CHECK(Renewable({pv()}, 0.5, true, false).obs_per_device() == 3);
    CHECK(Renewable({pv()}, 0.5, false, true).obs_per_device() == 3);
    const Renewable fixed({pv()}, 0.5, false, false);
    CHECK(fixed.act_per_device() == 0);
    CHECK(fixed.obs_per_device() == 1);
    auto s = fixed.make_state();
    const double cf[1] = {1.3};  // clipped to 1
    double p[1];
    fixed.step(s, {}, cf, p, {});
    CHECK(p[0] == doctest::Approx(0.2));
  }

  TEST_CASE("an S rating below the capacity is refused, naming both") {
    RenewableDevice d = pv();
    d.s_rated_mva = 0.1;
    try {
      Renewable r({d}, 0.5, true, true);
      FAIL("expected ConfigError");
    } catch (const core::ConfigError& e) {
      CHECK(std::string(e.what()).find("s_rated_mva >= cap_mw (0.2), found 0.1") !=
            std::string::npos);
    }
  }
}
