// Tests of the outage process: the schedule's steps, the two-state random model (failure draws,
// durations), nothing drawn when inactive, save/load mid-episode.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/outages.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {
grid::Case case5() { return grid::energize(grid::load_case(grid::resolve_case_path("case5"))); }

data::OutageSchedule schedule(const std::string& text) {
  const auto d = test::tmp_dir("pz_outproc", "s");
  return data::read_outage_schedule(test::write(d / "s.csv", text));
}
}  // namespace

TEST_SUITE("envs_outages") {
  TEST_CASE("inactive by default: no state change and no draw") {
    const envs::OutageProcess p;
    CHECK_FALSE(p.active());
    envs::OutageParams q;  // no file, rate 0
    const envs::OutageProcess p2(q, case5(), 48);
    CHECK_FALSE(p2.active());
    envs::OutageState s;
    p2.make_state(s);
    core::Rng rng(3, 4), ref(3, 4);
    p2.reset(s, rng);
    for (int t = 1; t < 48; ++t) p2.advance(s, t, rng);
    CHECK(rng == ref);
    std::vector<double> saved;
    p2.save_state(s, saved);
    CHECK(saved.empty());
  }

  TEST_CASE("scheduled rows take effect at their step and hold until the row that ends them") {
    envs::OutageParams q;
    q.schedule = schedule("step,element,index,status\n0,gen,2,0\n3,branch,4,0\n5,branch,4,1\n");
    const envs::OutageProcess p(q, case5(), 8);
    CHECK(p.tracks_branches());
    CHECK(p.tracks_gens());
    envs::OutageState s;
    p.make_state(s);
    core::Rng rng(1, 1), ref(1, 1);
    p.reset(s, rng);
    CHECK(rng == ref);  // a schedule draws nothing
    std::vector<int> branch4, gen2;
    branch4.push_back(s.branch_on[3]);
    gen2.push_back(s.gen_on[1]);
    for (int t = 1; t < 8; ++t) {
      p.advance(s, t, rng);
      branch4.push_back(s.branch_on[3]);
      gen2.push_back(s.gen_on[1]);
    }
    CHECK(branch4 == std::vector<int>{1, 1, 1, 0, 0, 1, 1, 1});
    CHECK(gen2 == std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0});
    CHECK(rng == ref);
  }

  TEST_CASE("a row of an element the case has out of service is refused, naming the line") {
    grid::Case c = grid::load_case(grid::resolve_case_path("case5"));
    c.branch[1].status = 0;
    envs::OutageParams q;
    q.schedule = schedule("step,element,index,status\n2,branch,2,0\n");
    try {
      envs::OutageProcess p(q, grid::energize(c), 8);
      FAIL("no error");
    } catch (const core::ConfigError& e) {
      CHECK(std::string(e.what()).find("s.csv:2: expected a branch in service in the case, "
                                       "found branch 2 out of service") != std::string::npos);
    }
  }

  TEST_CASE("random outages: one uniform per element and step, out for duration steps") {
    envs::OutageParams q;
    q.rate = 0.1;
    q.duration_steps = 3;
    q.random_branch = true;
    const grid::Case c = case5();
    const envs::OutageProcess p(q, c, 200);
    CHECK(p.tracks_branches());
    CHECK_FALSE(p.tracks_gens());
    envs::OutageState s;
    p.make_state(s);
    core::Rng rng(7, 0), mirror(7, 0);
    // The mirror replays the model by hand from the same stream.
    std::vector<int> on(6, 1), left(6, 0);
    int failures = 0;
    for (int t = 0; t < 200; ++t) {
      if (t == 0)
        p.reset(s, rng);
      else
        p.advance(s, t, rng);
      for (int l = 0; l < 6; ++l) {
        const double u = mirror.uniform();
        if (on[l]) {
          if (u < 0.1) on[l] = 0, left[l] = 3, ++failures;
        } else if (--left[l] == 0) {
          on[l] = 1;
        }
        CHECK(static_cast<int>(s.branch_on[l]) == on[l]);
      }
      CHECK(rng == mirror);
    }
    CHECK(failures > 20);  // 0.1 × ~6·200·(3/4 of the time in service): about 90
    // An outage lasts exactly duration steps: count runs of 0 in one branch's history.
    core::Rng r2(7, 0);
    envs::OutageState s2;
    p.make_state(s2);
    std::vector<int> hist;
    p.reset(s2, r2);
    hist.push_back(s2.branch_on[0]);
    for (int t = 1; t < 200; ++t) {
      p.advance(s2, t, r2);
      hist.push_back(s2.branch_on[0]);
    }
    for (size_t t = 1; t < hist.size(); ++t)
      if (hist[t] == 0 && hist[t - 1] == 1 && t + 3 < hist.size()) {
        CHECK(hist[t + 1] == 0);
        CHECK(hist[t + 2] == 0);
        CHECK(hist[t + 3] == 1);
      }
  }

  // Guards the traces' timing (a user trial found row t holding step t + 1's status): end_step
  // keeps the status the step was solved with while moving the status on to the next step's.
  TEST_CASE("end_step records the solved status, then advances; nothing drawn at the horizon") {
    envs::OutageParams q;
    q.rate = 0.3;
    q.duration_steps = 2;
    q.random_gen = true;
    q.schedule = schedule("step,element,index,status\n2,branch,3,0\n4,branch,3,1\n");
    const envs::OutageProcess p(q, case5(), 6);
    envs::OutageState s, ref;
    p.make_state(s);
    core::Rng rng(4, 1), rng_ref(4, 1);
    p.make_state(ref);
    p.reset(s, rng);
    p.reset(ref, rng_ref);
    CHECK(s.solved_branch_on == s.branch_on);  // after reset: step 0's
    CHECK(s.solved_gen_on == s.gen_on);
    for (int t = 1; t <= 6; ++t) {
      CAPTURE(t);
      const auto solved_branch = s.branch_on, solved_gen = s.gen_on;
      p.end_step(s, t, rng);
      CHECK(s.solved_branch_on == solved_branch);
      CHECK(s.solved_gen_on == solved_gen);
      if (t < 6) p.advance(ref, t, rng_ref);  // end_step = advance below the horizon
      CHECK(s.branch_on == ref.branch_on);
      CHECK(s.gen_on == ref.gen_on);
      CHECK(rng == rng_ref);
      CHECK(s.solved_branch_on[2] == (t - 1 == 2 || t - 1 == 3 ? 0 : 1));  // step t - 1's
      CHECK(s.branch_on[2] == (t == 2 || t == 3 ? 0 : 1));                 // step t's
    }
    // Inactive: nothing happens.
    const envs::OutageProcess none({}, case5(), 6);
    envs::OutageState n;
    none.make_state(n);
    core::Rng r0(1, 0), r1(1, 0);
    none.end_step(n, 1, r0);
    CHECK(r0 == r1);
  }

  TEST_CASE("save_state mid-episode and load_state continue exactly") {
    envs::OutageParams q;
    q.rate = 0.2;
    q.duration_steps = 4;
    q.random_branch = q.random_gen = true;
    q.schedule = schedule("step,element,index,status\n5,gen,1,0\n9,gen,1,1\n");
    const envs::OutageProcess p(q, case5(), 30);
    envs::OutageState a, b;
    p.make_state(a);
    p.make_state(b);
    core::Rng ra(2, 2);
    p.reset(a, ra);
    for (int t = 1; t < 7; ++t) p.end_step(a, t, ra);
    std::vector<double> saved;
    p.save_state(a, saved);
    CHECK(saved.size() == 1 + 3 * (6 + 5));  // tag; status, steps left, solved status per row
    saved.push_back(42);  // the caller's next field: load_state reads only its own
    CHECK(p.load_state(b, saved) == saved.size() - 1);
    CHECK(b.solved_branch_on == a.solved_branch_on);  // the traces of the last step
    CHECK(b.solved_gen_on == a.solved_gen_on);
    core::Rng rb = ra;
    for (int t = 7; t < 30; ++t) {
      p.end_step(a, t, ra);
      p.end_step(b, t, rb);
      CHECK(a.branch_on == b.branch_on);
      CHECK(a.gen_on == b.gen_on);
      CHECK(a.branch_left == b.branch_left);
      CHECK(a.solved_branch_on == b.solved_branch_on);
      CHECK(a.solved_gen_on == b.solved_gen_on);
    }
    saved[1] = 0.5;
    CHECK_THROWS_AS(p.load_state(b, saved), core::ConfigError);
  }

  TEST_CASE("load_state refuses the first layout (two values per row) by its tag") {
    envs::OutageParams q;
    q.rate = 0.2;
    q.random_branch = true;
    const envs::OutageProcess p(q, case5(), 30);
    envs::OutageState a;
    p.make_state(a);
    std::vector<double> old;  // the first layout: status, steps left per branch, then the caller's
    for (int l = 0; l < 6; ++l) old.insert(old.end(), {1.0, 0.0});
    old.insert(old.end(), 12, 0.0);
    try {
      p.load_state(a, old);
      FAIL("the first layout was read");
    } catch (const core::ConfigError& e) {
      CHECK(std::string(e.what()).find("expected the layout tag -2") != std::string::npos);
      CHECK(std::string(e.what()).find("found 1: a checkpoint written before") !=
            std::string::npos);
    }
  }

  TEST_CASE("N-1 mode: one row drawn at reset, out for exactly outage_n1_steps steps") {
    envs::OutageParams q;
    q.n1 = envs::OutageParams::N1::kBranch;
    q.n1_steps = 5;
    const grid::Case c = case5();
    const envs::OutageProcess p(q, c, 12);
    CHECK(p.active());
    CHECK(p.tracks_branches());
    CHECK_FALSE(p.tracks_gens());
    std::vector<int> rows_seen(static_cast<size_t>(c.n_branch()), 0);
    for (uint64_t seed = 0; seed < 60; ++seed) {
      envs::OutageState s;
      p.make_state(s);
      core::Rng rng(seed, 2), ref(seed, 2);
      p.reset(s, rng);
      // Two uniforms at reset, the row's then the start's.
      const double u_row = ref.uniform(), u_start = ref.uniform();
      CHECK(rng == ref);
      CHECK(s.n1_row == static_cast<int>(u_row * c.n_branch()));
      CHECK(s.n1_start == static_cast<int>(u_start * 8));  // starts 0 .. 12 - 5
      ++rows_seen[static_cast<size_t>(s.n1_row)];
      for (int t = 0; t < 12; ++t) {
        if (t > 0) p.advance(s, t, rng);
        for (int l = 0; l < c.n_branch(); ++l) {
          const bool out = l == s.n1_row && t >= s.n1_start && t < s.n1_start + 5;
          CHECK(s.branch_on[static_cast<size_t>(l)] == (out ? 0 : 1));
        }
      }
    }
    for (int n : rows_seen) CHECK(n > 0);  // every branch of case5 is drawn in 60 episodes

    // Save mid-outage, load into a fresh state: the rest of the episode is the same.
    envs::OutageState a, b;
    p.make_state(a);
    p.make_state(b);
    core::Rng rng(7, 1);
    p.reset(a, rng);
    for (int t = 1; t <= a.n1_start + 1 && t < 12; ++t) p.advance(a, t, rng);
    std::vector<double> saved;
    p.save_state(a, saved);
    CHECK(saved.size() == 1 + 3 * static_cast<size_t>(c.n_branch()) + 2);
    CHECK(p.load_state(b, saved) == saved.size());
    CHECK(b.n1_row == a.n1_row);
    CHECK(b.n1_start == a.n1_start);
    core::Rng rng_b = rng;
    for (int t = a.n1_start + 2; t < 12; ++t) {
      p.advance(a, t, rng);
      p.advance(b, t, rng_b);
      CHECK(a.branch_on == b.branch_on);
    }
  }

  TEST_CASE("N-1 mode refuses more steps than the horizon, naming outage_n1_steps") {
    envs::OutageParams q;
    q.n1 = envs::OutageParams::N1::kGen;
    q.n1_steps = 13;
    CHECK_THROWS_WITH_AS(envs::OutageProcess(q, case5(), 12),
                         "[env] outage_n1_steps: expected at most the horizon (12 steps), found 13",
                         core::ConfigError);
  }

  TEST_CASE("component kinds: units are gen rows in kind order; random only for marked kinds") {
    // Kinds a (2 units, can fail), b (1 unit, cannot fail at random), c (1 unit, can fail).
    const std::vector<envs::OutageComponent> kinds = {
        {"a", 2, true}, {"b", 1, false}, {"c", 1, true}};
    const auto d = test::tmp_dir("pz_outproc", "kinds");
    envs::OutageParams q;
    q.schedule = data::read_outage_schedule(
        test::write(d / "k.csv", "step,element,index,status\n1,b,1,0\n3,a,2,0\n4,b,1,1\n"),
        {"a", "b", "c"});
    {
      const envs::OutageProcess p(q, kinds, 6);
      CHECK(p.active());
      CHECK(p.tracks_gens());
      CHECK_FALSE(p.tracks_branches());
      envs::OutageState s;
      p.make_state(s);
      CHECK(s.gen_on == std::vector<uint8_t>{1, 1, 1, 1});
      core::Rng rng(5, 0), ref(5, 0);
      p.reset(s, rng);
      CHECK(rng == ref);  // a schedule draws nothing
      std::vector<std::vector<uint8_t>> seen = {s.gen_on};
      for (int t = 1; t < 6; ++t) {
        p.advance(s, t, rng);
        seen.push_back(s.gen_on);
      }
      // b (row 2) out at steps 1..3, a's unit 2 (row 1) out from step 3.
      CHECK(seen[0] == std::vector<uint8_t>{1, 1, 1, 1});
      CHECK(seen[1] == std::vector<uint8_t>{1, 1, 0, 1});
      CHECK(seen[3] == std::vector<uint8_t>{1, 0, 0, 1});
      CHECK(seen[4] == std::vector<uint8_t>{1, 0, 1, 1});
      CHECK(seen[5] == std::vector<uint8_t>{1, 0, 1, 1});
    }
    // Random: one uniform per unit of the marked kinds (rows 0, 1, 3) per step, none for b.
    envs::OutageParams r;
    r.rate = 0.3;
    r.duration_steps = 2;
    const envs::OutageProcess p(r, kinds, 40);
    envs::OutageState s;
    p.make_state(s);
    core::Rng rng(11, 3), ref(11, 3);
    p.reset(s, rng);
    std::vector<uint8_t> want = {1, 1, 1, 1};
    std::vector<int> left = {0, 0, 0, 0};
    int outs = 0;
    for (int t = 0; t < 40; ++t) {
      if (t > 0) p.advance(s, t, rng);
      for (int row : {0, 1, 3}) {
        const double u = ref.uniform();
        if (want[row]) {
          if (u < 0.3) want[row] = 0, left[row] = 2, ++outs;
        } else if (--left[row] == 0) {
          want[row] = 1;
        }
      }
      CHECK(s.gen_on == want);
      CHECK(s.gen_on[2] == 1);
    }
    CHECK(rng == ref);
    CHECK(outs > 5);
    // N-1 over every unit of every kind, saved with its row and start.
    envs::OutageParams n;
    n.n1 = envs::OutageParams::N1::kComponent;
    n.n1_steps = 3;
    const envs::OutageProcess pn(n, kinds, 10);
    std::vector<int> rows(4, 0);
    for (uint64_t seed = 0; seed < 40; ++seed) {
      envs::OutageState a;
      pn.make_state(a);
      core::Rng g(seed, 0);
      pn.reset(a, g);
      ++rows[static_cast<size_t>(a.n1_row)];
      for (int t = 1; t < 10; ++t) {
        pn.advance(a, t, g);
        const bool out = t >= a.n1_start && t < a.n1_start + 3;
        CHECK(a.gen_on[static_cast<size_t>(a.n1_row)] == (out ? 0 : 1));
      }
    }
    for (int k : rows) CHECK(k > 0);
    n.n1_steps = 11;
    CHECK_THROWS_WITH_AS(envs::OutageProcess(n, kinds, 10),
                         "[env] outage_n1_steps: expected at most the horizon (10 steps), found 11",
                         core::ConfigError);
  }
}
