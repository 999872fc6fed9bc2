// DataCenter physics (PowerZooJax powerzoojax/envs/resource/datacenter.py): hand-computed steps
// with fixed arrivals, EDF order and the prefix rule, force-scheduling and expiry, COP, thermal
// Euler, arrival law.
#include <doctest/doctest.h>

#include "powerzoo/core/error.hpp"
#include "powerzoo/devices/datacenter.hpp"

using namespace pz;
using devices::Arrivals;
using devices::DataCenter;
using devices::DataCenterParams;
using devices::DataCenterState;
using devices::JobStatus;
using devices::JobType;

namespace {

DataCenterParams five_minute() {
  DataCenterParams p;
  p.dt_hours = 5.0 / 60.0;
  return p;
}

// Puts a job into `slot` directly (tests of the scheduler on a prepared table).
void put(DataCenterState& s, int slot, JobType type, JobStatus st, int gpus, int dur,
         int deadline) {
  s.type[slot] = type;
  s.status[slot] = st;
  s.gpus[slot] = gpus;
  s.duration[slot] = s.remaining[slot] = dur;
  s.deadline[slot] = deadline;
}

}  // namespace

TEST_SUITE("devices_datacenter") {
  TEST_CASE("two hand-computed steps: arrivals, EDF budgets, power, COP, thermal Euler") {
    const DataCenter dc(five_minute());
    DataCenterState s;
    dc.reset(s);
    Arrivals a;
    a.n[0] = 2;  // training: (100 GPUs, 10 steps), (150, 20); fine-tuning: (30, 6)
    a.gpus[0][0] = 100, a.duration[0][0] = 10;
    a.gpus[0][1] = 150, a.duration[0][1] = 20;
    a.n[1] = 1;
    a.gpus[1][0] = 30, a.duration[1][0] = 6;
    // r_train 0.25 of 1000 − 200 inference GPUs = 200: the job of slack 10 (100 GPUs) fits,
    // adding the one of slack 20 (150) would not. r_ft 1 of the 700 left: the 30-GPU job runs.
    const auto r = dc.step(s, 0.25, 1.0, 0.5, 0.5, 30.0, a);
    CHECK(s.status[0] == JobStatus::kRunning);
    CHECK(s.status[1] == JobStatus::kWaiting);
    CHECK(s.status[2] == JobStatus::kRunning);
    CHECK(s.type[2] == JobType::kFinetune);
    CHECK(s.deadline[0] == 20);  // 0 + ⌊10·2⌋
    CHECK(s.deadline[1] == 40);
    CHECK(s.deadline[2] == 18);  // 0 + ⌊6·3⌋
    CHECK(s.remaining[0] == 9);
    CHECK(s.remaining[2] == 5);
    CHECK(s.gpus_infer == 200);
    CHECK(s.gpus_active == 330);
    // P_it = (200·580·0.5 + 100·(55 + 525·0.9) + 30·(55 + 525·0.75) + 670·55) W + 0.5 MW.
    const double p_it = (58000.0 + 52750.0 + 13462.5 + 36850.0) / 1e6 + 0.5;
    CHECK(r.p_it_mw == doctest::Approx(p_it).epsilon(1e-12));
    CHECK(r.cop == doctest::Approx(3.0));  // 5·(1 − 0.04·(30 − 20))
    CHECK(r.p_cool_mw == 0.0);             // T_z 22 below the setpoint 22.5
    CHECK(r.p_dc_mw == doctest::Approx(p_it * 1.05).epsilon(1e-12));
    const double tz1 = 22.0 + (5.0 / 60.0) * (1000.0 * p_it + 5.0 * (30.0 - 22.0)) / 500.0;
    CHECK(s.t_zone_c == doctest::Approx(tz1).epsilon(1e-12));
    CHECK(tz1 == doctest::Approx(22.11684375).epsilon(1e-12));
    CHECK(s.t_setpoint_c == 22.5);
    CHECK(r.n_expired == 0);
    CHECK(s.t == 1);

    // Step 2: no arrivals, cool 0 (setpoint 18), 10 °C outside: COP 5, cooling removes
    // 200·(T_z − 18) kW.
    const auto r2 = dc.step(s, 0.0, 0.0, 0.0, 0.5, 10.0, Arrivals{});
    CHECK(r2.cop == doctest::Approx(5.0));
    const double q = 200.0 * (tz1 - 18.0);
    CHECK(r2.q_cool_kw == doctest::Approx(q).epsilon(1e-12));
    CHECK(r2.p_cool_mw == doctest::Approx(q / 5000.0).epsilon(1e-12));
    CHECK(r2.p_it_mw == doctest::Approx(p_it).epsilon(1e-12));  // same jobs still running
    const double tz2 = tz1 + (5.0 / 60.0) * (1000.0 * p_it - q + 5.0 * (10.0 - tz1)) / 500.0;
    CHECK(s.t_zone_c == doctest::Approx(tz2).epsilon(1e-12));
    CHECK(tz2 == doctest::Approx(22.0796953385).epsilon(1e-10));
    CHECK(s.remaining[0] == 8);
    CHECK(s.status[1] == JobStatus::kWaiting);  // budget 0, slack 19: stays waiting
  }

  TEST_CASE("COP curve: clipped to [0.4, 1.2] of cop_ref, flat below t_ref") {
    const DataCenter dc(five_minute());
    CHECK(dc.cop_factor(10.0) == 1.0);
    CHECK(dc.cop_factor(20.0) == 1.0);
    CHECK(dc.cop_factor(30.0) == doctest::Approx(0.6));
    CHECK(dc.cop_factor(35.0) == doctest::Approx(0.4));
    CHECK(dc.cop_factor(50.0) == doctest::Approx(0.4));  // 1 − 1.2 clipped
  }

  TEST_CASE("greedy EDF schedules the sorted prefix that fits, ties in slot order") {
    const DataCenter dc(five_minute());
    DataCenterState s;
    dc.reset(s);
    s.t = 100;
    // Slacks (deadline − t − duration): slot 0: 5, slot 1: 3, slot 2: 3, slot 3: 9.
    put(s, 0, JobType::kTrain, JobStatus::kWaiting, 80, 10, 115);
    put(s, 1, JobType::kTrain, JobStatus::kWaiting, 120, 10, 113);
    put(s, 2, JobType::kTrain, JobStatus::kWaiting, 50, 10, 113);
    put(s, 3, JobType::kTrain, JobStatus::kWaiting, 5, 10, 119);
    // No inference (f = 0): avail 1000, budget ⌊0.13·1000⌋ = 130: slot 1 (120) fits; slot 2 would
    // make 170 > 130, so the greedy prefix stops there although slot 3 (5 GPUs) would fit.
    dc.step(s, 0.13, 0.0, 1.0, 0.0, 20.0, Arrivals{});
    CHECK(s.status[1] == JobStatus::kRunning);
    CHECK(s.status[2] == JobStatus::kWaiting);
    CHECK(s.status[0] == JobStatus::kWaiting);
    CHECK(s.status[3] == JobStatus::kWaiting);
    // Next step, budget ⌊0.135·880⌋ = 118: slot 2 (50) then slot 0 (80 → 130 > 118) stops.
    dc.step(s, 0.135, 0.0, 1.0, 0.0, 20.0, Arrivals{});
    CHECK(s.status[2] == JobStatus::kRunning);
    CHECK(s.status[0] == JobStatus::kWaiting);
  }

  TEST_CASE("urgent jobs are force-scheduled whatever the action; without room they expire") {
    const DataCenter dc(five_minute());
    DataCenterState s;
    dc.reset(s);
    s.t = 50;
    put(s, 0, JobType::kTrain, JobStatus::kWaiting, 60, 10, 60);    // slack 0: urgent
    put(s, 1, JobType::kFinetune, JobStatus::kWaiting, 20, 5, 52);  // slack −3: urgent, earlier
    dc.step(s, 0.0, 0.0, 0.0, 0.5, 20.0, Arrivals{});
    CHECK(s.status[0] == JobStatus::kRunning);
    CHECK(s.status[1] == JobStatus::kRunning);

    dc.reset(s);
    s.t = 50;
    put(s, 0, JobType::kTrain, JobStatus::kRunning, 600, 30, 200);  // fills the room with
    put(s, 1, JobType::kFinetune, JobStatus::kWaiting, 20, 5, 50);  // 400 inference GPUs
    put(s, 2, JobType::kTrain, JobStatus::kWaiting, 30, 10, 60);
    const auto r = dc.step(s, 1.0, 1.0, 0.0, 1.0, 20.0, Arrivals{});
    CHECK(s.gpus_infer == 400);
    CHECK(r.n_expired == 1);  // slot 1: t = 50 ≥ deadline 50 while waiting
    CHECK(r.cost_sla == doctest::Approx(0.001));
    CHECK(s.status[1] == JobStatus::kInactive);
    CHECK(s.status[2] == JobStatus::kWaiting);  // deadline 60 not reached
    CHECK(s.sla_violations == 1);
  }

  TEST_CASE("arrivals take the first free slots, training first; a full table drops the rest") {
    const DataCenter dc(five_minute());
    DataCenterState s;
    dc.reset(s);
    for (int i = 0; i < DataCenter::kSlots; ++i)
      if (i != 3 && i != 7) put(s, i, JobType::kTrain, JobStatus::kRunning, 1, 50, 1000);
    Arrivals a;
    a.n[0] = 1;
    a.gpus[0][0] = 70, a.duration[0][0] = 12;
    a.n[1] = 2;
    a.gpus[1][0] = 11, a.duration[1][0] = 7;
    a.gpus[1][1] = 12, a.duration[1][1] = 8;
    const auto r = dc.step(s, 0.0, 0.0, 0.0, 0.0, 20.0, a);
    CHECK(s.type[3] == JobType::kTrain);
    CHECK(s.gpus[3] == 70);
    CHECK(s.type[7] == JobType::kFinetune);
    CHECK(s.gpus[7] == 11);
    CHECK(r.n_dropped == 1);
  }

  TEST_CASE("a job scheduled at t draws power for duration − 1 steps, then its slot frees") {
    const DataCenter dc(five_minute());
    DataCenterState s;
    dc.reset(s);
    Arrivals a;
    a.n[0] = 1;
    a.gpus[0][0] = 100, a.duration[0][0] = 3;
    const double idle_only = (1000 * 55.0) / 1e6 + 0.5;
    auto r = dc.step(s, 1.0, 0.0, 0.0, 0.0, 20.0, a);
    CHECK(r.p_it_mw > idle_only);
    r = dc.step(s, 0.0, 0.0, 0.0, 0.0, 20.0, Arrivals{});
    CHECK(r.p_it_mw > idle_only);
    r = dc.step(s, 0.0, 0.0, 0.0, 0.0, 20.0, Arrivals{});
    CHECK(r.p_it_mw == doctest::Approx(idle_only));
    CHECK(s.status[0] == JobStatus::kInactive);
  }

  TEST_CASE("arrival counts are Poisson(1/interval) capped at 5; sizes uniform on their ranges") {
    const DataCenter dc(five_minute());
    core::Rng rng(11, 3);
    const int n = 200000;
    double sum[2] = {0, 0};
    int lo[2] = {1 << 30, 1 << 30}, hi[2] = {0, 0}, zero = 0;
    for (int k = 0; k < n; ++k) {
      const Arrivals a = dc.draw_arrivals(rng);
      zero += a.n[0] == 0;
      for (int c = 0; c < 2; ++c) {
        sum[c] += a.n[c];
        CHECK_LE(a.n[c], Arrivals::kMax);
        for (int i = 0; i < a.n[c]; ++i) {
          lo[c] = std::min(lo[c], a.gpus[c][i]);
          hi[c] = std::max(hi[c], a.gpus[c][i]);
        }
      }
    }
    // Means 1/8 and 1/4 (standard errors ~8e-4 and ~1.1e-3); P(0 training arrivals) = e^{−1/8}.
    CHECK(sum[0] / n == doctest::Approx(0.125).epsilon(0.03));
    CHECK(sum[1] / n == doctest::Approx(0.25).epsilon(0.03));
    CHECK(static_cast<double>(zero) / n == doctest::Approx(std::exp(-0.125)).epsilon(0.003));
    CHECK(lo[0] == 50);
    CHECK(hi[0] == 200);
    CHECK(lo[1] == 10);
    CHECK(hi[1] == 50);
  }

  TEST_CASE("bad parameters are refused naming the parameter") {
    DataCenterParams p = five_minute();
    p.train.deadline_slack = 0;
    CHECK_THROWS_WITH_AS(DataCenter{p}, doctest::Contains("train deadline_slack > 0"),
                         core::ConfigError);
    p = five_minute();
    p.finetune.gpu_lo = 60;  // above gpu_hi 50
    CHECK_THROWS_WITH_AS(DataCenter{p}, doctest::Contains("finetune 1 <= gpu_lo <= gpu_hi"),
                         core::ConfigError);
  }
}
