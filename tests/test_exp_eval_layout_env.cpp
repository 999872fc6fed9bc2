// exp/eval/eval_layout_env: which envs a checkpoint's policy can act on at evaluation (named
// refusals), and the adapter of outages switched off (status fields 1, outage channels 0).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/eval/eval_layout_env.hpp"

using namespace pz;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// An env spec of observation fields `fields` (name, size), one action, channels `costs`.
envs::EnvSpec layout(const std::vector<std::pair<std::string, int>>& fields,
                     std::vector<std::string> costs) {
  envs::EnvSpec s;
  s.id = "grid";
  s.obs_fields = envs::tile_obs_fields(fields);
  for (const auto& f : fields) s.obs_dim += f.second;
  s.act_dim = 1;
  s.act_low = {-1};
  s.act_high = {1};
  s.cost_names = std::move(costs);
  s.horizon = 2;
  return s;
}

/// The env of an evaluation without outages: obs = [10·t + 1, 10·t + 2, t], cost power_balance
/// = action, trace vector flow = [7, 8].
class PlainEnv final : public envs::Env {
 public:
  PlainEnv() : spec_(layout({{"load", 2}, {"time", 1}}, {"power_balance"})) {
    spec_.trace_vectors = {{"flow", 2}};
  }
  void write_trace(const envs::State&, std::span<float> out) const override {
    out[0] = 7, out[1] = 8;
  }
  const envs::EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<envs::State> make_state() const override {
    return std::make_unique<envs::State>();
  }
  void reset(envs::State&, core::Rng&, std::span<float> obs,
             const envs::ResetOptions&) const override {
    obs[0] = 1, obs[1] = 2, obs[2] = 0;
  }
  envs::Step step(envs::State&, std::span<const float> a, core::Rng&, std::span<float> obs,
                  std::span<float> costs, envs::Info*) const override {
    obs[0] = 11, obs[1] = 12, obs[2] = 1;
    costs[0] = a[0];
    envs::Step s;
    s.reward = -a[0];
    return s;
  }

 private:
  envs::EnvSpec spec_;
};

}  // namespace

