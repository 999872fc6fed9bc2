// Trace vectors and network views of the grid envs: sizes match the network, and the traced
// physics is what the observations show.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/dist_grid.hpp"
#include "powerzoo/envs/network_view.hpp"
#include "powerzoo/exp/eval/evaluate.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "test_env_util.hpp"

using namespace pz;

namespace {

std::shared_ptr<const envs::Env> task_env(const std::string& task) {
  return exp::make_env(exp::parse_spec("[env]\ntask = \"" + task + "\"\n", task + ".toml"), "iid");
}

// Offset of trace vector `name` in Env::write_trace's output.
int trace_offset(const envs::EnvSpec& sp, const std::string& name) {
  int o = 0;
  for (const auto& t : sp.trace_vectors) {
    if (t.name == name) return o;
    o += t.size;
  }
  FAIL("no trace vector " << name);
  return -1;
}

}  // namespace

TEST_SUITE("envs_network_view") {
  TEST_CASE("every grid env's bus_ and branch_ traces run over its network's buses and branches") {
    const std::vector<std::pair<std::string, std::shared_ptr<const envs::Env>>> envs_ = {
        {"case5", test::gb_case5(48)},
        {"tso", task_env("tso")},
        {"dso", task_env("dso")},
        {"gencos", task_env("gencos")},
        {"ders", task_env("ders")}};
    for (const auto& [what, env] : envs_) {
      CAPTURE(what);
      const auto& sp = env->spec();
      const auto& net = sp.network;
      REQUIRE_FALSE(net.bus_id.empty());
      CHECK(net.branch_to.size() == net.branch_from.size());
      CHECK(net.branch_rate_mva.size() == net.branch_from.size());
      const std::set<int> ids(net.bus_id.begin(), net.bus_id.end());
      CHECK(ids.size() == net.bus_id.size());
      for (size_t l = 0; l < net.branch_from.size(); ++l) {
        CHECK(ids.count(net.branch_from[l]) == 1);
        CHECK(ids.count(net.branch_to[l]) == 1);
      }
      REQUIRE_FALSE(sp.trace_vectors.empty());
      for (const auto& t : sp.trace_vectors) {
        CAPTURE(t.name);
        if (t.name.rfind("bus_", 0) == 0) CHECK(t.size == static_cast<int>(net.bus_id.size()));
        if (t.name.rfind("branch_", 0) == 0)
          CHECK(t.size == static_cast<int>(net.branch_from.size()));
        CHECK(t.size > 0);
      }
    }
    CHECK(task_env("ders")->spec().network.bus_id.size() == 141);
    CHECK(task_env("ders")->spec().network.branch_from.size() == 140);  // radial: n_bus − 1
    CHECK(task_env("tso")->spec().network.branch_from.size() == 186);   // case118
    CHECK(task_env("dc_microgrid")->spec().network.bus_id.empty());
    CHECK(task_env("dc_microgrid")->spec().trace_vectors.empty());
  }

  TEST_CASE("case5: traced dispatch and flows are the observation's, and the flows balance") {
    const auto env = test::gb_case5(48);
    const auto& sp = env->spec();
    auto s = env->make_state();
    core::Rng rng(3, 0);
    std::vector<float> obs(sp.obs_dim), costs(sp.cost_names.size());
    env->reset(*s, rng, obs, envs::ResetOptions{0, 1});
    const std::vector<float> a = {-0.5f, 0.2f, 0.9f, -1.0f, 0.0f};
    env->step(*s, a, rng, obs, costs, nullptr);
    std::vector<float> tr(envs::trace_vector_width(sp), -7.0f);
    env->write_trace(*s, tr);
    const auto& net = sp.network;
    const int nl = static_cast<int>(net.branch_from.size());
    const int fo = trace_offset(sp, "branch_p_mw"), uo = trace_offset(sp, "unit_p_mw");
    const auto flow_obs = sp.obs_field("branch_flow");
    for (int l = 0; l < nl; ++l) {  // obs = flow / max(|cap|, 1), cap 1e6 when unlimited
      const double cap = net.branch_rate_mva[l] > 0 ? net.branch_rate_mva[l] : 1e6;
      CHECK(tr[fo + l] == doctest::Approx(obs[flow_obs.offset + l] * cap).epsilon(1e-5));
    }
    const auto unit_obs = sp.obs_field("unit_output");
    const auto& tg = static_cast<const envs::TransGrid&>(*env);
    double gen = 0;
    for (int u = 0; u < tg.n_units(); ++u) {
      CHECK(tr[uo + u] ==
            doctest::Approx(obs[unit_obs.offset + u] * std::max(tg.pmax()[u], 1.0)).epsilon(1e-5));
      gen += tr[uo + u];
    }
    // Lossless DC: the slack units make generation equal the load of the step.
    std::vector<double> load;
    const auto& st = static_cast<const envs::TransGrid::GridState&>(*s);
    tg.bus_load(st.start + st.t - 1, load);
    double total = 0;
    for (double v : load) total += v;
    CHECK(gen == doctest::Approx(total).epsilon(1e-5));
  }

  TEST_CASE("evaluation traces the DSO feeder; the next observation shows the traced voltages") {
    const auto env = task_env("dso");
    const auto& sp = env->spec();
    core::ThreadPool pool(1);
    const exp::PolicyFn zero = [&](const float*, int n, float* a) {
      std::fill(a, a + static_cast<size_t>(n) * sp.act_dim, 0.0f);
    };
    exp::Trajectories traj;
    exp::evaluate(env, zero, 2, 5, sp.dt_hours, {}, pool, &traj);
    const int T = traj.T, N = traj.N, W = envs::trace_vector_width(sp);
    REQUIRE(T == sp.horizon);
    REQUIRE(traj.trace_vec.size() == static_cast<size_t>(T) * N * W);
    REQUIRE(traj.final_obs.size() == static_cast<size_t>(N) * sp.obs_dim);
    const int vo = trace_offset(sp, "bus_vm_pu");
    const auto vf = sp.obs_field("bus_voltage");  // (v − 1) / 0.1
    const int nb = vf.size;
    const auto* grid = dynamic_cast<const envs::DistGrid*>(env.get());
    REQUIRE(grid);
    const double v_slack = grid->params().v_slack;
    for (int i = 0; i < N; ++i)
      for (int t = 0; t < T; ++t) {
        const float* next = t + 1 < T ? &traj.obs[(static_cast<size_t>(t + 1) * N + i) * sp.obs_dim]
                                      : &traj.final_obs[static_cast<size_t>(i) * sp.obs_dim];
        const float* v = &traj.trace_vec[(static_cast<size_t>(t) * N + i) * W + vo];
        for (int b = 0; b < nb; ++b)
          CHECK(v[b] == doctest::Approx(1.0 + 0.1 * next[vf.offset + b]));
        CHECK(v[0] == doctest::Approx(v_slack));    // the substation bus holds its set point
        CHECK(*std::min_element(v, v + nb) < 1.0);  // loads pull the feeder's voltages down
      }
  }
}
