// trans_grid (DC, agent dispatch) under outages: after every single-branch outage of case14 and
// of an edit of it whose outages de-energize a load bus, and after generator outages, the env's
// flows equal grid::run_dcpf of the case with that row's status 0 and the env's dispatch; the
// observation and the costs carry the status and the unserved load.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "status_obs_util.hpp"
#include "trace_status_util.hpp"

using namespace pz;

namespace {

data::OutageSchedule at_step0(data::OutageElement el, std::vector<int> rows) {
  data::OutageSchedule s;
  s.path = "test.csv";
  for (int r : rows) s.events.push_back({0, el, r, 0, 2});
  return s;
}

struct Stepped {
  std::vector<double> p, flow;
  std::vector<float> obs, costs;
  envs::Info info;
};

// A reset and one step of the env on `c` with the schedule, action a_u = 0.3·sin(u + 1).
Stepped step_env(const grid::Case& c, data::OutageSchedule sched) {
  envs::TransGridParams p;
  p.grid_case = c;
  p.horizon = 4;
  p.outages.schedule = std::move(sched);
  const envs::TransGrid env(std::move(p));
  auto st = env.make_state();
  core::Rng rng(1, 0);
  Stepped out;
  out.obs.resize(env.spec().obs_dim);
  out.costs.resize(env.spec().cost_names.size());
  env.reset(*st, rng, out.obs);
  std::vector<float> a(env.spec().act_dim);
  for (size_t u = 0; u < a.size(); ++u) a[u] = static_cast<float>(0.3 * std::sin(u + 1.0));
  env.step(*st, a, rng, out.obs, out.costs, &out.info);
  const auto& s = static_cast<const envs::TransGrid::GridState&>(*st);
  out.p = s.p_mw;
  out.flow = s.flow_mw;
  return out;
}

// run_dcpf of `c` with rows out, the env's unit outputs as PG and the case's PD.
grid::DcPfResult reference(grid::Case c, const std::vector<int>& branches_out,
                           const std::vector<int>& gens_out, const std::vector<double>& p_units) {
  c = grid::energize(c);
  int u = 0;
  for (int g = 0; g < c.n_gen(); ++g)
    if (c.gen[g].status > 0) c.gen[g].pg_mw = p_units[u++];
  for (int k : branches_out) c.branch[k - 1].status = 0;
  for (int g : gens_out) c.gen[g - 1].status = 0;
  for (auto& b : c.bus) b.gs_mw = 0;
  return grid::run_dcpf(c);
}

void check_every_branch(const grid::Case& c, double unserved_pd_of_dead) {
  int n_island = 0, n_dead = 0;
  const grid::Case en = grid::energize(c);
  for (int k = 1; k <= c.n_branch(); ++k) {
    if (en.branch[k - 1].status <= 0) continue;
    CAPTURE(k);
    const Stepped s = step_env(c, at_step0(data::OutageElement::kBranch, {k}));
    const grid::DcPfResult r = reference(c, {k}, {}, s.p);
    REQUIRE(r.success);
    for (int l = 0; l < c.n_branch(); ++l) CHECK(std::abs(s.flow[l] - r.branch_pf_mw[l]) < 1e-9);
    CHECK(s.flow[k - 1] == 0.0);
    double dead_pd = 0;
    for (int b : r.dead_buses) dead_pd += c.bus[b].pd_mw;
    CHECK(std::abs(s.costs.back() - dead_pd) < 1e-4);  // unserved_load (float)
    n_dead += !r.dead_buses.empty();
    n_island += grid::find_islands([&] {
                  grid::Case e = en;
                  e.branch[k - 1].status = 0;
                  return e;
                }())
                    .n > 1;
    CHECK(s.obs[s.obs.size() - c.n_branch() + (k - 1)] == 0.0f);  // branch_status
  }
  CHECK(n_island >= 1);
  if (unserved_pd_of_dead > 0) CHECK(n_dead >= 1);
}

}  // namespace

