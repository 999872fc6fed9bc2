// UnitCommitment under outages: after every single-branch outage of the tso task's case118 (and
// two-branch, bridge and unit outages), the env's flows equal grid::run_dcpf of the case with those
// rows out and the env's dispatch; units out are forced off; random outages resume exactly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/synthetic_shapes.hpp"
#include "powerzoo/envs/unit_commitment.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/grid/dc/lodf.hpp"
#include "powerzoo/grid/dc/ptdf_flow.hpp"
#include "powerzoo/tasks/tso.hpp"
#include "status_obs_util.hpp"
#include "test_grid_util.hpp"
#include "trace_status_util.hpp"

using namespace pz;
using UcState = envs::UnitCommitment::UcState;

namespace {

// The tso task's case118 (8° ratings, its unit table), synthetic net load, 48 steps of 30 min.
envs::UnitCommitmentParams case118_params() {
  envs::UnitCommitmentParams p;
  const std::string path = grid::resolve_case_path("case118");
  p.grid_case = grid::energize(grid::load_case(path));
  tasks::apply_tso_line_ratings(p.grid_case, 1.0);
  p.units = tasks::load_uc_units(path.substr(0, path.size() - 2) + "_unit_commitment.csv",
                                 p.grid_case, 0.5);
  for (const auto& b : p.grid_case.bus) p.base_pd.push_back(b.type == 4 ? 0.0 : b.pd_mw);
  for (int k = 0; k < 48; ++k) {
    const double t_h = k * 0.5;
    p.net.push_back(data::synthetic_net_load(data::synthetic_gross(t_h), t_h));
  }
  p.episode_starts = {0};
  p.horizon = 48;
  p.dt_hours = 0.5;
  return p;
}

// A schedule whose only row takes branch 1 and unit 1 out at the last step: the env tracks both
// kinds, and the test sets the status of the step it solves by hand.
data::OutageSchedule tracking_schedule() {
  data::OutageSchedule s;
  s.path = "test.csv";
  s.events.push_back({47, data::OutageElement::kBranch, 1, 0, 2});
  s.events.push_back({47, data::OutageElement::kGen, 1, 0, 3});
  return s;
}

struct Run {
  envs::UnitCommitment env;
  std::unique_ptr<envs::State> st;
  core::Rng rng{3, 0};
  std::vector<float> obs, costs, act;
  envs::Info info;
  explicit Run(envs::UnitCommitmentParams p) : env(std::move(p)) {
    st = env.make_state();
    obs.resize(env.spec().obs_dim);
    costs.resize(env.spec().cost_names.size());
    act.assign(env.spec().act_dim, 0.0f);
  }
  UcState& s() { return static_cast<UcState&>(*st); }
  // Reset, the given rows (0-based) out, one step with every unit asked on.
  void step_with_out(const std::vector<int>& branches, const std::vector<int>& gens) {
    env.reset(*st, rng, obs);
    std::fill(s().out.branch_on.begin(), s().out.branch_on.end(), 1);
    std::fill(s().out.gen_on.begin(), s().out.gen_on.end(), 1);
    for (int k : branches) s().out.branch_on[k] = 0;
    for (int g : gens) s().out.gen_on[g] = 0;
    const int nu = env.n_units();
    for (int u = 0; u < nu; ++u) act[u] = 1.0f, act[nu + u] = 0.3f * std::sin(u + 1.0f);
    env.step(*st, act, rng, obs, costs, &info);
  }
};

// run_dcpf of the env's case with the rows out, the env's dispatch as PG and its loads as PD.
grid::DcPfResult reference(Run& r, const std::vector<int>& branches, const std::vector<int>& gens) {
  grid::Case c = r.env.params().grid_case;
  const auto& p = r.env.params();
  const double f = p.load_scale * p.net[0];
  for (int k : branches) c.branch[k].status = 0;
  for (int g : gens) c.gen[g].status = 0;
  for (int u = 0; u < r.env.n_units(); ++u) c.gen[u].pg_mw = r.s().last[u];
  for (int b = 0; b < c.n_bus(); ++b) {
    c.bus[b].pd_mw = f * p.base_pd[b];
    c.bus[b].gs_mw = 0;
  }
  return grid::run_dcpf(c);
}

// Flows equal the DC power flow; unserved_load is the load of de-energized buses plus what the
// islands could not serve (checked as: ≥ the dead load).
void check_against_dcpf(Run& r, const std::vector<int>& branches, const std::vector<int>& gens) {
  const grid::DcPfResult ref = reference(r, branches, gens);
  REQUIRE(ref.success);
  const int nl = static_cast<int>(ref.branch_pf_mw.size());
  double worst = 0;
  for (int l = 0; l < nl; ++l)
    worst = std::max(worst, std::abs(r.s().flow[l] - ref.branch_pf_mw[l]));
  CHECK(worst < 1e-9);
  for (int k : branches) CHECK(r.s().flow[k] == 0.0);
  for (int g : gens) CHECK(r.s().last[g] == 0.0);
  const auto& p = r.env.params();
  double dead = 0;
  for (int b : ref.dead_buses) dead += p.load_scale * p.net[0] * p.base_pd[b];
  CHECK(r.costs.back() >= static_cast<float>(dead) - 1e-3f);
}

}  // namespace

