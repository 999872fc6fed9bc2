// Diesel bundle (PowerZooJax powerzoojax/envs/resource/diesel.py): minimum stable output, fuel and
// CO2 arithmetic.
#include <doctest/doctest.h>

#include "powerzoo/core/error.hpp"
#include "powerzoo/devices/diesel.hpp"

using namespace pz;
using devices::Diesel;
using devices::DieselDevice;

TEST_SUITE("devices_diesel") {
  TEST_CASE("below half the minimum it is off, above it runs at least the minimum") {
    DieselDevice d;
    d.p_max_mw = 1.2;
    d.p_min_norm = 0.3;
    const Diesel g({d}, 5.0 / 60.0);
    CHECK(g.output_mw(0, 0.1) == 0.0);
    CHECK(g.output_mw(0, 0.2) == doctest::Approx(0.36));
    CHECK(g.output_mw(0, 2.0) == doctest::Approx(1.2));  // clipped to 1
    auto s = g.make_state();
    double p[1];
    const float a[1] = {0.7f};
    const auto r = g.step(s, a, p);
    CHECK(p[0] == doctest::Approx(0.84));
    CHECK(r.fuel_cost == doctest::Approx(0.84 / 12 * 300));         // 21 $
    CHECK(r.carbon_kg == doctest::Approx(0.84 / 12 * 1000 * 0.8));  // 56 kg
    float o[2];
    g.observe(s, o);
    CHECK(o[0] == doctest::Approx(0.7));
    CHECK(o[1] == doctest::Approx(0.3));
  }

  TEST_CASE("bad parameters are refused") {
    DieselDevice d;
    d.p_min_norm = 1.5;
    CHECK_THROWS_AS(Diesel({d}, 0.5), core::ConfigError);
    d = DieselDevice{};
    d.p_max_mw = 0;
    CHECK_THROWS_AS(Diesel({d}, 0.5), core::ConfigError);
  }
}