TEST_SUITE("envs_trans_grid_outages") {
  TEST_CASE(
      "every branch outage of case14 equals the DC power flow without it (LODF and islands)") {
    check_every_branch(grid::load_case(grid::resolve_case_path("case14")), 0);
  }

  TEST_CASE("an outage that cuts off a load bus without a generator: its load is unserved") {
    grid::Case c = grid::load_case(grid::resolve_case_path("case14"));
    // Bus 8 hangs on branch 7-8 alone; without its synchronous condenser and with a load, the
    // outage of 7-8 leaves an island without a gen (de-energized, MATPOWER's rule).
    for (int g = 0; g < c.n_gen(); ++g)
      if (c.bus[c.gen_bus_idx[g]].id == 8) c.gen[g].status = 0;
    for (auto& b : c.bus)
      if (b.id == 8) b.pd_mw = 12.5, b.type = 1;
    check_every_branch(c, 12.5);
  }

  TEST_CASE("generator outages: the unit is at 0 and the flows are those without it") {
    const grid::Case c = grid::load_case(grid::resolve_case_path("case5"));
    for (std::vector<int> gens : {std::vector<int>{3}, {1}, {1, 2}, {2, 5}}) {
      CAPTURE(gens[0]);
      const Stepped s = step_env(c, at_step0(data::OutageElement::kGen, gens));
      for (int g : gens) CHECK(s.p[g - 1] == 0.0);  // case5: every gen is a unit, in order
      const grid::DcPfResult r = reference(c, {}, gens, s.p);
      REQUIRE(r.success);
      for (int l = 0; l < c.n_branch(); ++l) CHECK(std::abs(s.flow[l] - r.branch_pf_mw[l]) < 1e-9);
      // The imbalance went to the reference's units: generation equals load.
      double gen = 0, load = 0;
      for (double v : s.p) gen += v;
      for (const auto& b : c.bus) load += b.pd_mw;
      CHECK(gen == doctest::Approx(load).epsilon(1e-12));
      // gen_status is the last field, in unit order.
      const size_t off = s.obs.size() - 5;
      for (int u = 0; u < 5; ++u) {
        const bool out = std::find(gens.begin(), gens.end(), u + 1) != gens.end();
        CHECK(s.obs[off + u] == (out ? 0.0f : 1.0f));
      }
    }
  }

  TEST_CASE("without outages the spec is unchanged; with them it gains the status and a channel") {
    envs::TransGridParams p;
    p.grid_case = grid::load_case(grid::resolve_case_path("case5"));
    const envs::TransGrid plain(p);
    CHECK(plain.spec().obs_dim == 6 + 3 + 5 + 2);
    CHECK(plain.spec().cost_names.size() == 4);
    CHECK(plain.spec().trace_vectors.size() == 2);
    p.outages.rate = 0.01;
    p.outages.random_branch = true;
    const envs::TransGrid out(p);
    CHECK(out.spec().obs_dim == 16 + 6);
    CHECK(out.spec().obs_fields.back().name == "branch_status");
    CHECK(out.spec().obs_fields.back().slice.offset == 16);
    CHECK(out.spec().cost_names.back() == "unserved_load");
    CHECK(out.spec().trace_vectors.back().name == "branch_status");
  }

  TEST_CASE("trace rows hold the status each step was solved with (every mode)") {
    // A user trial read info/branch_status[t] next to the costs of step t and found the status of
    // step t + 1. case14 with bus 8 a load bus without a unit: branch 7-8 out de-energizes it, so
    // the row of each step of the outage (steps 2 and 3) carries 0 flow on 7-8 and its 12.5 MW
    // unserved, and the status row says 0 in the same row.
    grid::Case c = grid::load_case(grid::resolve_case_path("case14"));
    for (int g = 0; g < c.n_gen(); ++g)
      if (c.bus[c.gen_bus_idx[g]].id == 8) c.gen[g].status = 0;
    for (auto& b : c.bus)
      if (b.id == 8) b.pd_mw = 12.5, b.type = 1;
    int k = 0;  // 1-based row of branch 7-8
    for (int l = 0; l < c.n_branch(); ++l)
      if (c.bus[c.branch_from_idx[l]].id == 7 && c.bus[c.branch_to_idx[l]].id == 8) k = l + 1;
    REQUIRE(k > 0);
    data::OutageSchedule sched;
    sched.path = "test.csv";
    sched.events = {{2, data::OutageElement::kBranch, k, 0, 2},
                    {4, data::OutageElement::kBranch, k, 1, 3}};
    using S = envs::TransGridParams::Solver;
    for (const auto& [solver, opf] :
         {std::pair{S::kDc, false}, std::pair{S::kDc, true}, std::pair{S::kAcPf, false}}) {
      CAPTURE(static_cast<int>(solver));
      CAPTURE(opf);
      envs::TransGridParams p;
      p.grid_case = c;
      p.horizon = 6;
      p.solver = solver;
      p.opf_dispatch = opf;
      p.outages.schedule = sched;
      const envs::TransGrid env(std::move(p));
      const test::TracedRun r = test::run_traced(env, 6);
      test::check_status_rows(env, r, "branch_status", k - 1, 2, 4, "branch_status");
      for (int t = 0; t < 6; ++t) {
        CAPTURE(t);
        const bool out = t == 2 || t == 3;
        const float flow = test::trace_value(env.spec(), r.trace[t], "branch_p_mw", k - 1);
        if (out)
          CHECK(flow == 0.0f);
        else
          CHECK(std::abs(flow) > 10.0f);  // bus 8's 12.5 MW (and the AC losses)
        CHECK(test::cost_value(env.spec(), r.costs[t], "unserved_load") ==
              doctest::Approx(out ? 12.5 : 0.0).epsilon(1e-6));
      }
    }
  }

  TEST_CASE("outage_status_obs = false: no status field, the same steps as with it") {
    envs::TransGridParams p;
    p.grid_case = grid::load_case(grid::resolve_case_path("case14"));
    p.horizon = 24;
    p.outages.rate = 0.05;  // about 0.05 · (20 branches + 5 units) · 24 element-steps fail
    p.outages.duration_steps = 3;
    p.outages.random_branch = p.outages.random_gen = true;
    const envs::TransGrid seeing(p);
    p.outages.status_obs = false;
    const envs::TransGrid blind(p);
    CHECK(seeing.spec().obs_dim == blind.spec().obs_dim + 20 + 5);
    for (const auto& f : blind.spec().obs_fields)
      CHECK(f.name.find("_status") == std::string::npos);
    CHECK(blind.spec().cost_names.back() == "unserved_load");  // physics and costs unchanged
    CHECK(blind.spec().trace_vectors.back().name == "gen_status");
    CHECK(test::check_blind_steps_as_seeing(blind, seeing, 24) > 0);
  }
}

