// Formatting of a DC power-flow result for `powerzoo grid dcpf` (JSON or aligned text tables).
#pragma once

#include <string>

#include "powerzoo/grid/case.hpp"
#include "powerzoo/grid/dc.hpp"

namespace pz::grid {

/// Formats `r` (a run_dcpf result of case `c`).
/// json = true: one JSON object with MATPOWER-named fields `case`, `success`, `bus_id`,
/// `bus_va_deg` (deg), `branch_from`, `branch_to` (external bus ids), `branch_pf_mw` (MW),
/// `gen_bus` (external bus id), `gen_pg_mw` (MW); doubles are printed round-trip exact.
/// json = false: readable aligned text (summary line, bus, branch and generator tables).
/// The returned text ends with a newline.
std::string dcpf_report(const Case& c, const DcPfResult& r, bool json);

}  // namespace pz::grid
