// FlexLoad bundle (PowerZooJax powerzoojax/envs/resource/flexload.py): ring buffer, episode
// boundary, energy conservation, costs.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/devices/flexload.hpp"

using namespace pz;
using devices::FlexLoad;
using devices::FlexLoadDevice;

namespace {
FlexLoad one_device(double cap = 0.4, int horizon = 4) {
  FlexLoadDevice d;
  d.bus = 3;
  d.curtail_cap_mw = cap;
  d.shift_cap_mw = cap;
  d.shift_horizon = horizon;
  return FlexLoad({d}, 0.5);
}
}  // namespace

TEST_SUITE("devices_flexload") {
  TEST_CASE("shifted energy returns over the next H steps, in order") {
    const FlexLoad fl = one_device(0.4, 4);
    auto s = fl.make_state();
    double p[1];
    const float shift[2] = {0.0f, 1.0f}, idle[2] = {0.0f, 0.0f};
    auto r = fl.step(s, shift, p);
    CHECK(p[0] == doctest::Approx(0.4));  // load leaves now
    CHECK(r.shift_out_mw == doctest::Approx(0.4));
    CHECK(s.size[0] == 4);
    // Cost: buffered 0.4 MW · 0.5 h · 10 $/MWh.
    CHECK(r.cost == doctest::Approx(2.0));
    for (int k = 0; k < 4; ++k) {
      r = fl.step(s, idle, p);
      CHECK(r.shift_in_mw == doctest::Approx(0.1));
      CHECK(p[0] == doctest::Approx(-0.1));  // returns as extra load
      CHECK(s.size[0] == 3 - k);
    }
    r = fl.step(s, idle, p);
    CHECK(r.shift_in_mw == 0.0);
    CHECK(p[0] == 0.0);
  }

  TEST_CASE("actions are clipped to [0, 1]; curtail cost") {
    const FlexLoad fl = one_device(0.2, 4);
    auto s = fl.make_state();
    double p[1];
    const float neg[2] = {-1.0f, -0.5f};
    auto r = fl.step(s, neg, p);
    CHECK(p[0] == 0.0);
    CHECK(r.cost == 0.0);
    const float big[2] = {3.0f, 0.0f};
    r = fl.step(s, big, p);
    CHECK(p[0] == doctest::Approx(0.2));
    CHECK(r.cost == doctest::Approx(0.2 * 0.5 * 50));
    const float nan_a[2] = {NAN, NAN};
    r = fl.step(s, nan_a, p);
    CHECK(p[0] == 0.0);
  }

  TEST_CASE("ring buffer across an episode boundary: reset clears it") {
    const FlexLoad fl = one_device(0.4, 4);
    auto s = fl.make_state();
    double p[1];
    const float shift[2] = {0.0f, 1.0f}, idle[2] = {0.0f, 0.0f};
    for (int t = 0; t < 47; ++t) fl.step(s, idle, p);
    fl.step(s, shift, p);  // last step of the episode defers 0.4 MW
    CHECK(fl.buffered_mw(s, 0) == doctest::Approx(0.4));
    fl.reset(s);
    CHECK(fl.buffered_mw(s, 0) == 0.0);
    CHECK(s.size[0] == 0);
    CHECK(s.head[0] == 0);
    std::vector<float> obs(5);
    fl.observe(s, obs);
    for (float o : obs) CHECK(o == 0.0f);
    const auto r = fl.step(s, idle, p);  // nothing comes back in the new episode
    CHECK(r.shift_in_mw == 0.0);
    CHECK(p[0] == 0.0);
  }

  TEST_CASE("energy conservation of shifting over many wraps of the 64-slot ring") {
    std::vector<FlexLoadDevice> devs(3);
    const int H[3] = {1, 4, 64};
    for (int d = 0; d < 3; ++d) {
      devs[d].bus = d;
      devs[d].curtail_cap_mw = 0.1 * (d + 1);
      devs[d].shift_cap_mw = 0.2 * (d + 1);
      devs[d].shift_horizon = H[d];
    }
    const FlexLoad fl(devs, 0.5);
    auto s = fl.make_state();
    core::Rng rng(7, 0);
    std::vector<float> a(6);
    double p[3];
    double out[3] = {0, 0, 0}, in[3] = {0, 0, 0};
    for (int t = 0; t < 500; ++t) {
      for (float& x : a) x = static_cast<float>(2 * rng.uniform() - 0.5);
      fl.step(s, a, p);
      for (int d = 0; d < 3; ++d) {
        out[d] += s.shift_out[d];
        in[d] += s.shift_in[d];
        CHECK(s.size[d] <= H[d]);
        // injection = curtail + shift_out − shift_in
        CHECK(p[d] == doctest::Approx(s.curtailed[d] + s.shift_out[d] - s.shift_in[d]));
      }
      for (int d = 0; d < 3; ++d)
        CHECK(out[d] == doctest::Approx(in[d] + fl.buffered_mw(s, d)).epsilon(1e-12));
    }
    const float idle[6] = {0, 0, 0, 0, 0, 0};
    for (int t = 0; t < 64; ++t) {
      fl.step(s, idle, p);
      for (int d = 0; d < 3; ++d) in[d] += s.shift_in[d];
    }
    for (int d = 0; d < 3; ++d) {
      CHECK(fl.buffered_mw(s, d) == doctest::Approx(0.0).epsilon(1e-15));
      CHECK(out[d] == doctest::Approx(in[d]).epsilon(1e-12));
      CHECK(s.size[d] == 0);
    }
  }

  TEST_CASE("observation: five features per device in [0, 1]") {
    const FlexLoad fl = one_device(0.4, 4);
    auto s = fl.make_state();
    double p[1];
    const float a[2] = {0.5f, 1.0f};
    fl.step(s, a, p);
    const float idle[2] = {0, 0};
    fl.step(s, idle, p);
    std::vector<float> obs(5);
    fl.observe(s, obs);
    CHECK(obs[0] == 0.0f);                              // no curtailment this step
    CHECK(obs[1] == 0.0f);                              // nothing shifted out this step
    CHECK(obs[2] == doctest::Approx(0.1 / 0.4));        // 0.1 MW came back
    CHECK(obs[3] == doctest::Approx(3.0 / 4.0));        // 3 slots pending
    CHECK(obs[4] == doctest::Approx(0.3 / (0.4 * 4)));  // 0.3 MW still buffered
  }

  TEST_CASE("rejects a horizon outside 1..64") {
    CHECK_THROWS_AS(one_device(0.1, 65), core::ConfigError);
    CHECK_THROWS_AS(one_device(0.1, 0), core::ConfigError);
  }
}
