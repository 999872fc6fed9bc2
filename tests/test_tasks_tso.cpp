// Tests of the TSO task's data conversion: unit-commitment rows to envs::UcUnit, 8° ratings.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/unit_commitment.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dc.hpp"
#include "powerzoo/tasks/tso.hpp"
#include "test_util.hpp"

using namespace pz;

namespace {
const std::string kHeader =
    "bus_id,mc_a,mc_b,mc_c,p_max,p_min,ramp_up,ramp_down,min_up_time,min_down_time,init_state,"
    "keep_time,init_start_up_cost,init_no_load_cost\n";

// A valid row on `bus`: p_max 100, ramps 0.5, min up/down 0 (→ 1 step), keep_time -2000.
std::string row(int bus) {
  return std::to_string(bus) + ",0.01,2.5,30,100,10,0.5,0.25,0,3,0.7,-2000,500,40\n";
}

std::string error_of(const std::string& path, const grid::Case& c) {
  try {
    tasks::load_uc_units(path, c, 0.5);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_SUITE("tasks_tso") {
  TEST_CASE("bundled case14 units, converted with dt = 0.5 h") {
    const std::string path = grid::resolve_case_path("case14");
    const grid::Case c = grid::load_case(path);
    const auto units =
        tasks::load_uc_units(path.substr(0, path.size() - 2) + "_unit_commitment.csv", c, 0.5);
    REQUIRE(units.size() == 5);
    const auto& u = units[0];
    CHECK(u.mc_b == 0.05541301);
    CHECK(u.mc_c == 34.216168);
    CHECK(u.pmax == 332.4);
    CHECK(u.pmin == 0.0);
    CHECK(u.ramp_up_mw == 0.6953069 * 332.4 * 0.5);
    CHECK(u.ramp_down_mw == 0.6953069 * 332.4 * 0.5);
    CHECK(u.min_up == 2);
    CHECK(u.min_down == 2);
    CHECK(u.status0 == 1);
    CHECK(u.tis0 == 48);
    CHECK(u.startup_cost == 34238.45);
    CHECK(u.no_load_cost_per_step == 0.0);
    CHECK(units[1].status0 == 0);
    CHECK(units[3].min_up == 8);
    CHECK(units[4].ramp_up_mw == 0.6504 * 100 * 0.5);
  }

  TEST_CASE("conversion of a hand-written table, and its errors with file:line") {
    const grid::Case c = grid::load_case(grid::resolve_case_path("case14"));  // gens at 1,2,3,6,8
    const auto d = test::tmp_dir("pz_tasks_tso", "uc");
    const std::string ok =
        test::write(d / "ok.csv", kHeader + row(1) + row(2) + "\n" + row(3) + row(6) + row(8));
    const auto units = tasks::load_uc_units(ok, c, 0.5);
    REQUIRE(units.size() == 5);
    CHECK(units[2].ramp_up_mw == 0.5 * 100 * 0.5);
    CHECK(units[2].ramp_down_mw == 0.25 * 100 * 0.5);
    CHECK(units[2].min_up == 1);
    CHECK(units[2].min_down == 3);
    CHECK(units[2].status0 == 1);
    CHECK(units[2].tis0 == 1000);
    CHECK(units[2].startup_cost == 500);
    CHECK(units[2].no_load_cost_per_step == 40 * 0.5);

    const std::string bus =
        test::write(d / "bus.csv", kHeader + row(1) + row(2) + "\n" + row(4) + row(6) + row(8));
    CHECK(error_of(bus, c) == bus + ":5: expected bus_id 3 (gen row 3 of " + c.name + "), found 4");
    const std::string more =
        test::write(d / "more.csv", kHeader + row(1) + row(2) + row(3) + row(6) + row(8) + row(9));
    CHECK(error_of(more, c) ==
          more + ":7: expected 5 unit rows (one per gen of " + c.name + "), found more");
    const std::string fewer = test::write(d / "fewer.csv", kHeader + row(1) + row(2));
    CHECK(error_of(fewer, c) ==
          fewer + ": expected 5 unit rows (one per gen of " + c.name + "), found 2");
    const std::string missing = (d / "missing.csv").string();
    CHECK(error_of(missing, c) == missing + ": expected a unit-commitment CSV for case '" + c.name +
                                      "', found no readable file");
  }

  TEST_CASE("8° line ratings where the case has none, then the scale") {
    grid::Case c = grid::load_case(grid::resolve_case_path("case14"));
    for (auto& br : c.branch) br.rate_a_mva = 0;
    const double x0 = c.branch[0].x_pu;
    tasks::apply_tso_line_ratings(c, 0.85);
    CHECK(c.branch[0].rate_a_mva ==
          doctest::Approx(c.base_mva * (8.0 * 3.141592653589793 / 180.0) / x0 * 0.85));
  }
}

// Issue 32: the TSO task reads its case as the `grid` commands do; the unit table commits every
// gen row, so an out-of-service row is refused, and a de-energized bus's load is not served.
namespace {
std::string tso_edit(const std::filesystem::path& dir, const std::string& name,
                     const std::vector<std::pair<std::string, std::string>>& edits) {
  const std::string src = grid::resolve_case_path("case14");
  std::ifstream in(src);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  for (const auto& [from, to] : edits) {
    const size_t k = text.find(from);
    REQUIRE(k != std::string::npos);
    text.replace(k, from.size(), to);
  }
  std::filesystem::copy_file(src.substr(0, src.size() - 2) + "_unit_commitment.csv",
                             dir / (name + "_unit_commitment.csv"));
  return test::write(dir / (name + ".m"), text);
}
std::string tso_spec(const std::string& path) {
  return "[env]\ntask = \"tso\"\ncase = \"" + path + "\"\nhorizon = 4\n";
}
}  // namespace

TEST_SUITE("tasks_tso") {
  TEST_CASE("an out-of-service gen row is refused, a de-energized bus's load is not served") {
    const auto dir = test::tmp_dir("tso", "edits");
    const std::string off = tso_edit(
        dir, "ref_off",
        {{"\t1\t232.4\t-16.9\t10\t0\t1.06\t100\t1\t", "\t1\t232.4\t-16.9\t10\t0\t1.06\t100\t0\t"}});
    std::string msg;
    try {
      exp::make_env(exp::parse_spec(tso_spec(off), "s.toml"), "train");
    } catch (const core::ConfigError& e) {
      msg = e.what();
    }
    CHECK(msg.find("[env] case") != std::string::npos);
    CHECK(msg.find("ref_off.m: mpc.gen row 1 column 8 (GEN_STATUS)") != std::string::npos);
    CHECK(msg.find("found status 0") != std::string::npos);
    // Bus 14 cut off (branches 9-14, 13-14 out): no gen there, so it is dark.
    const std::string cut = tso_edit(dir, "bus14_cut",
                                     {{"\t9\t14\t0.12711\t0.27038\t0\t0\t0\t0\t0\t0\t1\t",
                                       "\t9\t14\t0.12711\t0.27038\t0\t0\t0\t0\t0\t0\t0\t"},
                                      {"\t13\t14\t0.17093\t0.34802\t0\t0\t0\t0\t0\t0\t1\t",
                                       "\t13\t14\t0.17093\t0.34802\t0\t0\t0\t0\t0\t0\t0\t"}});
    const auto env = std::dynamic_pointer_cast<const envs::UnitCommitment>(
        exp::make_env(exp::parse_spec(tso_spec(cut), "s.toml"), "train"));
    REQUIRE(env);
    CHECK(env->params().base_pd[13] == 0.0);
    CHECK(env->params().grid_case.bus[13].type == 4);
    CHECK(env->params().base_pd[12] == 13.5);  // bus 13 is served as before
    auto st = env->make_state();
    core::Rng rng(1, 0);
    std::vector<float> obs(env->spec().obs_dim), costs(3), a(env->spec().act_dim, 1.0f);
    env->reset(*st, rng, obs);
    envs::Info info;
    env->step(*st, a, rng, obs, costs, &info);
    const auto& s = static_cast<const envs::UnitCommitment::UcState&>(*st);
    CHECK(s.flow[16] == 0.0);
    CHECK(s.flow[19] == 0.0);
    // The dispatch's flows are grid dcpf's on the same file at that dispatch and the step's loads.
    grid::Case at = grid::load_case(cut);
    double pg = 0;
    for (int g = 0; g < at.n_gen(); ++g) pg += at.gen[g].pg_mw = s.last[g];
    double pd = 0;
    for (const auto& b : env->params().grid_case.bus) pd += b.type == 4 ? 0.0 : b.pd_mw;
    for (auto& b : at.bus) b.pd_mw *= pg / pd;  // the step's loads: base PD × one factor
    for (auto& b : at.bus) b.gs_mw = 0;
    const grid::DcPfResult r = grid::run_dcpf(at);
    REQUIRE(r.success);
    if (s.opf_result.ok() && std::abs(s.opf_result.balance_slack_mw) < 1e-9)
      for (int l = 0; l < at.n_branch(); ++l) CHECK(std::abs(r.branch_pf_mw[l] - s.flow[l]) < 1e-6);
  }
}
