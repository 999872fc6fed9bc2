// Registers dist_grid: built through its task preset (`[env] id = "dist_grid"` selects dso).
#include "powerzoo/envs/registry.hpp"

namespace pz::envs {
namespace {

EnvEntry dist_grid_entry() {
  EnvEntry e;
  e.id = "dist_grid";
  e.description =
      "radial distribution feeder (exact DistFlow) with FlexLoad demand response; the dso task "
      "preset: case33bw, six flexible loads, AEMO feeder shapes; costs voltage_violation, "
      "thermal_overload, resource";
  e.default_task = "dso";
  return e;
}

const Registrar kRegistrar{dist_grid_entry()};

}  // namespace
}  // namespace pz::envs
