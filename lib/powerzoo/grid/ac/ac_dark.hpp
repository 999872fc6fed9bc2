// The AC solvers' results of a network with nothing energized: no generator in service anywhere,
// so grid::energize leaves every bus de-energized (type 4), as MATPOWER's ext2int would drop
// them all. There is nothing to solve (AcPowerFlow and AcOpf need a reference bus); the outcome
// is a network that carries nothing and serves no load, which the envs and `powerzoo grid`
// report as such instead of an error (docs/outages.md).
#pragma once

#include "powerzoo/grid/ac/acopf.hpp"
#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// True if `energized` (a case as grid::energize returns it) has no energized bus (no REF bus).
bool nothing_energized(const Case& energized);

/// The power flow of a network with nothing energized: kConverged, success, 0 iterations; every
/// vector ([n_bus], [n_branch], [n_gen] of `c`) 0 (Vm = Va = 0 on de-energized buses, as the
/// envs and `grid acpf` report them), no island, no loss.
AcPfResult dark_acpf(const Case& c);

/// The AC-OPF of a network with nothing energized: kOptimal, objective 0 $/h, every vector 0.
AcOpfResult dark_acopf(const Case& c);

}  // namespace pz::grid
