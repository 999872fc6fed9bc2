// Registers datacenter_microgrid: built through its task preset (`[env] id` alone selects
// dc_microgrid).
#include "powerzoo/envs/registry.hpp"

namespace pz::envs {
namespace {

EnvEntry dc_microgrid_entry() {
  EnvEntry e;
  e.id = "datacenter_microgrid";
  e.description =
      "AI data centre behind the meter (job scheduling, cooling) with PV, battery, diesel and a "
      "capped grid import (task dc_microgrid); costs sla, overtemp, power_deficit";
  e.default_task = "dc_microgrid";
  return e;
}

const Registrar kRegistrar{dc_microgrid_entry()};

}  // namespace
}  // namespace pz::envs
