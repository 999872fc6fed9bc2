// Case: a MATPOWER case (format version 2) held in plain arrays, plus the parser for .m files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pz::grid {

/// One row of mpc.bus (MATPOWER CASEFORMAT). Powers in MW/MVAr, voltages in p.u., angles in deg.
struct Bus {
  int id = 0;    ///< external BUS_I number (need not be contiguous)
  int type = 1;  ///< 1 PQ, 2 PV, 3 reference, 4 isolated
  double pd_mw = 0, qd_mvar = 0, gs_mw = 0, bs_mvar = 0;
  int area = 1;
  double vm_pu = 1, va_deg = 0, base_kv = 0;
  int zone = 1;
  double vmax_pu = 1.1, vmin_pu = 0.9;
};

/// One row of mpc.gen. Powers in MW/MVAr.
struct Gen {
  int bus = 0;  ///< external bus id
  double pg_mw = 0, qg_mvar = 0, qmax_mvar = 0, qmin_mvar = 0, vg_pu = 1, mbase_mva = 100;
  int status = 1;
  double pmax_mw = 0, pmin_mw = 0;
};

/// One row of mpc.branch. r, x, b in p.u. on base_mva; ratings in MVA (0 = unlimited).
struct Branch {
  int from = 0, to = 0;  ///< external bus ids
  double r_pu = 0, x_pu = 0, b_pu = 0;
  double rate_a_mva = 0, rate_b_mva = 0, rate_c_mva = 0;
  double tap = 0;  ///< off-nominal ratio as in the file; 0 means 1 (use effective_tap())
  double shift_deg = 0;
  int status = 1;
  double angmin_deg = -360, angmax_deg = 360;
  double effective_tap() const { return tap == 0.0 ? 1.0 : tap; }
};

/// One row of mpc.gencost. model 1 = piecewise linear (coeffs = x1,y1,x2,y2,... in MW, $/h),
/// model 2 = polynomial (coeffs highest order first, total cost in $/h).
struct GenCost {
  int model = 2;
  double startup = 0, shutdown = 0;
  std::vector<double> coeffs;
  int source_line = 0;  ///< line of its mpc.gencost row in Case::source_path (0 if built in code)
};

/// A MATPOWER case. Index vectors (…_idx) are 0-based positions in `bus`.
struct Case {
  std::string name;         ///< e.g. "case5"
  std::string source_path;  ///< file it was read from ("" if built in code)
  double base_mva = 100;
  std::vector<Bus> bus;
  std::vector<Gen> gen;
  std::vector<Branch> branch;
  std::vector<GenCost> gencost;  ///< one per gen (extra reactive-cost rows are ignored)

  // Derived by finalize(); call it after editing bus ids or connectivity.
  std::vector<int> gen_bus_idx;      ///< [n_gen]
  std::vector<int> branch_from_idx;  ///< [n_branch]
  std::vector<int> branch_to_idx;    ///< [n_branch]
  int ref_bus_idx = 0;               ///< first bus of type 3 (first bus if none)

  int n_bus() const { return static_cast<int>(bus.size()); }
  int n_gen() const { return static_cast<int>(gen.size()); }
  int n_branch() const { return static_cast<int>(branch.size()); }
  /// 0-based position of external bus id; throws ConfigError if absent.
  int bus_index(int id) const;
  /// Rebuilds the derived index vectors; throws ConfigError on dangling bus references.
  void finalize();
};

/// Parses MATPOWER case text. `file` names the source in error messages.
/// Throws core::ConfigError naming file and line for malformed or truncated input.
Case parse_case(std::string_view text, const std::string& file);

/// Reads and parses a .m file. Throws core::ConfigError if missing or malformed.
Case load_case(const std::string& path);

/// Maps a bundled case name ("case5") to data/cases/case5.m under the data directory; a value
/// containing '/' or ending in ".m" is returned unchanged (a user path). Throws ConfigError if the
/// file does not exist (message lists the bundled names).
std::string resolve_case_path(const std::string& name_or_path);

/// Bundled case names found in the data directory, sorted.
std::vector<std::string> bundled_cases();

/// Total generation cost of one unit in $/h at output pg_mw (polynomial or piecewise linear,
/// MATPOWER totcost semantics; piecewise-linear extrapolates its end segments).
double gen_cost(const GenCost& cost, double pg_mw);

}  // namespace pz::grid