// Issue 36 (a user trial): every gen of case5 out made the AC modes exit 2 mid-run ("expected a
// reference bus") and ended the DC-OPF mode's episodes as solver failures. Nothing energized is
// an outcome: the episode runs on with every bus de-energized and all load unserved.
TEST_SUITE("envs_trans_grid_outages") {
  TEST_CASE("regression: every gen out runs to the horizon with all load unserved (every mode)") {
    // Steps 3-5 without a gen; from step 6 gen 1 (bus 1, 40 MW) alone serves the load, scaled to
    // 3 % of case5's 1000 MW so that it can (the OPF modes balance the island or fail).
    constexpr int kHorizon = 9, kOut = 3, kBack = 6;
    constexpr double kLoad = 30.0;  // MW: 0.03 · (300 + 300 + 400)
    data::OutageSchedule sched;
    sched.path = "test.csv";
    for (int g = 1; g <= 5; ++g) sched.events.push_back({kOut, data::OutageElement::kGen, g, 0, g});
    sched.events.push_back({kBack, data::OutageElement::kGen, 1, 1, 6});
    using S = envs::TransGridParams::Solver;
    for (const auto& [solver, opf] :
         {std::pair{S::kDc, false}, std::pair{S::kDc, true}, std::pair{S::kAcPf, false},
          std::pair{S::kAcPf, true}, std::pair{S::kAcOpf, false}}) {
      CAPTURE(static_cast<int>(solver));
      CAPTURE(opf);
      envs::TransGridParams p;
      p.grid_case = grid::load_case(grid::resolve_case_path("case5"));
      p.horizon = kHorizon;
      p.load_scale = 0.03;
      p.solver = solver;
      p.opf_dispatch = opf;
      p.report_opf_gap = solver == S::kAcPf;  // the AC-OPF reference of a dark step too
      p.outages.schedule = sched;
      const bool ac = solver != S::kDc;
      const envs::TransGrid env(std::move(p));
      auto st = env.make_state();
      const auto& s = static_cast<const envs::TransGrid::GridState&>(*st);
      core::Rng rng(1, 0);
      std::vector<float> obs(env.spec().obs_dim), costs(env.spec().cost_names.size());
      std::vector<float> a(env.spec().act_dim, 0.2f);
      env.reset(*st, rng, obs);
      for (int t = 0; t < kHorizon; ++t) {
        CAPTURE(t);
        envs::Info info;
        const envs::Step r = env.step(*st, a, rng, obs, costs, &info);
        const bool dark = t >= kOut && t < kBack;
        CHECK(info.status == envs::StepStatus::kOk);
        CHECK(!r.terminated);
        CHECK(r.truncated == (t == kHorizon - 1));
        for (float v : obs) CHECK(std::isfinite(v));
        for (float v : costs) CHECK(std::isfinite(v));
        CHECK(costs.back() == doctest::Approx(dark ? kLoad : 0.0).epsilon(1e-6));
        if (dark) CHECK(!info.is_safe);  // the unserved load
        double pg = 0, flow = 0;
        for (double v : s.p_mw) pg += v;
        for (double v : s.flow_mw) flow += std::abs(v);
        if (dark) {
          CHECK(pg == 0.0);
          CHECK(flow == 0.0);
          CHECK(info.gen_cost == 0.0);
          if (ac)
            for (double v : s.vm) CHECK(v == 0.0);
        } else {
          CHECK(pg >= kLoad - 1e-6);  // served (plus the AC losses)
          CHECK(flow > 1.0);
          if (ac)
            for (double v : s.vm) CHECK(v > 0.9);
        }
        if (t >= kBack) CHECK(s.p_mw[0] == doctest::Approx(pg));  // gen 1 alone
      }
    }
  }
}
