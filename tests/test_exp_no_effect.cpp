// exp/spec: keys without effect in the chosen configuration (ParamDef::inapplicable and
// inapplicable_in_spec) are refused naming the key and why, accepted where they apply, left out
// of the resolved spec, and dropped with a message in a sweep trial (docs/spec-reference.md).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/spec/spec.hpp"

using pz::core::ConfigError;
using pz::exp::parse_spec;

namespace {

// The message of parse_spec's ConfigError, or "" when the spec is accepted.
std::string refusal(const std::string& toml, const std::vector<std::string>& ov = {}) {
  try {
    parse_spec(toml, "s.toml", ov);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* kLagrangian =
    "[learner]\nalgo = \"ppo_lagrangian\"\n[safety]\nconstraints = [\"power_balance\"]\n"
    "thresholds = [1.0]\n";
const char* kGencosIppo =
    "[env]\ntask = \"gencos\"\n[vec]\nn_envs = 8\n[learner]\nalgo = \"ippo\"\n";

}  // namespace

TEST_SUITE("exp_no_effect") {
  TEST_CASE("[lagrangian] lambda_lr only with dual = log_ascent, pid gains only with pid") {
    const std::string pid =
        refusal(kLagrangian, {"lagrangian.dual=pid", "lagrangian.lambda_lr=0.1"});
    CHECK(has(pid, "override 'lagrangian.lambda_lr=0.1'"));
    CHECK(has(pid,
              "[lagrangian] lambda_lr: has no effect here: read by the log_ascent dual rule, "
              "found dual = \"pid\" (remove the key)"));
    for (const char* k : {"pid_kp", "pid_ki", "pid_kd"}) {
      CAPTURE(k);
      const std::string e = refusal(kLagrangian, {std::string("lagrangian.") + k + "=0.5"});
      CHECK(has(e, std::string("[lagrangian] ") + k +
                       ": has no effect here: read by the pid "
                       "dual rule, found dual = \"log_ascent\""));
      CHECK(refusal(kLagrangian, {"lagrangian.dual=pid", std::string("lagrangian.") + k + "=0.5"})
                .empty());
    }
    CHECK(refusal(kLagrangian, {"lagrangian.lambda_lr=0.1"}).empty());
    // The file's line is named for a key set in the file.
    const std::string in_file =
        refusal(std::string(kLagrangian) + "[lagrangian]\ndual = \"pid\"\nlambda_lr = 0.1\n");
    CHECK(has(in_file, "s.toml:8: [lagrangian] lambda_lr: has no effect here"));
  }

  TEST_CASE("[ppo] n_minibatches and normalize_advantages not with [ippo] full_batch = true") {
    const std::string mb = refusal(kGencosIppo, {"ppo.n_minibatches=2"});
    CHECK(has(mb,
              "[ppo] n_minibatches: has no effect here: each epoch is one gradient step on "
              "the whole batch, found [ippo] full_batch = true"));
    const std::string na = refusal(kGencosIppo, {"ppo.normalize_advantages=false"});
    CHECK(has(na, "[ppo] normalize_advantages: has no effect here"));
    CHECK(has(na, "found [ippo] full_batch = true"));
    CHECK(refusal(kGencosIppo, {"ippo.full_batch=false", "ppo.n_minibatches=2",
                                "ppo.normalize_advantages=false"})
              .empty());
    CHECK(refusal("[ppo]\nn_minibatches = 2\nnormalize_advantages = false\n").empty());
  }

  TEST_CASE("ippo with full_batch accepts any n_envs (n_minibatches is not read)") {
    // Regression: the default n_minibatches = 4 had to divide n_envs although full_batch never
    // splits the batch, and a spec could not remove it (setting it is refused).
    CHECK(refusal(kGencosIppo, {"vec.n_envs=6"}).empty());
    CHECK(has(refusal(kGencosIppo, {"vec.n_envs=6", "ippo.full_batch=false"}),
              "[ppo] n_minibatches = 4 must divide [vec] n_envs = 6"));
  }

  TEST_CASE("[safety] thresholds with constrained learners, cost_scale with cost critics only") {
    const std::string ppo =
        refusal("[safety]\nconstraints = [\"power_balance\"]\nthresholds = [1.0]\n");
    CHECK(has(ppo,
              "s.toml:3: [safety] thresholds: has no effect here: read by ippo_lagrangian, "
              "ppo_lagrangian, saute_ppo, found [learner] algo = \"ppo\""));
    const std::string sac = refusal("[learner]\nalgo = \"sac\"\n[safety]\ncost_scale = 10.0\n");
    CHECK(has(sac,
              "[safety] cost_scale: has no effect here: read by ippo_lagrangian, "
              "ppo_lagrangian, found [learner] algo = \"sac\""));
    // Sauté divides nothing (docs/deviations.md), but its budgets are the thresholds.
    const std::string saute =
        "[learner]\nalgo = \"saute_ppo\"\n[safety]\nconstraints = [\"power_balance\"]\n"
        "thresholds = [1.0]\n";
    CHECK(refusal(saute).empty());
    CHECK(has(refusal(saute, {"safety.cost_scale=10.0"}),
              "[safety] cost_scale: has no effect here: read by ippo_lagrangian, ppo_lagrangian, "
              "found [learner] algo = \"saute_ppo\""));
    CHECK(refusal(kLagrangian, {"safety.cost_scale=10.0"}).empty());
  }

  TEST_CASE("trans_grid dispatch has no effect when the AC-OPF dispatches") {
    for (const char* d : {"agent", "dcopf"}) {
      CAPTURE(d);
      const std::string e =
          refusal("[env]\nsolver = \"acopf\"\n", {std::string("env.dispatch=") + d});
      CHECK(has(e,
                "[env] dispatch: has no effect here: the AC-OPF dispatches, found solver = "
                "\"acopf\" (the action is ignored)"));
    }
    CHECK(refusal("[env]\nsolver = \"acpf\"\ndispatch = \"dcopf\"\n").empty());
  }

  TEST_CASE("trans_grid outage keys: duration and kinds only with a rate, in every mode") {
    CHECK(has(refusal("", {"env.outage_duration_steps=4"}),
              "[env] outage_duration_steps: has no effect here: only random outages read it, "
              "found outage_rate = 0"));
    CHECK(has(refusal("", {"env.outage_elements=gen"}), "[env] outage_elements: has no effect"));
    CHECK(refusal("", {"env.outage_rate=0.01", "env.outage_duration_steps=4",
                       "env.outage_elements=gen"})
              .empty());
    // The OPF and AC modes solve the network without the out elements (they used to refuse them).
    CHECK(refusal("", {"env.solver=acpf", "env.outage_rate=0.01"}).empty());
    CHECK(refusal("", {"env.solver=acopf", "env.outage_n1=branch"}).empty());
    CHECK(refusal("", {"env.dispatch=dcopf", "env.outage_rate=0.01"}).empty());
    CHECK(refusal("", {"env.report_opf_gap=true", "env.outage_rate=0.01"}).empty());
  }

  TEST_CASE("ders device keys only with their device type in devices") {
    const std::string base = "[env]\ntask = \"ders\"\ndevices = [\"renewable\", \"flexload\"]\n";
    for (const char* k : {"battery_buses = [9]", "battery_p_mw = 0.2", "battery_soc_init = 0.4"}) {
      CAPTURE(k);
      const std::string key = std::string(k).substr(0, std::string(k).find(' '));
      const std::string e = refusal(base + k + "\n");
      CHECK(has(e, "s.toml:4: [env] " + key +
                       ": has no effect here: the battery devices' key, "
                       "found devices = [\"renewable\", \"flexload\"]"));
    }
    CHECK(has(
        refusal("[env]\ntask = \"ders\"\ndevices = [\"battery\"]\nflexload_shift_horizon = 2\n"),
        "[env] flexload_shift_horizon: has no effect here: the flexload devices' key"));
    CHECK(has(refusal("[env]\ntask = \"ders\"\ndevices = [\"battery\"]\nrenewable_cap_mw = 0.1\n"),
              "[env] renewable_cap_mw: has no effect here: the renewable devices' key"));
    CHECK(refusal(base + "renewable_cap_mw = 0.1\nflexload_shift_horizon = 2\n").empty());
  }

  TEST_CASE("[output] trajectories only with evaluations (both kinds are written there)") {
    const std::string e =
        refusal("[eval]\nevery_steps = 0\n[output]\ntrajectories = \"train-sample\"\n");
    CHECK(has(e,
              "s.toml:4: [output] trajectories: has no effect here: trajectories are written "
              "at evaluations, found [eval] every_steps = 0"));
    CHECK(refusal("[output]\ntrajectories = \"train-sample\"\n").empty());
  }

  TEST_CASE("a spec that keeps trajectories runs without evaluations with trajectories=none") {
    const std::string spec = "[output]\ntrajectories = \"eval\"\n";
    const std::string off = refusal(spec, {"eval.every_steps=0"});
    CHECK(has(off, "command-line override `eval.every_steps=0`: leaves [output] trajectories"));
    CHECK(has(off, "(trajectories = \"none\" says so)"));
    CHECK(refusal(spec, {"eval.every_steps=0", "output.trajectories=none"}).empty());
    CHECK(refusal("[eval]\nevery_steps = 0\n[output]\ntrajectories = \"none\"\n").empty());
    // Another kind still has no effect there, and is the override's own doing.
    CHECK(has(refusal(spec, {"eval.every_steps=0", "output.trajectories=train-sample"}),
              "command line override 'output.trajectories=train-sample': [output] trajectories: "
              "has no effect here"));
  }

  TEST_CASE("the resolved spec leaves keys without effect out and reads back") {
    const auto s = parse_spec("[safety]\nconstraints = [\"power_balance\"]\n", "s.toml");
    CHECK(pz::exp::no_effect_reason(s, "safety", "thresholds") ==
          "read by ippo_lagrangian, ppo_lagrangian, saute_ppo, found [learner] algo = \"ppo\"");
    CHECK(pz::exp::no_effect_reason(s, "safety", "constraints").empty());
    const std::string toml = pz::exp::to_toml(s);
    CHECK_FALSE(has(toml, "thresholds"));
    CHECK_FALSE(has(toml, "cost_scale"));
    CHECK_FALSE(has(toml, "pid_kp"));  // [lagrangian] is not ppo's section at all
    CHECK(has(toml, "constraints = [\"power_balance\"]"));
    const auto back = parse_spec(toml, "resolved.toml");
    CHECK(pz::exp::to_toml(back) == toml);
    const auto l =
        parse_spec(std::string(kLagrangian) + "[lagrangian]\ndual = \"pid\"\n", "l.toml");
    const std::string lt = pz::exp::to_toml(l);
    CHECK(has(lt, "pid_kp = "));
    CHECK_FALSE(has(lt, "lambda_lr"));
    CHECK(has(lt, "thresholds = [1.0]"));
  }

  TEST_CASE("a sweep trial drops a key without effect with one message, at its default") {
    const auto s = parse_spec("[safety]\nconstraints = [\"power_balance\"]\nthresholds = [3.0]\n",
                              "s.toml", {"lagrangian.lambda_lr=0.2"}, true);
    REQUIRE(s.dropped.size() == 2);
    CHECK(has(s.dropped[0], "[lagrangian] is not read by [learner] algo = \"ppo\""));
    CHECK(s.dropped[1] ==
          "[safety] thresholds has no effect in some trials (read by ippo_lagrangian, "
          "ppo_lagrangian, saute_ppo, found [learner] algo = \"ppo\"); dropped there");
    CHECK(s.safety.thresholds.empty());
    const auto t = parse_spec(std::string(kLagrangian) + "[lagrangian]\ndual = \"pid\"\n", "s.toml",
                              {"lagrangian.lambda_lr=0.2"}, true);
    REQUIRE(t.dropped.size() == 1);
    CHECK(has(t.dropped[0], "[lagrangian] lambda_lr has no effect in some trials"));
    CHECK(t.learner_sections.at("lagrangian").number("lambda_lr") == 0.005);  // the default
  }
}
