// envs/env: feature names of the observation and action vectors (run.h5 obs_names, action_names).
#include <doctest/doctest.h>

#include "powerzoo/envs/env.hpp"

using namespace pz;

TEST_SUITE("envs_env") {
  TEST_CASE("observation names: field, field[j] inside a block, obs[i] where no field covers") {
    envs::EnvSpec s;
    s.obs_dim = 4;
    s.act_dim = 3;
    s.obs_fields = {{"load_mw", {0, 2}}, {"hour", {2, 1}}};
    CHECK(s.obs_feature_names() ==
          std::vector<std::string>{"load_mw[0]", "load_mw[1]", "hour", "obs[3]"});
    CHECK(s.action_feature_names() == std::vector<std::string>{"a[0]", "a[1]", "a[2]"});
  }

  TEST_CASE("action names: <agent>[j] over each agent's block") {
    envs::EnvSpec s;
    s.obs_dim = 2;
    s.act_dim = 3;
    s.agents = {{"battery_0", "battery", {0, 2}, {0, 2}}, {"pv_0", "pv", {0, 2}, {2, 1}}};
    CHECK(s.action_feature_names() ==
          std::vector<std::string>{"battery_0[0]", "battery_0[1]", "pv_0[0]"});
  }
}
