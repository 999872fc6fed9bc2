// Battery bundle (PowerZooJax powerzoojax/envs/resource/battery.py): headroom and SOC arithmetic at
// both bounds with different one-way efficiencies, P-priority Q inside S, efficiency resolution,
// bad parameters.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/devices/battery.hpp"

using namespace pz;
using devices::Battery;
using devices::BatteryDevice;

namespace {
// C 0.3 MWh, P 0.1 MW, S 0.15 MVA, η_c 0.9, η_d 0.8, SOC [0.1, 0.9], dt 0.5 h.
BatteryDevice ders_like() {
  BatteryDevice d;
  d.p_rated_mw = 0.1;
  d.capacity_mwh = 0.3;
  d.s_rated_mva = 0.15;
  d.eta_charge = 0.9;
  d.eta_discharge = 0.8;
  return d;
}
std::string message_of(const BatteryDevice& d) {
  try {
    Battery b({d}, 0.5, true);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_SUITE("devices_battery") {
  TEST_CASE("headroom: rated in the middle, energy-limited near the bounds, zero at them") {
    const Battery b({ders_like()}, 0.5, true);
    CHECK(b.discharge_headroom_mw(0, 0.5) == doctest::Approx(0.1));  // 0.192 clipped to P
    CHECK(b.charge_headroom_mw(0, 0.5) == doctest::Approx(0.1));     // 0.267 clipped to P
    // (0.15 − 0.1)·0.3·0.8/0.5 = 0.024 MW; (0.9 − 0.85)·0.3/(0.9·0.5) = 0.0333 MW.
    CHECK(b.discharge_headroom_mw(0, 0.15) == doctest::Approx(0.024));
    CHECK(b.charge_headroom_mw(0, 0.85) == doctest::Approx(0.05 * 0.3 / 0.45));
    CHECK(b.discharge_headroom_mw(0, 0.1) == 0.0);
    CHECK(b.charge_headroom_mw(0, 0.9) == 0.0);
  }

  TEST_CASE("discharging to the lower bound uses eta_discharge and lands on soc_min") {
    BatteryDevice d = ders_like();
    d.soc_init = 0.15;
    const Battery b({d}, 0.5, true);
    auto s = b.make_state();
    double p[1], q[1];
    const float a[2] = {1.0f, 1.0f};
    const auto r = b.step(s, a, p, q);
    CHECK(p[0] == doctest::Approx(0.024));
    // Δsoc = −0.024·0.5/(0.8·0.3) = −0.05.
    CHECK(s.soc[0] == doctest::Approx(0.1));
    // Q inside S after P: √(0.15² − 0.024²).
    const double q_max = std::sqrt(0.15 * 0.15 - 0.024 * 0.024);
    CHECK(q[0] == doctest::Approx(q_max));
    CHECK(r.cost_clip == doctest::Approx((0.1 - 0.024) / 0.1 + (0.15 - q_max) / 0.15));
    CHECK(r.throughput_mwh == doctest::Approx(0.012));
  }

  TEST_CASE("charging to the upper bound uses eta_charge and lands on soc_max") {
    BatteryDevice d = ders_like();
    d.soc_init = 0.85;
    d.cycle_cost_per_mwh = 5;
    const Battery b({d}, 0.5, true);
    auto s = b.make_state();
    double p[1], q[1];
    const float a[2] = {-1.0f, -0.5f};
    const auto r = b.step(s, a, p, q);
    const double p_chg = 0.05 * 0.3 / 0.45;
    CHECK(p[0] == doctest::Approx(-p_chg));
    // Δsoc = p_chg·0.5·0.9/0.3 = 0.05.
    CHECK(s.soc[0] == doctest::Approx(0.9));
    CHECK(q[0] == doctest::Approx(-0.075));  // inside √(S² − P²) = 0.146
    CHECK(r.cost_cycle == doctest::Approx(p_chg * 0.5 * 5));
    // Observation reports the real powers (not the reference's zeros).
    float o[3];
    b.observe(s, o);
    CHECK(o[0] == doctest::Approx(0.9));
    CHECK(o[1] == doctest::Approx(-p_chg / 0.1));
    CHECK(o[2] == doctest::Approx(-0.5));
  }

  TEST_CASE("P has priority: full discharge leaves √(S² − P²) for Q") {
    const Battery b({ders_like()}, 0.5, true);
    auto s = b.make_state();
    double p[1], q[1];
    const float a[2] = {1.0f, -1.0f};
    b.step(s, a, p, q);
    CHECK(p[0] == doctest::Approx(0.1));
    CHECK(q[0] == doctest::Approx(-std::sqrt(0.15 * 0.15 - 0.01)));
    // 0.5 − 0.1·0.5/(0.8·0.3)
    CHECK(s.soc[0] == doctest::Approx(0.5 - 0.05 / 0.24));
  }

  TEST_CASE("P-only bundle: one action and two observations per device") {
    const Battery b({ders_like(), ders_like()}, 0.5, false);
    CHECK(b.action_dim() == 2);
    CHECK(b.obs_dim() == 4);
    auto s = b.make_state();
    double p[2];
    const float a[2] = {0.5f, std::numeric_limits<float>::quiet_NaN()};
    b.step(s, a, p, {});
    CHECK(p[0] == doctest::Approx(0.05));
    CHECK(p[1] == 0.0);  // non-finite action means idle
  }

  TEST_CASE("efficiencies: round trip fills the sides not given") {
    BatteryDevice d;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    devices::resolve_battery_efficiencies(d, nan, nan, 0.81);
    CHECK(d.eta_charge == doctest::Approx(0.9));
    CHECK(d.eta_discharge == doctest::Approx(0.9));
    devices::resolve_battery_efficiencies(d, 0.95, nan, 0.81);
    CHECK(d.eta_charge == doctest::Approx(0.95));
    CHECK(d.eta_discharge == doctest::Approx(0.9));
    devices::resolve_battery_efficiencies(d, nan, nan, nan);
    CHECK(d.eta_charge == doctest::Approx(0.95));
    CHECK_THROWS_AS(devices::resolve_battery_efficiencies(d, 1.2, nan, nan), core::ConfigError);
  }

  TEST_CASE("bad parameters name the field and the value found") {
    BatteryDevice d = ders_like();
    d.s_rated_mva = 0.05;
    CHECK(message_of(d).find("s_rated_mva >= p_rated_mw") != std::string::npos);
    d = ders_like();
    d.soc_max = 1.2;
    CHECK(message_of(d).find("soc_max 1.2") != std::string::npos);
    d = ders_like();
    d.soc_init = 0.95;
    CHECK(message_of(d).find("soc_init") != std::string::npos);
    d = ders_like();
    d.eta_discharge = 0;
    CHECK(message_of(d).find("eta_discharge") != std::string::npos);
    d = ders_like();
    d.capacity_mwh = std::numeric_limits<double>::infinity();
    CHECK(message_of(d).find("capacity_mwh") != std::string::npos);
  }
}
