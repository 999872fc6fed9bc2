// Registers unit_commitment: built through its task preset (`[env] id` alone selects tso).
#include "powerzoo/envs/registry.hpp"

namespace pz::envs {
namespace {

EnvEntry unit_commitment_entry() {
  EnvEntry e;
  e.id = "unit_commitment";
  e.description =
      "DC unit commitment (task tso): the agent commits units and biases an exact DC-OPF "
      "dispatch; costs thermal_overload, reserve_shortfall, min_updown";
  e.default_task = "tso";
  return e;
}

const Registrar kRegistrar{unit_commitment_entry()};

}  // namespace
}  // namespace pz::envs
