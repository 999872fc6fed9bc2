// DistGrid with Battery / Renewable / FlexLoad bundles and its multi-agent view (the DERs task's
// env): a step's P and Q injections satisfy the branch-flow equations at every bus and branch and
// give the AC power flow's voltages, BFS neighbour lists hand-checked on case141, agent order, the
// local observation layout, the team reward, a save/load round trip, and no heap allocation; the
// feeder's load and PV forecasts every agent sees (perfect: the next steps' values; noisy:
// seeded, resumable).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>
#include <vector>

#include "feeder_edits.hpp"
#include "powerzoo/envs/dist_grid.hpp"
#include "powerzoo/envs/dist_grid_marl.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/case/case.hpp"

using namespace pz;

namespace {
// Heap allocations made by this thread while counting (the replaceable global operator new below
// counts them; it serves the whole test binary and otherwise only forwards to malloc).
thread_local bool g_counting = false;
thread_local long g_allocations = 0;
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// Every other form too, so that no allocation can come from an allocator this delete does not
// match (ASan intercepts the forms left to the library and reported the mismatch).
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (g_counting) ++g_allocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  return ::operator new(n, t);
}
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

std::shared_ptr<const envs::DistGridMarl> ders_env(const std::string& extra = "",
                                                   const std::string& split = "iid") {
  auto env = exp::make_env(exp::parse_spec("[env]\ntask = \"ders\"\n" + extra, "ders.toml"), split);
  auto view = std::dynamic_pointer_cast<const envs::DistGridMarl>(env);
  REQUIRE(view != nullptr);
  return view;
}

using GridState = envs::DistGrid::GridState;

/// An action with every device doing something: batteries discharge / absorb Q, PV curtails a
/// little and injects Q, flexible loads curtail and shift.
std::vector<float> busy_action(const envs::EnvSpec& sp) {
  std::vector<float> a(sp.act_dim);
  for (size_t i = 0; i < sp.agents.size(); ++i) {
    const int o = sp.agents[i].act.offset;
    a[o] = 0.3f + 0.1f * static_cast<float>(i % 3);
    a[o + 1] = i % 2 ? -0.6f : 0.7f;
  }
  return a;
}

}  // namespace

