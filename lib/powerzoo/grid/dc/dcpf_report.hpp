// Formatting of DC power-flow and DC-OPF results for `powerzoo grid` (JSON or aligned text).
#pragma once

#include <string>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dc.hpp"

namespace pz::grid {

/// Formats `r` (a run_dcpf result of case `c`).
/// json = true: one JSON object with MATPOWER-named fields `case`, `success`, `bus_id`,
/// `bus_va_deg` (deg), `branch_from`, `branch_to` (external bus ids), `branch_pf_mw` (MW),
/// `gen_bus` (external bus id), `gen_pg_mw` (MW); doubles are printed round-trip exact.
/// json = false: readable aligned text (summary line, bus, branch and generator tables).
/// The returned text ends with a newline.
std::string dcpf_report(const Case& c, const DcPfResult& r, bool json);

struct DcOpfResult;

/// Formats a DcOpf result of case `c` for `powerzoo grid dcopf`. json = true: MATPOWER-named
/// fields `objective` ($/h), `gen_pg_mw`, `bus_lam_p` ($/MWh), `bus_va_deg`, `branch_pf_mw`,
/// `branch_mu_sf`, `branch_mu_st` ($/MWh), `binding_branches` (1-based rows), `success`.
/// json = false: aligned text tables. Ends with a newline.
std::string dcopf_report(const Case& c, const DcOpfResult& r, bool json);

}  // namespace pz::grid
