// exp/train/validate: `keys` lists exactly the keys the reader accepts (every env and task), each
// is accepted with its default, buffer estimates. (docs/spec-reference.md: test_cli.)
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/train/validate.hpp"
#include "powerzoo/io/toml_schema.hpp"
#include "powerzoo/rl/learner_registry.hpp"

using namespace pz;

namespace {

// "sec.key" of every key line of key_reference ("  learner.total_steps  (integer) ...").
std::set<std::string> listed_keys(const std::string& text) {
  std::set<std::string> out;
  static const std::regex line(R"(^  (\S+)  \()");
  std::istringstream in(text);
  std::string l;
  std::smatch m;
  while (std::getline(in, l))
    if (std::regex_search(l, m, line)) out.insert(m[1]);
  return out;
}

// "sec.key" of every `key = value` line of a resolved spec.
std::set<std::string> resolved_keys(const std::string& toml) {
  std::set<std::string> out;
  std::istringstream in(toml);
  std::string l, sec;
  while (std::getline(in, l)) {
    if (!l.empty() && l.front() == '[')
      sec = l.substr(1, l.size() - 2);
    else if (const auto eq = l.find(" = "); eq != std::string::npos)
      out.insert(sec + "." + l.substr(0, eq));
  }
  return out;
}

}  // namespace

TEST_SUITE("exp_validate") {
  TEST_CASE("keys lists exactly the keys of the resolved spec, for every env and task") {
    int n = 0;
    for (const auto& list : {envs::registered_envs(), envs::registered_tasks()})
      for (const auto* e : list) {
        CAPTURE(e->name());
        const std::string text =
            std::string("[env]\n") + (e->is_task() ? "task" : "id") + " = \"" + e->name() + "\"\n";
        const exp::Spec spec = exp::parse_spec(text, "minimal.toml");
        // keys lists every learner section; the resolved spec has the default learner's.
        auto listed = listed_keys(exp::key_reference(e->name(), "", false));
        const auto& own = rl::learner_entry(spec.learner.algo).sections;
        for (const rl::LearnerSection* ls : rl::registered_learner_sections())
          if (std::find(own.begin(), own.end(), ls->name) == own.end())
            for (const auto& d : ls->keys) CHECK(listed.erase(ls->name + "." + d.key) == 1);
        // and the resolved spec leaves out keys without effect in this configuration.
        const auto resolved = resolved_keys(exp::to_toml(spec));
        for (const auto& sec : exp::spec_schema(e->id))
          for (const auto& d : sec.keys)
            if (!exp::no_effect_reason(spec, sec.name, d.key).empty())
              CHECK(listed.erase(sec.name + "." + d.key) == 1);
        CHECK(listed == resolved);
        CHECK(listed.count("learner.total_steps") == 1);
        ++n;
      }
    CHECK(n >= 10);  // 5 envs and 5 tasks at least
  }

  TEST_CASE("every listed key is accepted by the reader with its listed default") {
    const std::string ref = exp::key_reference("ders", "", false);
    static const std::regex line(R"(^  (\S+)  \([^)]*\)  default (.*?)(  expected .*)?$)");
    std::istringstream in(ref);
    std::string l;
    std::smatch m;
    int n = 0;
    std::vector<std::string> refused;
    while (std::getline(in, l)) {
      if (!std::regex_match(l, m, line)) continue;
      CAPTURE(l);
      const std::string key = m[1], def = m[2];
      if (key == "env.task" || key == "env.id") continue;  // they select the schema itself
      // A key of a learner section: with a learner that reads it (and what that learner needs).
      std::vector<std::string> ov = {key + "=" + def};
      const std::string sec = key.substr(0, key.find('.'));
      const auto& own = rl::learner_entry(rl::default_learner()).sections;
      if (rl::find_learner_section(sec) && std::find(own.begin(), own.end(), sec) == own.end()) {
        for (const rl::LearnerEntry* le : rl::registered_learners())
          if (std::find(le->sections.begin(), le->sections.end(), sec) != le->sections.end()) {
            ov.push_back("learner.algo=" + le->name);
            if (le->uses_constraints)
              ov.insert(ov.end(),
                        {"safety.constraints=[\"voltage_violation\"]", "safety.thresholds=[1.0]"});
            break;
          }
      }
      // A key without effect in this configuration is refused even at its default; the spec
      // without it says so too.
      try {
        exp::parse_spec("[env]\ntask = \"ders\"\n", "minimal.toml", ov);
      } catch (const core::ConfigError& err) {
        CHECK(std::string(err.what()).find("has no effect here") != std::string::npos);
        ov.erase(ov.begin());
        const auto spec = exp::parse_spec("[env]\ntask = \"ders\"\n", "minimal.toml", ov);
        CHECK_FALSE(exp::no_effect_reason(spec, sec, key.substr(sec.size() + 1)).empty());
        refused.push_back(key);
      }
      ++n;
    }
    CHECK(n > 70);
    // With the default learner (ppo) and dual rule (log_ascent); the random and N-1 outage keys
    // without a rate or an N-1 kind, the forecast noise without a forecast.
    CHECK(refused == std::vector<std::string>{"env.outage_duration_steps", "env.outage_elements",
                                              "env.outage_n1_steps", "env.forecast_noise",
                                              "ippo.cost_critic", "lagrangian.pid_kp",
                                              "lagrangian.pid_ki", "lagrangian.pid_kd",
                                              "safety.thresholds", "safety.cost_scale"});
  }

  TEST_CASE("an unknown section is named with a did-you-mean") {
    CHECK_THROWS_WITH_AS(exp::key_reference("", "pp", false),
                         "expected a spec section, found 'pp' (did you mean 'ppo'?)",
                         core::ConfigError);
  }

  TEST_CASE("buffer estimate: rollout of n_envs x T transitions, SAC's replay ring") {
    // case5 trans_grid: obs 16, act 5, 4 cost channels. Per transition 16 + 5 floats and
    // 6 + 4 x 4 = 22 per agent (one agent): 43 floats = 172 bytes.
    const exp::Spec ppo = exp::parse_spec(
        "[env]\ncase = \"case5\"\n[vec]\nn_envs = 8\n[learner]\nrollout_length = 20\n", "m.toml");
    const auto m = exp::estimate_memory(ppo);
    CHECK(m.rollout_bytes == doctest::Approx(8 * 20 * 172));
    CHECK(m.replay_bytes == 0);
    // SAC: 2 x 16 + 5 + 2 + 4 = 43 floats per stored transition.
    const exp::Spec sac = exp::parse_spec(
        "[env]\ncase = \"case5\"\n[vec]\nn_envs = 8\n[learner]\nalgo = \"sac\"\n[sac]\nbuffer_size "
        "= "
        "1000\n",
        "m.toml");
    CHECK(exp::estimate_memory(sac).replay_bytes == doctest::Approx(4.0 * 1000 * 43));
  }
}