TEST_SUITE("exp_eval_layout_env") {
  TEST_CASE("match_layout: equal, added channels, outages off, and refusals naming the fields") {
    const auto plain = layout({{"load", 2}, {"time", 1}}, {"power_balance"});
    const auto outages = layout({{"load", 2}, {"branch_status", 3}, {"time", 1}},
                                {"power_balance", "unserved_load"});
    auto m = exp::match_layout(plain, plain, true);
    CHECK(m.refusal.empty());
    CHECK_FALSE(m.adapt);
    // Outages added by an override or an n1 split, status not observed: a channel more, reported.
    m = exp::match_layout(
        plain, layout({{"load", 2}, {"time", 1}}, {"power_balance", "unserved_load"}), false);
    CHECK(m.refusal.empty());
    CHECK_FALSE(m.adapt);
    // Outages switched off for a checkpoint that saw the status: adapted, unless hidden.
    m = exp::match_layout(outages, plain, true);
    CHECK(m.refusal.empty());
    CHECK(m.adapt);
    m = exp::match_layout(outages, plain, false);
    CHECK(m.refusal ==
          "an observation of 3 values instead of the checkpoint's 6: it lacks branch_status [3], "
          "which the checkpoint's policy was trained with (outage_status_obs = false hides the "
          "outage status)");
    // Status shown to a checkpoint that never saw any (outage_status_obs = true asked for it).
    m = exp::match_layout(plain, outages, true);
    CHECK(m.blind.empty());
    CHECK(m.refusal ==
          "an observation of 6 values instead of the checkpoint's 3: it adds branch_status [3], "
          "which the checkpoint's policy was trained without");
    // Guards issue 36 (a third user trial): a checkpoint trained with gen outages (gen_status)
    // evaluated with branch outages, status observed, was refused ("it adds branch_status [3]
    // ..., and it lacks gen_status [2]"). It observed the status of gens, so it acts blind to
    // branches (dropped) and sees its gens in service (filled).
    const auto gen_out = layout({{"load", 2}, {"gen_status", 2}, {"time", 1}}, {"power_balance"});
    m = exp::match_layout(gen_out, outages, true);
    CHECK(m.refusal.empty());
    CHECK(m.adapt);
    CHECK(m.blind == std::vector<std::string>{"branch_status [3]"});
    // Trained with branch outages, evaluated with branch and gen outages (the n1_gen split of a
    // spec with branch outages): blind to the gens.
    const auto both = layout({{"load", 2}, {"branch_status", 3}, {"gen_status", 2}, {"time", 1}},
                             {"power_balance", "unserved_load"});
    m = exp::match_layout(outages, both, true);
    CHECK(m.refusal.empty());
    CHECK(m.adapt);
    CHECK(m.blind == std::vector<std::string>{"gen_status [2]"});
    // Not when the status is hidden from the eval env (nothing to drop then) or asked for.
    m = exp::match_layout(outages, both, false);
    CHECK(has(m.refusal,
              "it adds gen_status [2], which the checkpoint's policy was trained "
              "without"));
    CHECK_FALSE(m.adapt);
    // A forecast the checkpoint lacks, and a missing non-status field: never adapted.
    m = exp::match_layout(plain, layout({{"load", 2}, {"time", 1}, {"load_forecast", 4}}, {}),
                          true);
    CHECK(has(m.refusal, "it adds load_forecast [4]"));
    m = exp::match_layout(plain, layout({{"load", 2}}, {"power_balance"}), true);
    CHECK(has(m.refusal, "it lacks time [1]"));
    CHECK_FALSE(m.adapt);
    // A cost channel of the checkpoint that is not an outage channel.
    m = exp::match_layout(plain, layout({{"load", 2}, {"time", 1}}, {"other"}), true);
    CHECK(m.refusal == "no cost channel 'power_balance', which the checkpoint's env has");
    // Same fields in another order; another action.
    m = exp::match_layout(plain, layout({{"time", 1}, {"load", 2}}, {"power_balance"}), true);
    CHECK(has(m.refusal, "(the same fields, in another order)"));
    auto two = plain;
    two.act_dim = 2;
    m = exp::match_layout(plain, two, true);
    CHECK(has(m.refusal, "an action of 2 values instead of the checkpoint's 1"));
  }

  TEST_CASE("EvalLayoutEnv: the checkpoint's layout, status fields 1, outage channels 0") {
    const auto trained = layout({{"load", 2}, {"branch_status", 3}, {"time", 1}},
                                {"power_balance", "unserved_load"});
    const exp::EvalLayoutEnv env(std::make_shared<const PlainEnv>(), trained);
    CHECK(env.spec().obs_dim == 6);
    CHECK(env.spec().obs_feature_names() == trained.obs_feature_names());
    CHECK(env.spec().cost_names == std::vector<std::string>{"power_balance", "unserved_load"});
    auto st = env.make_state();
    core::Rng rng(1, 0);
    std::vector<float> obs(6, -5), costs(2, -5), act = {0.5f};
    env.reset(*st, rng, obs);
    CHECK(obs == std::vector<float>{1, 2, 1, 1, 1, 0});
    const envs::Step s = env.step(*st, act, rng, obs, costs, nullptr);
    CHECK(s.reward == -0.5f);
    CHECK(obs == std::vector<float>{11, 12, 1, 1, 1, 1});
    CHECK(costs == std::vector<float>{0.5f, 0.0f});
    // Guards issue 36: the traces lost the status vectors the observation keeps. They follow the
    // checkpoint's order, its status vectors 1, the env's others after them.
    auto traced = trained;
    traced.trace_vectors = {{"branch_status", 3}, {"flow", 2}, {"gen_status", 1}, {"angle", 4}};
    const exp::EvalLayoutEnv tenv(std::make_shared<const PlainEnv>(), traced);
    std::vector<std::string> names;
    for (const auto& v : tenv.spec().trace_vectors)
      names.push_back(v.name + "[" + std::to_string(v.size) + "]");
    CHECK(names == std::vector<std::string>{"branch_status[3]", "flow[2]", "gen_status[1]"});
    auto ts = tenv.make_state();
    std::vector<float> trace(6, -5);
    tenv.reset(*ts, rng, obs);
    tenv.write_trace(*ts, trace);
    CHECK(trace == std::vector<float>{1, 1, 1, 7, 8, 1});
    // Without status vectors in the checkpoint, the env's own traces as they are.
    CHECK(env.spec().trace_vectors.size() == 1);
    std::vector<float> own(2, -5);
    env.write_trace(*st, own);
    CHECK(own == std::vector<float>{7, 8});
    // A non-status element the env lacks cannot be filled.
    CHECK_THROWS_AS(exp::EvalLayoutEnv(std::make_shared<const PlainEnv>(),
                                       layout({{"load", 2}, {"wind", 1}}, {"power_balance"})),
                    core::ConfigError);
  }
}
