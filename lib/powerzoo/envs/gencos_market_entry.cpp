// Registers gencos_market: built through its task preset (`[env] id` alone selects gencos).
#include "powerzoo/envs/registry.hpp"

namespace pz::envs {
namespace {

EnvEntry gencos_market_entry() {
  EnvEntry e;
  e.id = "gencos_market";
  e.description =
      "GenCos market (task gencos): one bidding agent per generator offers a K-segment markup "
      "curve, cleared by the exact offer-based SCED; profit rewards; cost thermal_overload";
  e.default_task = "gencos";
  return e;
}

const Registrar kRegistrar{gencos_market_entry()};

}  // namespace
}  // namespace pz::envs
