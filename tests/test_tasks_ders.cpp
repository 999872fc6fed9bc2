// The DERs task: load/PV day pairing and splits (fixture files and the bundled data), the split
// modifiers, baselines on hand-made observations, and bad device keys (exit code 2, key named).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/dist_grid_marl.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/tasks/ders.hpp"
#include "powerzoo/tasks/ders_data.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {

std::shared_ptr<const envs::DistGridMarl> ders_env(const std::string& split,
                                                   const std::string& extra = "") {
  auto env = exp::make_env(exp::parse_spec("[env]\ntask = \"ders\"\n" + extra, "ders.toml"), split);
  return std::dynamic_pointer_cast<const envs::DistGridMarl>(env);
}

std::string ts(int64_t unix) {
  const auto c = data::civil_from_days(unix / 86400);
  const int64_t s = unix % 86400;
  char b[64];
  std::snprintf(b, sizeof b, "%04lld-%02u-%02uT%02lld:%02lld:00.000Z",
                static_cast<long long>(c.year), c.month, c.day, static_cast<long long>(s / 3600),
                static_cast<long long>(s % 3600 / 60));
  return b;
}

}  // namespace

TEST_SUITE("tasks_ders") {
  TEST_CASE("load days pair with the PV day of the same month and day; every 4th day is iid") {
    // AEMO-style file: interval ends from 2025-12-29 00:00Z for 6 UTC days, NSW1 = 1 + step/1000.
    // Market days (from 14:00Z = 00:00 UTC+10) start 2025-12-30 local: days 0..4 (12-30 .. 01-03).
    const auto d = test::tmp_dir("pz_ders", "pair");
    const int64_t t0 = data::days_from_civil(2025, 12, 29) * 86400;
    std::string aemo = "interval_end_utc,NSW1\n";
    for (int i = 0; i < 6 * 48; ++i)
      aemo += ts(t0 + 1800 * i) + "," + std::to_string(1000 + i) + "\n";
    // PV: calendar 2025 (first year), value = day of year / 1000 at every interval.
    std::string pv = "startTime,solar_cf\n";
    const int64_t p0 = data::days_from_civil(2025, 1, 1) * 86400;
    for (int i = 0; i < 365 * 48; ++i)
      pv += ts(p0 + 1800 * i) + "," + std::to_string((i / 48 + 1) / 1000.0) + "\n";
    const auto load = data::load_aemo_feeders(test::write(d / "a.csv", aemo), {"NSW1"});
    const auto cf =
        data::load_capacity_factors(test::write(d / "pv.csv", pv), "startTime", "solar_cf");
    const tasks::DersData dd = tasks::pair_ders_days(load, cf);
    // Market day index 0 and 4 are iid, 1..3 train; dates are local (UTC+10) dates.
    CHECK(dd.iid.dates == std::vector<std::string>{"2025-12-30", "2026-01-03"});
    CHECK(dd.train.dates == std::vector<std::string>{"2025-12-31", "2026-01-01", "2026-01-02"});
    CHECK(dd.train.starts == std::vector<int64_t>{0, 48, 96});
    // PV of 2026-01-01 is 2025-01-01 (day of year 1): 0.001 / peak 0.365 (12-31, day 365).
    CHECK(dd.pv_peak == doctest::Approx(0.365));
    CHECK(dd.train.pv[48] == doctest::Approx(0.001 / 0.365));
    CHECK(dd.train.pv[0] == doctest::Approx(1.0));  // 2025-12-31
    CHECK(dd.iid.pv[0] == doctest::Approx(0.364 / 0.365));
    // Load: the first market interval (14:00Z on 12-29) is shape index 28 (interval end 14:30,
    // value 1000 + 29); shapes are divided by the peak over the kept days (the last interval).
    const double peak = dd.load_peak;
    CHECK(dd.iid.load[0] * peak == doctest::Approx(load.shapes[0][28]));
    CHECK(*std::max_element(dd.iid.load.begin(), dd.iid.load.end()) == doctest::Approx(1.0));
    // A PV file that misses a paired day is refused, naming it.
    std::string short_pv = "startTime,solar_cf\n";
    for (int i = 0; i < 300 * 48; ++i) short_pv += ts(p0 + 1800 * i) + ",0.5\n";
    const auto cf2 = data::load_capacity_factors(test::write(d / "short.csv", short_pv),
                                                 "startTime", "solar_cf");
    CHECK_THROWS_WITH_AS(tasks::pair_ders_days(load, cf2),
                         doctest::Contains("expected capacity factors for 2025-12-30"),
                         core::ConfigError);
  }

  TEST_CASE("bundled data: 365 days, train and iid disjoint, shapes peak at 1, bank of 8") {
    const tasks::DersData& d = tasks::ders_data();
    CHECK(d.train.dates.size() + d.iid.dates.size() == 365);
    CHECK(d.iid.dates.size() == 92);  // day indices 0, 4, ..., 364
    std::set<std::string> train(d.train.dates.begin(), d.train.dates.end());
    for (const auto& x : d.iid.dates) CHECK(train.count(x) == 0);
    // Month-day pairs are unique over the year, so the PV days are disjoint too.
    std::set<std::string> md;
    for (const auto* v : {&d.train.dates, &d.iid.dates})
      for (const auto& x : *v) md.insert(x.substr(5));
    CHECK(md.size() == 365);
    double lmax = 0, pmax = 0;
    for (const auto* s : {&d.train, &d.iid}) {
      lmax = std::max(lmax, *std::max_element(s->load.begin(), s->load.end()));
      pmax = std::max(pmax, *std::max_element(s->pv.begin(), s->pv.end()));
    }
    CHECK(lmax == doctest::Approx(1.0));
    CHECK(pmax == doctest::Approx(1.0));
    const auto bank = envs::train_bank(d.train.starts, 8);
    REQUIRE(bank.size() == 8);
    const size_t n = d.train.starts.size();
    for (size_t i = 0; i < 8; ++i) CHECK(bank[i] == d.train.starts[i * n / 8]);
  }

  TEST_CASE("splits: train draws from the bank, OOD splits change the band, PV and loads") {
    const auto train = ders_env("train");
    const auto& tp = train->grid().params();
    CHECK(tp.train_starts.size() == 8);
    CHECK(tp.episode_starts.size() == tasks::ders_data().train.starts.size());
    core::Rng rng(1, 0);
    auto st = train->make_state();
    std::vector<float> obs(train->spec().obs_dim);
    std::set<int64_t> seen;
    for (int k = 0; k < 200; ++k) {
      train->reset(*st, rng, obs);
      seen.insert(static_cast<const envs::DistGrid::GridState&>(*st).start);
    }
    CHECK(seen == std::set<int64_t>(tp.train_starts.begin(), tp.train_starts.end()));
    const auto iid = ders_env("iid");
    const auto& ip = iid->grid().params();
    CHECK(ip.train_starts.empty());
    CHECK(ip.v_min == 0.94);
    CHECK(ip.v_max == 1.06);
    CHECK(ip.renewables[0].cap_mw == 0.2);
    const auto vt = ders_env("voltage_tightening");
    CHECK(vt->grid().params().v_min == 0.96);
    CHECK(vt->grid().params().v_max == 1.04);
    CHECK(vt->grid().params().shapes == ip.shapes);
    const auto pv = ders_env("pv_penetration_shift");
    CHECK(pv->grid().params().renewables[0].cap_mw == 0.4);
    CHECK(pv->grid().params().renewables[0].s_rated_mva == doctest::Approx(0.44));
    const auto ls = ders_env("load_stress");
    const int b = ip.grid_case.bus_index(80);  // 750 kVA at 0.85 p.f.
    CHECK(ls->grid().params().bus_p_mw[b] == doctest::Approx(1.15 * ip.bus_p_mw[b]));
    CHECK(ls->grid().params().bus_q_mvar[b] == doctest::Approx(1.15 * ip.bus_q_mvar[b]));
    // Device parameters of the reference table.
    const auto& bat = ip.batteries[1];
    CHECK(ip.grid_case.bus[bat.bus].id == 55);
    CHECK(bat.p_rated_mw == 0.10);
    CHECK(bat.capacity_mwh == 0.30);
    CHECK(bat.s_rated_mva == 0.15);
    CHECK(ip.flexloads[3].shift_horizon == 4);
    CHECK(ip.flexloads[3].curtail_cost_per_mwh == 50);
  }

  TEST_CASE("baselines on a hand-made observation read each agent's own voltage; max_support") {
    const auto env = ders_env("iid");
    const auto& sp = env->spec();
    std::vector<float> obs(sp.obs_dim, 0.0f), a(sp.act_dim, 9.0f);
    auto set_v = [&](const std::string& agent, double v) {
      obs[sp.obs_field(agent + "/own_voltage").offset] = static_cast<float>((v - 1.0) / 0.1);
    };
    set_v("battery_0", 0.95);    // q = clip(10·0.05) = 0.5
    set_v("battery_1", 1.12);    // q = clip(−1.2) = −1
    set_v("renewable_0", 1.04);  // v > 1.03: curtail a_c = −0.5, q = −0.4
    set_v("renewable_1", 0.98);  // no curtailment, q = 0.2
    set_v("flexload_0", 0.96);   // v < 0.97: curtail 0.5
    set_v("flexload_1", 0.99);
    for (int i = 2; i < 4; ++i) set_v("battery_" + std::to_string(i), 1.0);
    for (int i = 2; i < 4; ++i) set_v("renewable_" + std::to_string(i), 1.0);
    for (int i = 2; i < 4; ++i) set_v("flexload_" + std::to_string(i), 1.0);
    const auto& entry = exp::env_entry(exp::parse_spec("[env]\ntask = \"ders\"\n", "d.toml"));
    envs::make_baseline(entry, "volt_droop", env)(obs.data(), 1, a.data());
    const std::vector<float> want = {0, 0.5f, 0, -1, 0,    0, 0, 0, -0.5f, -0.4f, 1, 0.2f,
                                     1, 0,    1, 0,  0.5f, 0, 0, 0, 0,     0,     0, 0};
    REQUIRE(a.size() == want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      CAPTURE(k);
      CHECK(a[k] == doctest::Approx(want[k]).epsilon(1e-6));
    }
    envs::make_baseline(entry, "no_control", env)(obs.data(), 1, a.data());
    CHECK(a == sp.reference_action);
    // max_support ignores the observation: batteries (P 0, Q +1), PV (no curtailment, Q +1),
    // flexible loads (curtail all, shift none).
    envs::make_baseline(entry, "max_support", env)(obs.data(), 1, a.data());
    const std::vector<float> bound = {0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1,
                                      1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0};
    CHECK(a == bound);
  }

  TEST_CASE("bad device keys exit with code 2 and name the key") {
    const auto d = test::tmp_dir("pz_ders", "bad");
    const std::string out = (d / "out").string();
    auto expect_bad = [&](const std::string& env_lines, const std::string& needle) {
      const std::string spec = test::write(
          d / "bad.toml", "[env]\ntask = \"ders\"\n" + env_lines +
                              "[vec]\nn_envs = 4\n[learner]\nalgo = \"ippo\"\ntotal_steps = 192\n");
      const auto r = test::sh(std::string(PZ_BINARY) + " run " + spec + " --quiet --out " + out);
      CHECK_MESSAGE(r.code == 2, r.out);
      CHECK_MESSAGE(r.out.find(needle) != std::string::npos,
                    "expected '" << needle << "' in: " << r.out);
      CHECK_FALSE(std::filesystem::exists(out));
    };
    expect_bad("battery_buses = [9, 55, 17, 200]\n",
               "bad.toml:3: [env] battery_buses: expected bus ids of case141 other than the slack "
               "bus 1 (buses 1..141), found 200");
    expect_bad("renewable_buses = [1, 73, 72, 82]\n", "[env] renewable_buses: expected bus ids");
    expect_bad("battery_s_mva = 0.05\n",
               "bad.toml:3: [env] battery_s_mva: expected an S rating >= battery_p_mw (0.1 MW) "
               "for battery 0 (bus 9), found 0.05");
    expect_bad("renewable_s_mva = [0.22, 0.22, 0.1, 0.22]\n",
               "[env] renewable_s_mva: expected an S rating >= renewable_cap_mw (0.2 MW) for "
               "renewable 2 (bus 72), found 0.1");
    expect_bad("battery_soc_max = 1.2\n",
               "bad.toml:3: [env] battery_soc_max: expected a SOC window 0 <= soc_min < soc_max "
               "<= 1 for battery 0 (bus 9), found [0.1, 1.2]");
    expect_bad("battery_soc_min = -0.1\n", "[env] battery_soc_min: expected a SOC window");
    expect_bad("devices = [\"battery\", \"wind\"]\n",
               "bad.toml:3: [env] devices: expected device types among battery, renewable, "
               "flexload, found 'wind'");
    expect_bad("battery_p_mw = [0.1, 0.1]\n",
               "[env] battery_p_mw: expected one number or 4 (one per battery in battery_buses), "
               "found 2 values [0.1, 0.1]");
  }

  TEST_CASE("a subset of device types in another order sets the agents") {
    const auto env = ders_env("iid", "devices = [\"flexload\", \"battery\"]\n");
    const auto& sp = env->spec();
    REQUIRE(sp.agents.size() == 8);
    CHECK(sp.agents[0].name == "flexload_0");
    CHECK(sp.agents[4].name == "battery_0");
    CHECK(sp.agents[4].act.offset == 8);
    CHECK(env->agent_obs_dim() == 15);  // FlexLoad's 5 device values set the padding
    const auto bat_only = ders_env("iid", "devices = [\"battery\"]\n");
    CHECK(bat_only->agent_obs_dim() == 13);  // 1 + 4 + 3 + 2 + 3
  }
}
