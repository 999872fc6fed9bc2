// Learner contexts built in code by the rl tests: change a learner section through its typed
// config (the sections hold the values; rl::ppo_config / ippo_config read them back).
#pragma once

#include <functional>

#include "powerzoo/rl/ippo/ippo.hpp"
#include "powerzoo/rl/ppo/ppo_entry.hpp"

namespace pz::test {

inline void ppo_set(rl::LearnerContext& ctx, const std::function<void(rl::PpoConfig&)>& f) {
  rl::PpoConfig c = rl::ppo_config(ctx);
  f(c);
  rl::set_ppo_sections(ctx, c);
}

inline void ippo_set(rl::LearnerContext& ctx, const std::function<void(rl::IppoConfig&)>& f) {
  rl::IppoConfig c = rl::ippo_config(ctx);
  f(c);
  rl::set_ippo_section(ctx, c);
}

}  // namespace pz::test