TEST_SUITE("envs_unit_commitment_outages") {
  TEST_CASE("every branch outage of case118 equals the DC power flow without it (islands too)") {
    auto p = case118_params();
    p.outages.schedule = tracking_schedule();
    Run r(std::move(p));
    const grid::Case& c = r.env.params().grid_case;
    int n_island = 0, n_dead = 0;
    for (int k = 0; k < c.n_branch(); ++k) {
      if (c.branch[k].status <= 0) continue;
      CAPTURE(k + 1);
      r.step_with_out({k}, {});
      check_against_dcpf(r, {k}, {});
      grid::Case e = c;
      e.branch[k].status = 0;
      n_island += grid::find_islands(e).n > 1;
      std::vector<int> dead;
      grid::energize(e, &dead);
      n_dead += !dead.empty();
      // branch_status of the step solved is in the obs (after it: the next step's, unchanged).
      CHECK(r.obs[r.env.spec().obs_field("branch_status").offset + k] == 0.0f);
    }
    CHECK(n_island >= 5);  // case118's radial buses: the bridge outages were exercised
    CHECK(n_dead >= 1);
  }

  TEST_CASE("two branches, a bridge with a unit behind it, and units out: the DC power flow") {
    auto p = case118_params();
    p.outages.schedule = tracking_schedule();
    Run r(std::move(p));
    const grid::Case& c = r.env.params().grid_case;
    const int ref_unit = [&] {
      for (int u = 0; u < r.env.n_units(); ++u)
        if (c.gen_bus_idx[u] == c.ref_bus_idx) return u;
      return -1;
    }();
    REQUIRE(ref_unit >= 0);
    const std::vector<std::pair<std::vector<int>, std::vector<int>>> sets = {
        {{0, 49}, {}}, {{6, 7, 8}, {}}, {{}, {ref_unit}}, {{}, {0, 5, 20}}, {{49}, {ref_unit, 3}}};
    for (const auto& [br, gens] : sets) {
      CAPTURE(br.size());
      CAPTURE(gens.size());
      r.step_with_out(br, gens);
      check_against_dcpf(r, br, gens);
      for (int g : gens) CHECK(r.s().status[g] == 0);
    }
  }

  TEST_CASE("a unit out is off whatever its action and min up time, and costs nothing") {
    auto p = case118_params();
    for (auto& u : p.units) u.no_load_cost_per_step = 0, u.startup_cost = 0;
    p.units[4].min_up = 10;
    p.units[4].status0 = 1;
    p.units[4].tis0 = 1;  // min up not served: the commitment would keep it on
    p.units[4].no_load_cost_per_step = 1e4;
    p.outages.schedule = tracking_schedule();
    Run r(std::move(p));
    r.step_with_out({}, {4});
    CHECK(r.s().status[4] == 0);
    CHECK(r.s().tis[4] == 1);
    CHECK(r.s().last[4] == 0.0);
    // Operating cost = generation cost alone: unit 4's no-load cost (1e4) is not charged.
    CHECK(std::abs(r.info.sums[0] - r.info.gen_cost) < 1e-6);
    CHECK(r.obs[r.env.spec().obs_field("gen_status").offset + 4] == 0.0f);
  }

  TEST_CASE("trace rows hold the status each step was solved with") {
    // A user trial read info/branch_status[t] next to the costs of step t and found the status of
    // step t + 1. Branch 184 (12-117, bus 117's only line: 20 MW of load, no unit) and unit 1 out
    // for steps 2 and 3: their rows show them out, 0 MW on the branch and on the unit, and the
    // load of bus 117 unserved; the rows before and after show them in.
    auto p = case118_params();
    const int k = 184;
    REQUIRE(p.grid_case.bus[p.grid_case.branch_to_idx[k - 1]].id == 117);
    const int b117 = p.grid_case.branch_to_idx[k - 1];
    REQUIRE(p.base_pd[b117] > 0);
    p.outages.schedule.path = "test.csv";
    p.outages.schedule.events = {{2, data::OutageElement::kBranch, k, 0, 2},
                                 {2, data::OutageElement::kGen, 1, 0, 3},
                                 {4, data::OutageElement::kBranch, k, 1, 4},
                                 {4, data::OutageElement::kGen, 1, 1, 5}};
    const envs::UnitCommitment env(p);
    const int nu = env.n_units();
    std::vector<float> act(env.spec().act_dim);  // every unit asked on
    for (int u = 0; u < nu; ++u) act[u] = 1.0f, act[nu + u] = 0.3f * std::sin(u + 1.0f);
    const test::TracedRun r = test::run_traced(env, 6, act);
    test::check_status_rows(env, r, "branch_status", k - 1, 2, 4, "branch_status");
    test::check_status_rows(env, r, "gen_status", 0, 2, 4, "gen_status");
    const envs::EnvSpec& sp = env.spec();
    for (int t = 0; t < 6; ++t) {
      CAPTURE(t);
      const bool out = t == 2 || t == 3;
      const float flow = test::trace_value(sp, r.trace[t], "branch_p_mw", k - 1);
      if (out) {
        CHECK(flow == 0.0f);
        CHECK(test::trace_value(sp, r.trace[t], "unit_p_mw", 0) == 0.0f);
        CHECK(test::trace_value(sp, r.trace[t], "unit_on", 0) == 0.0f);
      } else {
        CHECK(std::abs(flow) > 1.0f);
      }
      const double served_pd = p.load_scale * p.net[t] * p.base_pd[b117];
      CHECK(test::cost_value(sp, r.costs[t], "unserved_load") ==
            doctest::Approx(out ? served_pd : 0.0).epsilon(1e-5));
    }
  }

  TEST_CASE("without outage keys the spec is the plain env's; with them it gains the fields") {
    auto p = case118_params();
    const envs::UnitCommitment plain(p);
    p.outages.schedule = tracking_schedule();
    const envs::UnitCommitment out(p);
    const int nl = p.grid_case.n_branch(), nu = static_cast<int>(p.units.size());
    CHECK(out.spec().obs_dim == plain.spec().obs_dim + nl + nu);
    CHECK(plain.spec().cost_names.size() == 3);
    CHECK(out.spec().cost_names.back() == "unserved_load");
    CHECK(out.spec().obs_field("branch_status").offset == plain.spec().obs_dim);
    CHECK(out.spec().obs_field("gen_status").offset == plain.spec().obs_dim + nl);
  }

  TEST_CASE("outage_status_obs = false: the plain env's observation, the same steps as with it") {
    auto p = case118_params();
    p.horizon = 12;
    const envs::UnitCommitment plain(p);
    p.outages.rate = 0.01;  // about 0.01 · (186 branches + 54 units) · 12 element-steps fail
    p.outages.duration_steps = 4;
    p.outages.random_branch = p.outages.random_gen = true;
    const envs::UnitCommitment seeing(p);
    p.outages.status_obs = false;
    const envs::UnitCommitment blind(p);
    CHECK(blind.spec().obs_dim == plain.spec().obs_dim);
    CHECK(blind.spec().obs_feature_names() == plain.spec().obs_feature_names());
    CHECK(blind.spec().cost_names.back() == "unserved_load");
    CHECK(test::check_blind_steps_as_seeing(blind, seeing, 12) > 0);
  }

  TEST_CASE("random outages: a saved and restored state continues as the uninterrupted run") {
    auto p = case118_params();
    p.outages.rate = 0.01;
    p.outages.duration_steps = 6;
    p.outages.random_branch = p.outages.random_gen = true;
    Run a(p), b(p);
    a.env.reset(*a.st, a.rng, a.obs);
    const int nu = a.env.n_units();
    auto action = [&](int t) {
      std::vector<float> act(2 * nu);
      for (int u = 0; u < 2 * nu; ++u) act[u] = static_cast<float>(std::sin(0.7 * u + 1.3 * t));
      return act;
    };
    int n_out_steps = 0;
    for (int t = 0; t < 20; ++t) a.env.step(*a.st, action(t), a.rng, a.obs, a.costs, &a.info);
    std::vector<double> saved;
    a.env.save_state(*a.st, saved);
    b.env.load_state(*b.st, saved);
    b.rng = a.rng;
    for (int t = 20; t < 48; ++t) {
      a.env.step(*a.st, action(t), a.rng, a.obs, a.costs, &a.info);
      b.env.step(*b.st, action(t), b.rng, b.obs, b.costs, &b.info);
      CHECK(a.obs == b.obs);
      CHECK(a.costs == b.costs);
      CHECK(a.s().last == b.s().last);
      for (uint8_t on : a.s().out.branch_on) n_out_steps += !on;
    }
    CHECK(n_out_steps > 0);  // the rate made some branch fail in the checked steps
  }

  TEST_CASE("the tso task's n1 splits: one branch / unit out for 16 steps") {
    // Built by the task (tasks/tso.cpp) in test_exp-style specs elsewhere; here the process alone.
    auto p = case118_params();
    p.outages.n1 = envs::OutageParams::N1::kGen;
    p.outages.n1_steps = 16;
    Run r(std::move(p));
    r.env.reset(*r.st, r.rng, r.obs);
    int out_steps = 0;
    for (int t = 0; t < 48; ++t) {
      int n_out = 0;
      for (uint8_t on : r.s().out.gen_on) n_out += !on;
      CHECK(n_out <= 1);
      out_steps += n_out;
      for (int u = 0; u < r.env.n_units(); ++u)
        if (!r.s().out.gen_on[u]) r.act[u] = 1.0f;
      r.env.step(*r.st, r.act, r.rng, r.obs, r.costs, &r.info);
      for (int u = 0; u < r.env.n_units(); ++u)
        if (t < 47 && !r.s().out.gen_on[u]) CHECK(r.s().last[u] >= 0.0);
    }
    CHECK(out_steps == 16);
  }

  TEST_CASE("one branch out: the LODF update of the screen equals the screen of the edited case") {
    // build_uc_outage_net with the intact screen and LODF (the env's path) against the same call
    // without them (a factorization of the edited network), for every branch of case118 whose
    // outage does not island: the merit order and the soft-limit LP give the same point.
    const auto p = case118_params();
    const grid::Case& c = p.grid_case;
    const int nl = c.n_branch(), nu = c.n_gen();
    std::vector<double> cap(nl);
    for (int l = 0; l < nl; ++l) cap[l] = c.branch[l].rate_a_mva > 0 ? c.branch[l].rate_a_mva : 1e6;
    const grid::PtdfFlow ptdf(c, c.ref_bus_idx);
    const grid::MeritOrder merit(ptdf, c.gen_bus_idx, p.base_pd, cap, envs::kUcVoll);
    const grid::DispatchLp lp(ptdf, c.gen_bus_idx, p.base_pd, cap, envs::kUcVoll,
                              envs::kUcOverloadPrice);
    const grid::Lodf lodf(c);
    std::vector<double> lo(nu), hi(nu), mc(nu);
    for (int u = 0; u < nu; ++u) {
      lo[u] = p.units[u].pmin;
      hi[u] = p.units[u].pmax;
      mc[u] = p.units[u].mc_c;
    }
    const std::vector<uint8_t> gen_on(nu, 1);
    int n = 0, n_lp = 0, n_alt = 0;
    for (int k = 0; k < nl; ++k) {
      if (!lodf.in_service(k) || lodf.islands(k)) continue;
      CAPTURE(k + 1);
      std::vector<uint8_t> branch_on(nl, 1);
      branch_on[k] = 0;
      envs::UcOutageNet a, b;
      envs::build_uc_outage_net(c, p.base_pd, cap, envs::kUcVoll, envs::kUcOverloadPrice, branch_on,
                                gen_on, a, {&merit, &lp, &lodf});
      envs::build_uc_outage_net(c, p.base_pd, cap, envs::kUcVoll, envs::kUcOverloadPrice, branch_on,
                                gen_on, b);
      REQUIRE(a.islands.size() == 1);
      REQUIRE(b.islands.size() == 1);
      CHECK(a.islands[0].ref_bus == b.islands[0].ref_bus);
      for (double f : {0.5, 0.8, 1.0}) {
        grid::MeritOrderResult ra, rb;
        const auto sa = a.islands[0].merit[0].solve(f, lo, hi, mc, ra);
        REQUIRE(sa == b.islands[0].merit[0].solve(f, lo, hi, mc, rb));
        CHECK(pz::test::max_abs_diff(ra.flow_mw, rb.flow_mw) < 1e-9);
        CHECK(ra.p_mw == rb.p_mw);
        if (sa != grid::MeritOrderStatus::kNeedsOpf) continue;
        const bool oka = a.islands[0].lp[0].solve(f, lo, hi, mc, ra);
        REQUIRE(oka == b.islands[0].lp[0].solve(f, lo, hi, mc, rb));
        if (!oka) continue;
        // The same optimum; where the LP is degenerate (several dispatches of equal cost) the
        // rounding of the two matrices may pick another vertex of the same cost.
        CHECK(std::abs(ra.cost_usd_per_h - rb.cost_usd_per_h) < 1e-9 * (1 + rb.cost_usd_per_h));
        if (pz::test::max_abs_diff(ra.p_mw, rb.p_mw) > 1e-9) {
          ++n_alt;
          continue;
        }
        CHECK(pz::test::max_abs_diff(ra.flow_mw, rb.flow_mw) < 1e-9);
        ++n_lp;
      }
      ++n;
    }
    CHECK(n == 177);             // case118: 186 branches, 9 of them bridges
    CHECK(n_lp > 0);             // some outages congest the network: the LP path was compared too
    CHECK(n_alt * 100 <= n_lp);  // alternative optima are rare (1 of 358 when written)
    MESSAGE(n << " branches, " << n_lp << " congested LP solves compared, " << n_alt
              << " alternative optima of equal cost");
  }
}

