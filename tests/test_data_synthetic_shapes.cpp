// Tests of the TSO task's synthetic daily shapes (gross demand, wind, solar, net load).
#include <doctest/doctest.h>

#include "powerzoo/data/synthetic_shapes.hpp"

using namespace pz;
using doctest::Approx;

TEST_SUITE("data_synthetic_shapes") {
  TEST_CASE("gross demand: 0.75 ± 0.25, trough at 21 h, peak at 9 h") {
    CHECK(data::synthetic_gross(3.0) == 0.75);
    CHECK(data::synthetic_gross(9.0) == 1.0);
    CHECK(data::synthetic_gross(21.0) == 0.5);
    CHECK(data::synthetic_gross(27.0) == Approx(0.75).epsilon(1e-15));  // period 24 h
  }

  TEST_CASE("wind: 0.3 ± 0.2, low at 8 h, high at 20 h") {
    CHECK(data::synthetic_wind(2.0) == Approx(0.3).epsilon(1e-15));
    CHECK(data::synthetic_wind(8.0) == Approx(0.1).epsilon(1e-15));
    CHECK(data::synthetic_wind(20.0) == 0.5);
    CHECK(data::synthetic_wind(12.0) == Approx(0.2).epsilon(1e-15));
  }

  TEST_CASE("solar: 0.4·cos around noon, zero outside 6..18 h, every day") {
    CHECK(data::synthetic_solar(12.0) == 0.4);
    CHECK(data::synthetic_solar(16.0) == Approx(0.2).epsilon(1e-15));
    CHECK(data::synthetic_solar(36.0) == 0.4);  // noon of the next day
    CHECK(data::synthetic_solar(6.0) == 0.0);
    CHECK(data::synthetic_solar(18.5) == 0.0);
    CHECK(data::synthetic_solar(0.0) == 0.0);
  }

  TEST_CASE("net load: gross − 0.7·wind − 0.5·solar, clipped to [0.05, 1]") {
    CHECK(data::synthetic_net_load(1.0, 12.0) == Approx(0.66).epsilon(1e-15));
    CHECK(data::synthetic_net_load(0.0, 12.0) == 0.05);
    CHECK(data::synthetic_net_load(2.0, 0.0) == 1.0);
    // The reference's case14 shape at 00:00 and 10:30 (gross from synthetic_gross).
    CHECK(data::synthetic_net_load(data::synthetic_gross(0.0), 0.0) ==
          Approx(0.29322330470336316).epsilon(1e-15));
    CHECK(data::synthetic_net_load(data::synthetic_gross(10.5), 10.5) ==
          Approx(0.6972634442663372).epsilon(1e-15));
  }
}
