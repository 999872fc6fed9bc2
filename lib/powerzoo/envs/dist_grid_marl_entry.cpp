// Registers dist_grid_marl: built through its task preset (`[env] id` alone selects ders).
#include "powerzoo/envs/registry.hpp"

namespace pz::envs {
namespace {

EnvEntry dist_grid_marl_entry() {
  EnvEntry e;
  e.id = "dist_grid_marl";
  e.description =
      "multi-agent view of a DistGrid (task ders): one agent per battery, PV inverter or "
      "flexible load, local observations, shared team reward; costs voltage_violation, "
      "thermal_overload, resource";
  e.default_task = "ders";
  return e;
}

const Registrar kRegistrar{dist_grid_marl_entry()};

}  // namespace
}  // namespace pz::envs