TEST_SUITE("envs_dist_grid_marl") {
  TEST_CASE(
      "a step's DER injections satisfy the branch-flow equations (residual < 1e-8) and the AC "
      "power flow") {
    const auto env = ders_env();
    const envs::DistGrid& g = env->grid();
    const grid::Case& c = g.params().grid_case;
    const grid::RadialNetwork& net = g.network();
    REQUIRE(g.n_lines() == c.n_branch());  // case141: every branch in service, no charging
    auto st = env->make_state();
    auto& s = static_cast<GridState&>(*st);
    core::Rng rng(1, 0);
    std::vector<float> obs(env->spec().obs_dim), costs(3);
    env->reset(s, rng, obs, {12, 30});  // a midday window has PV output
    for (int t = 0; t < 24; ++t) env->step(s, busy_action(env->spec()), rng, obs, costs, nullptr);
    // Net load (MW, MVAr) of the 25th step: profile load minus every device's injection.
    std::vector<double> pl, ql;
    g.bus_load(s.start + s.t, pl, ql);
    env->step(s, busy_action(env->spec()), rng, obs, costs, nullptr);
    double der_p = 0, der_q = 0;
    for (size_t d = 0; d < g.params().batteries.size(); ++d) {
      pl[g.params().batteries[d].bus] -= s.battery.p_mw[d];
      ql[g.params().batteries[d].bus] -= s.battery.q_mvar[d];
      der_p += std::abs(s.battery.p_mw[d]), der_q += std::abs(s.battery.q_mvar[d]);
    }
    for (size_t d = 0; d < g.params().renewables.size(); ++d) {
      pl[g.params().renewables[d].bus] -= s.renewable.p_mw[d];
      ql[g.params().renewables[d].bus] -= s.renewable.q_mvar[d];
      der_p += std::abs(s.renewable.p_mw[d]), der_q += std::abs(s.renewable.q_mvar[d]);
    }
    for (size_t d = 0; d < g.params().flexloads.size(); ++d)
      pl[g.params().flexloads[d].bus] -=
          s.flex.curtailed[d] + s.flex.shift_out[d] - s.flex.shift_in[d];
    CHECK(der_p > 0.3);  // the injections are large enough to matter
    CHECK(der_q > 0.3);
    // DistFlow (Baran & Wu) in p.u., sending-end flows (P, Q) of branch k from s to j:
    //   P − r·(P² + Q²)/v_s² = p_j + Σ_children P,  Q − x·(P² + Q²)/v_s² = q_j + Σ_children Q,
    //   v_j² = v_s² − 2(rP + xQ) + (r² + x²)(P² + Q²)/v_s².
    const double base = c.base_mva;
    const int nb = c.n_bus();
    std::vector<double> child_p(nb, 0.0), child_q(nb, 0.0);
    for (int k = 0; k < c.n_branch(); ++k) {
      child_p[net.sending()[k]] += s.p_line_mw[k] / base;
      child_q[net.sending()[k]] += s.q_line_mvar[k] / base;
    }
    double worst = 0;
    for (int k = 0; k < c.n_branch(); ++k) {
      const int from = net.sending()[k], to = net.receiving()[k];
      const double r = c.branch[k].r_pu, x = c.branch[k].x_pu;
      const double p = s.p_line_mw[k] / base, q = s.q_line_mvar[k] / base;
      const double ws = s.v[from] * s.v[from], wr = s.v[to] * s.v[to];
      const double i2 = (p * p + q * q) / ws;
      worst = std::max(worst, std::abs(p - r * i2 - (pl[to] / base + child_p[to])));
      worst = std::max(worst, std::abs(q - x * i2 - (ql[to] / base + child_q[to])));
      worst = std::max(worst, std::abs(wr - (ws - 2 * (r * p + x * q) + (r * r + x * x) * i2)));
    }
    MESSAGE("worst branch-flow residual " << worst << " p.u.");
    CHECK(worst < 1e-8);
    // The loss is the series I²R of every branch.
    double loss = 0;
    for (int k = 0; k < c.n_branch(); ++k) {
      const double p = s.p_line_mw[k] / base, q = s.q_line_mvar[k] / base;
      loss += c.branch[k].r_pu * (p * p + q * q) / (s.v[net.sending()[k]] * s.v[net.sending()[k]]);
    }
    CHECK(s.loss_mw == doctest::Approx(loss * base).epsilon(1e-9));

    // The same injections as negative loads in MATPOWER's model, solved by Newton-Raphson on the
    // full bus admittance matrix: the bus voltages agree to 1e-6 p.u. (DistFlow solves to 1e-10
    // on v², Newton-Raphson to 1e-9 p.u. of mismatch: case141's mismatch has a rounding floor near
    // 1e-10 with |Y| up to 1e4).
    grid::Case ac = c;
    for (int b = 0; b < nb; ++b) {
      ac.bus[b].pd_mw = pl[b];
      ac.bus[b].qd_mvar = ql[b];
    }
    for (auto& gen : ac.gen) gen.vg_pu = g.params().v_slack;
    grid::AcPfOptions o;
    o.tol = 1e-9;
    const grid::AcPfResult r = grid::AcPowerFlow(ac).solve(o);
    REQUIRE(r.success);
    double worst_vm = 0;
    for (int b = 0; b < nb; ++b) worst_vm = std::max(worst_vm, std::abs(r.bus_vm_pu[b] - s.v[b]));
    MESSAGE("worst |Vm(AC PF) - v(DistFlow)| " << worst_vm << " p.u.");
    CHECK(worst_vm < 1e-6);
    CHECK(r.total_losses_mw == doctest::Approx(s.loss_mw).epsilon(1e-6));
  }

  TEST_CASE("BFS neighbour lists on case141 (hand-checked from the branch table)") {
    // Branch rows (1-based, from–to) around bus 9: 7 (7–8), 8 (8–9), 9 (9–10), 10 (10–11).
    // From 9: its rows 8, 9 discover 8, 10; bus 8's rows 7, 8 add 7; bus 10's rows 9, 10, 118
    // add 11, the fourth. Around bus 135: row 67 (16–135) discovers 16; bus 16's rows 15
    // (15–16), 16 (16–17), 67, 68 (16–136) add 15, 17, 136.
    const auto env = ders_env();
    const grid::Case& c = env->grid().params().grid_case;
    auto ids = [&](const std::vector<int>& pos) {
      std::vector<int> out;
      for (int p : pos) out.push_back(c.bus[p].id);
      return out;
    };
    const auto& agents = env->agents();
    REQUIRE(agents.size() == 12u);
    CHECK(c.bus[agents[0].bus].id == 9);  // battery_0
    CHECK(ids(agents[0].neighbours) == std::vector<int>{8, 10, 7, 11});
    CHECK(c.bus[agents[10].bus].id == 135);  // flexload_2
    CHECK(ids(agents[10].neighbours) == std::vector<int>{16, 15, 17, 136});
    // Fewer buses than K: padded with the own bus (a two-bus path from bus 1).
    CHECK(ids(envs::bfs_neighbours(c, c.bus_index(135), 1)) == std::vector<int>{16});
    grid::Case tiny = c;
    tiny.bus.resize(2);
    tiny.branch.resize(1);
    tiny.finalize();
    CHECK(ids(envs::bfs_neighbours(tiny, 1, 3)) == std::vector<int>{1, 2, 2});
  }

  TEST_CASE("agents in reference order, 15 observations and 2 actions each, named fields") {
    const auto env = ders_env();
    const auto& sp = env->spec();
    const std::vector<std::string> names = {
        "battery_0",   "battery_1",   "battery_2",  "battery_3",  "renewable_0", "renewable_1",
        "renewable_2", "renewable_3", "flexload_0", "flexload_1", "flexload_2",  "flexload_3"};
    const std::vector<int> buses = {9, 55, 17, 122, 6, 73, 72, 82, 41, 70, 135, 24};
    REQUIRE(sp.agents.size() == names.size());
    const grid::Case& c = env->grid().params().grid_case;
    for (size_t i = 0; i < names.size(); ++i) {
      CAPTURE(names[i]);
      CHECK(sp.agents[i].name == names[i]);
      CHECK(sp.agents[i].obs.offset == static_cast<int>(15 * i));
      CHECK(sp.agents[i].obs.size == 15);
      CHECK(sp.agents[i].act.offset == static_cast<int>(2 * i));
      CHECK(sp.agents[i].act.size == 2);
      CHECK(c.bus[env->agents()[i].bus].id == buses[i]);
      CHECK(sp.obs_field(names[i] + "/device").size == 5);
      CHECK(sp.obs_field(names[i] + "/neighbour_voltage").size == 4);
    }
    CHECK(sp.obs_dim == 180);
    CHECK(sp.act_dim == 24);
    CHECK(sp.cost_names ==
          std::vector<std::string>{"voltage_violation", "thermal_overload", "resource"});
    // The local observation of battery_0 at reset: voltages of its bus and neighbours, the
    // feeder's min/max/mean, the clock, [soc, P/P_rated, Q/S] + 2 zeros.
    auto st = env->make_state();
    const auto& s = static_cast<const GridState&>(*st);
    core::Rng rng(2, 0);
    std::vector<float> obs(sp.obs_dim);
    env->reset(*st, rng, obs, {3, 30});
    const auto nv = [](double v) { return static_cast<float>((v - 1.0) / 0.1); };
    CHECK(obs[0] == nv(s.v[env->agents()[0].bus]));
    for (int k = 0; k < 4; ++k) CHECK(obs[1 + k] == nv(s.v[env->agents()[0].neighbours[k]]));
    CHECK(obs[5] == nv(*std::min_element(s.v.begin(), s.v.end())));
    CHECK(obs[6] == nv(*std::max_element(s.v.begin(), s.v.end())));
    CHECK(obs[8] == 0.0f);   // sin at t = 0
    CHECK(obs[9] == 1.0f);   // cos
    CHECK(obs[10] == 0.5f);  // soc_init
    for (int k = 11; k < 15; ++k) CHECK(obs[k] == 0.0f);
    // renewable_0's device block: [cf, P/cap, Q/S, curtail] + 1 zero, cf of the first step.
    const int r0 = sp.obs_field("renewable_0/device").offset;
    CHECK(obs[r0] == static_cast<float>(s.renewable.cf[0]));
    CHECK(obs[r0 + 4] == 0.0f);
  }

  TEST_CASE("one agent's action moves only its own device") {
    const auto env = ders_env();
    const auto& sp = env->spec();
    core::Rng rng(4, 0);
    std::vector<float> obs(sp.obs_dim), costs(3);
    auto base = env->make_state();
    env->reset(*base, rng, obs, {20, 30});
    for (int t = 0; t < 20; ++t) env->step(*base, sp.reference_action, rng, obs, costs, nullptr);
    std::vector<double> saved;
    env->save_state(*base, saved);
    // Device quantities of every agent after one step from the saved state with `a`.
    auto devices_after = [&](const std::vector<float>& a) {
      auto st = env->make_state();
      env->load_state(*st, saved);
      env->step(*st, a, rng, obs, costs, nullptr);
      const auto& s = static_cast<const GridState&>(*st);
      std::vector<std::vector<double>> out;
      for (const auto& ag : env->agents()) {
        const int d = ag.device;
        switch (ag.type) {
          case envs::DeviceType::kBattery:
            out.push_back({s.battery.soc[d], s.battery.p_mw[d], s.battery.q_mvar[d]});
            break;
          case envs::DeviceType::kRenewable:
            out.push_back(
                {s.renewable.p_mw[d], s.renewable.q_mvar[d], s.renewable.curtail_frac[d]});
            break;
          case envs::DeviceType::kFlexLoad:
            out.push_back({s.flex.curtailed[d], s.flex.shift_out[d], s.flex.shift_in[d]});
            break;
        }
      }
      return out;
    };
    const auto ref = devices_after(sp.reference_action);
    for (size_t i = 0; i < sp.agents.size(); ++i) {
      CAPTURE(sp.agents[i].name);
      std::vector<float> a = sp.reference_action;
      a[sp.agents[i].act.offset] = 0.5f;  // battery discharge, 25 % curtailment, 50 % curtail
      a[sp.agents[i].act.offset + 1] = 0.5f;
      const auto got = devices_after(a);
      for (size_t j = 0; j < got.size(); ++j) {
        CAPTURE(sp.agents[j].name);
        if (j == i)
          CHECK(got[j] != ref[j]);
        else
          CHECK(got[j] == ref[j]);
      }
    }
  }

  TEST_CASE("team reward, the voltage penalty in the learner reward, costs and episode sums") {
    const auto env = ders_env("voltage_penalty = 4.0\n", "voltage_tightening");
    const auto& sp = env->spec();
    auto st = env->make_state();
    const auto& s = static_cast<const GridState&>(*st);
    core::Rng rng(5, 0);
    std::vector<float> obs(sp.obs_dim), costs(3);
    env->reset(*st, rng, obs, {0, 30});
    double worst_cc = 0;
    for (int t = 0; t < 48; ++t) {
      envs::Info info;
      const envs::Step r = env->step(*st, sp.reference_action, rng, obs, costs, &info);
      CHECK(r.reward == static_cast<float>(-0.1 * s.loss_mw));
      double cc = 0;
      int nv = 0;
      for (double v : s.v) {
        cc += std::max(v - 1.04, 0.0) + std::max(0.96 - v, 0.0);
        nv += v < 0.96 || v > 1.04;
      }
      worst_cc = std::max(worst_cc, cc);
      CHECK(costs[0] == static_cast<float>(nv));
      CHECK(r.shaped_reward == doctest::Approx(r.reward - 4.0 * cc).epsilon(1e-9));
      for (int a = 0; a < 12; ++a) {
        CHECK(r.agent_reward[a] == r.reward);
        CHECK(r.agent_shaped[a] == static_cast<float>(r.shaped_reward));
      }
      CHECK(info.sums[0] == doctest::Approx(s.loss_mw / 48));
      CHECK(info.sums[2] == (nv > 0 ? 1.0 : 0.0));
      CHECK(info.sums[4] == nv);  // total_cost: violations counted (no line has a rating)
      CHECK(info.sums[5] == doctest::Approx(cc).epsilon(1e-12));
      CHECK(r.truncated == (t == 47));
    }
    CHECK(worst_cc > 0);  // the tightened band is left on this day
    CHECK(sp.episode_sum_names[0] == "mean_p_loss_mw");
    CHECK(sp.reduction_names[0] == "loss_reduction_pct");
    // No control: renewables at a_c = +1 (no curtailment), everything else 0.
    for (size_t i = 0; i < sp.agents.size(); ++i)
      CHECK(sp.reference_action[sp.agents[i].act.offset] ==
            (sp.agents[i].group == "renewable" ? 1.0f : 0.0f));
  }

  TEST_CASE("save_state / load_state round trip continues identically") {
    const auto env = ders_env();
    const auto& sp = env->spec();
    core::Rng rng(6, 0);
    std::vector<float> obs(sp.obs_dim), obs2(sp.obs_dim), costs(3), costs2(3);
    auto a = env->make_state();
    env->reset(*a, rng, obs, {7, 30});
    for (int t = 0; t < 10; ++t) env->step(*a, busy_action(sp), rng, obs, costs, nullptr);
    std::vector<double> saved;
    env->save_state(*a, saved);
    auto b = env->make_state();
    CHECK(env->load_state(*b, saved) == saved.size());
    for (int t = 0; t < 5; ++t) {
      const auto ra = env->step(*a, busy_action(sp), rng, obs, costs, nullptr);
      const auto rb = env->step(*b, busy_action(sp), rng, obs2, costs2, nullptr);
      CHECK(ra.reward == rb.reward);
      CHECK(obs == obs2);
      CHECK(costs == costs2);
    }
  }

  // Regression guard of the hot path (DistFlow on 141 buses, ×N envs per vector step): after the
  // first step sized the state's scratch buffers, a step and a reset allocate nothing.
  TEST_CASE("forecasts: every agent sees the feeder's next-step demand and available PV") {
    const auto env = ders_env("forecast_horizon = 3\n");
    const auto& sp = env->spec();
    const envs::DistGrid& g = env->grid();
    REQUIRE(env->agent_obs_dim() == 15 + 6);
    const std::string a0 = sp.agents[0].name, a5 = sp.agents[5].name;
    CHECK(sp.obs_field(a0 + "/load_forecast").offset == 15);
    CHECK(sp.obs_field(a0 + "/pv_forecast").offset == 18);
    CHECK(sp.obs_field(a5 + "/pv_forecast").offset == 5 * 21 + 18);
    double p_ref = 0;
    for (const auto& b : g.params().grid_case.bus) p_ref += b.pd_mw;
    auto st = env->make_state();
    core::Rng rng(6, 2);
    std::vector<float> obs(sp.obs_dim), costs(3);
    const std::vector<float> act = busy_action(sp);
    env->reset(*st, rng, obs, {4, 30});
    const int64_t s0 = static_cast<GridState&>(*st).start;
    std::vector<double> pl, ql, cf;
    double pv_seen = 0;
    for (int t = 0; t <= 48; ++t) {
      CAPTURE(t);
      for (int k = 1; k <= 3; ++k) {
        const int64_t step = s0 + std::min(t + k, 47);
        g.bus_load(step, pl, ql);
        double load = 0, pv = 0;
        for (double x : pl) load += x;
        g.capacity_factors(step, cf);
        for (size_t d = 0; d < cf.size(); ++d) pv += g.params().renewables[d].cap_mw * cf[d];
        pv_seen += pv;
        for (size_t i = 0; i < sp.agents.size(); ++i) {
          const int o = static_cast<int>(i) * 21;
          CHECK(obs[o + 15 + k - 1] == doctest::Approx(load / p_ref).epsilon(1e-6));
          CHECK(obs[o + 18 + k - 1] == doctest::Approx(pv / p_ref).epsilon(1e-6));
        }
      }
      if (t < 48) env->step(*st, act, rng, obs, costs, nullptr);
    }
    CHECK(pv_seen > 0);
  }

  TEST_CASE("forecast_error split: noisy forecasts, the same for every agent, resume exactly") {
    const auto clean = ders_env("forecast_horizon = 3\n");
    const auto noisy = ders_env("forecast_horizon = 3\n", "forecast_error");
    CHECK(noisy->grid().params().forecast.noise == 0.05);
    const auto& sp = clean->spec();
    auto sa = clean->make_state(), sb = noisy->make_state(), sr = noisy->make_state();
    std::vector<float> oa(sp.obs_dim), ob(sp.obs_dim), orr(sp.obs_dim), ca(3), cb(3), cr(3);
    const std::vector<float> act = busy_action(sp);
    core::Rng ra(3, 3), rb(3, 3), rr;
    clean->reset(*sa, ra, oa, {});
    noisy->reset(*sb, rb, ob, {});
    int differ = 0;
    for (int t = 0; t < 30; ++t) {
      CAPTURE(t);
      for (size_t i = 0; i < sp.agents.size(); ++i) {
        const int o = static_cast<int>(i) * 21;
        for (int j = 0; j < 15; ++j) CHECK(oa[o + j] == ob[o + j]);
        for (int j = 15; j < 21; ++j) {
          differ += oa[o + j] != ob[o + j];
          CHECK(ob[o + j] == ob[j]);
        }
      }
      CHECK(ra == rb);
      if (t == 10) {
        std::vector<double> saved;
        noisy->save_state(*sb, saved);
        CHECK(noisy->load_state(*sr, saved) == saved.size());
        rr = rb;
      }
      const auto x = clean->step(*sa, act, ra, oa, ca, nullptr);
      const auto y = noisy->step(*sb, act, rb, ob, cb, nullptr);
      CHECK(x.reward == y.reward);
      if (t >= 10) {
        noisy->step(*sr, act, rr, orr, cr, nullptr);
        CHECK(orr == ob);
      }
    }
    CHECK(differ > 12 * 3 * 30);  // the load forecasts at least (PV is 0 at night)
  }

  TEST_CASE("a step and a reset allocate no heap memory once the buffers are sized") {
    const auto env = ders_env();
    const auto& sp = env->spec();
    core::Rng rng(8, 0);
    std::vector<float> obs(sp.obs_dim), costs(3);
    const std::vector<float> act = busy_action(sp);
    auto st = env->make_state();
    envs::Info info;
    env->reset(*st, rng, obs, {1, 30});
    env->step(*st, act, rng, obs, costs, &info);
    g_allocations = 0;
    g_counting = true;
    for (int t = 1; t < 48; ++t) env->step(*st, act, rng, obs, costs, &info);
    env->reset(*st, rng, obs, {2, 30});
    env->step(*st, act, rng, obs, costs, &info);
    g_counting = false;
    CHECK(g_allocations == 0);
  }
}

