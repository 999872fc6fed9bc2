// Formatting of AC power-flow and AC-OPF results for `powerzoo grid acpf|acopf` (JSON with
// MATPOWER field names, or aligned text).
#pragma once

#include <string>

#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::grid {

/// Formats an AcPowerFlow result of case `c`. json = true: one JSON object with `case`,
/// `success`, `status`, `iterations`, `max_mismatch_pu`, `bus_id`, `bus_vm_pu`, `bus_va_deg`
/// (deg), `branch_from`, `branch_to`, `branch_pf_mw`, `branch_qf_mvar`, `branch_pt_mw`,
/// `branch_qt_mvar` (MW/MVAr), `gen_bus`, `gen_pg_mw`, `gen_qg_mvar`, `total_losses_mw`,
/// `n_islands`, `n_dead_buses`, `q_limited_gens` (1-based gen rows); doubles round-trip exact.
/// json = false: summary and bus, branch and generator tables. Ends with a newline.
std::string acpf_report(const Case& c, const AcPfResult& r, bool json);

struct AcOpfResult;

/// Formats an AcOpf result: json fields `objective` ($/h), `success`, `status`, `iterations`,
/// `bus_vm_pu`, `bus_va_deg`, `bus_lam_p` ($/MWh), `bus_lam_q` ($/MVArh), `gen_pg_mw`,
/// `gen_qg_mvar`, `branch_pf_mw`, `branch_qf_mvar`, `branch_pt_mw`, `branch_qt_mvar`,
/// `branch_mu_sf`, `branch_mu_st` ($/MVAh), `total_losses_mw`. Ends with a newline.
std::string acopf_report(const Case& c, const AcOpfResult& r, bool json);

}  // namespace pz::grid