TEST_SUITE("envs_unit_commitment_outages") {
  // Issue 36 (a user trial): every unit out is an outcome, as in trans_grid: every bus is
  // de-energized and all load unserved, nothing flows; the episode runs on and dispatches again
  // once the units are back.
  TEST_CASE("regression: every unit out runs on with all load unserved, then solves again") {
    auto p = case118_params();
    const int ng = p.grid_case.n_gen();
    p.outages.schedule.path = "test.csv";
    for (int g = 1; g <= ng; ++g) {
      p.outages.schedule.events.push_back({2, data::OutageElement::kGen, g, 0, g});
      p.outages.schedule.events.push_back({4, data::OutageElement::kGen, g, 1, ng + g});
    }
    std::sort(
        p.outages.schedule.events.begin(), p.outages.schedule.events.end(),
        [](const data::OutageEvent& a, const data::OutageEvent& b) { return a.step < b.step; });
    double base = 0;
    for (double v : p.base_pd) base += v;
    Run r(std::move(p));
    r.env.reset(*r.st, r.rng, r.obs);
    const int nu = r.env.n_units();
    for (int u = 0; u < nu; ++u) r.act[u] = 1.0f, r.act[nu + u] = 0.3f * std::sin(u + 1.0f);
    for (int t = 0; t < 8; ++t) {
      CAPTURE(t);
      const envs::Step st = r.env.step(*r.st, r.act, r.rng, r.obs, r.costs, &r.info);
      CHECK(r.info.status == envs::StepStatus::kOk);
      CHECK(!st.terminated);
      for (float v : r.obs) CHECK(std::isfinite(v));
      for (float v : r.costs) CHECK(std::isfinite(v));
      double pg = 0, flow = 0;
      for (double v : r.s().last) pg += v;
      for (double v : r.s().flow) flow += std::abs(v);
      const auto& q = r.env.params();
      if (t == 2 || t == 3) {
        CHECK(pg == 0.0);
        CHECK(flow == 0.0);
        CHECK(r.costs.back() == doctest::Approx(q.load_scale * q.net[t] * base).epsilon(1e-6));
        CHECK(!r.info.is_safe);
      } else if (t >= 4) {
        CHECK(pg > 0.0);
        CHECK(flow > 0.0);
      }
    }
  }
}