// Issue 32: the DERs env reads an edited case141 as `powerzoo grid distflow` does. The task's
// devices and profiles on each edit (a lateral cut off, a bus of type 4, a changed load, a DG in
// and out of service): the grid's voltages, flows and losses equal grid::solve_case's on the same
// file with the env's net loads, and the agents' voltage statistics cover the energized buses.
TEST_SUITE("envs_dist_grid_marl") {
  TEST_CASE("edited case141: grid voltages, flows and losses equal grid distflow's, step by step") {
    const auto task = ders_env();
    const grid::Case base = grid::load_case(grid::resolve_case_path("case141"));
    std::vector<int> lateral, type4;  // row 101 is 55-60; bus 126 cuts 126-130
    for (int id = 60; id <= 69; ++id) lateral.push_back(id);
    for (int id = 126; id <= 130; ++id) type4.push_back(id);
    for (const auto& edit : test::feeder_edits("case141", 101, lateral, 126, type4, 41, 100)) {
      CAPTURE(edit.what);
      envs::DistGridParams p = task->grid().params();
      p.grid_case = edit.c;
      for (int b = 0; b < base.n_bus(); ++b)  // the task's loads follow the file's PD, QD
        if (base.bus[b].pd_mw > 0) {
          p.bus_p_mw[b] *= edit.c.bus[b].pd_mw / base.bus[b].pd_mw;
          if (base.bus[b].qd_mvar > 0)
            p.bus_q_mvar[b] *= edit.c.bus[b].qd_mvar / base.bus[b].qd_mvar;
        }
      const auto grid = std::make_shared<const envs::DistGrid>(std::move(p));
      const envs::DistGridMarl env(grid, task->params());
      CHECK(grid->n_lines() == 140 - static_cast<int>(edit.dead_ids.size()));
      auto st = env.make_state();
      auto& s = static_cast<GridState&>(*st);
      core::Rng rng(2, 0);
      std::vector<float> obs(env.spec().obs_dim), costs(3);
      env.reset(s, rng, obs, {3, 30});
      for (int t = 0; t < 4; ++t) {
        envs::Info info;
        env.step(s, busy_action(env.spec()), rng, obs, costs, &info);
        REQUIRE(info.status == envs::StepStatus::kOk);
        const grid::DistFlowResult r = test::check_step_against_distflow(*grid, s, edit);
        double vmin = 2, vmax = 0, vsum = 0;
        int n = 0;
        for (int b = 0; b < base.n_bus(); ++b) {
          if (!grid->network().live()[b]) continue;
          vmin = std::min(vmin, r.bus_vm_pu[b]);
          vmax = std::max(vmax, r.bus_vm_pu[b]);
          vsum += r.bus_vm_pu[b];
          ++n;
        }
        CHECK(n == base.n_bus() - static_cast<int>(edit.dead_ids.size()));
        const int K = env.params().n_neighbours;
        CHECK(obs[1 + K] == doctest::Approx((vmin - 1) / 0.1).epsilon(1e-6));
        CHECK(obs[2 + K] == doctest::Approx((vmax - 1) / 0.1).epsilon(1e-6));
        CHECK(obs[3 + K] == doctest::Approx((vsum / n - 1) / 0.1).epsilon(1e-6));
      }
    }
  }
}
