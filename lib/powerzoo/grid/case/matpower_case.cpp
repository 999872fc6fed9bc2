// MATPOWER matrices to Case: bus, gen, branch and gencost rows converted and checked (ids,
// bus references, cost models) once every statement of the file has run.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>
#include <unordered_map>

#include "powerzoo/grid/case/matpower_parser_impl.hpp"

namespace pz::grid::detail {
namespace {

using core::ConfigError;

int as_id(double x, const std::string& file, int line, const std::string& what) {
  if (!std::isfinite(x) || x != std::floor(x) || std::fabs(x) > 2e9) {
    std::ostringstream os;
    os << x;
    throw ConfigError(file + ":" + std::to_string(line) + ": expected an integer " + what +
                      ", found " + os.str());
  }
  return static_cast<int>(x);
}

int as_int(double x) { return std::isfinite(x) ? static_cast<int>(std::lround(x)) : 0; }

// Largest magnitude of any case value: no power (MW), impedance (p.u.) or voltage comes near it,
// and "no limit" is written 9999 or Inf in MATPOWER cases.
constexpr double kMaxCaseMagnitude = 1e10;

std::string number_text(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

// MATPOWER column names of the columns a row is read from (idx_bus, idx_gen, idx_brch).
const char* const kBusCols[] = {"BUS_I", "BUS_TYPE", "PD",      "QD",   "GS",   "BS",  "BUS_AREA",
                                "VM",    "VA",       "BASE_KV", "ZONE", "VMAX", "VMIN"};
const char* const kGenCols[] = {"GEN_BUS", "PG",    "QG",         "QMAX", "QMIN",
                                "VG",      "MBASE", "GEN_STATUS", "PMAX", "PMIN"};
const char* const kBranchCols[] = {"F_BUS",     "T_BUS",  "BR_R",   "BR_X", "BR_B",
                                   "RATE_A",    "RATE_B", "RATE_C", "TAP",  "SHIFT",
                                   "BR_STATUS", "ANGMIN", "ANGMAX"};

}  // namespace

void Parser::fail_row(const RawMat& m, size_t k, const std::string& expected,
                      const std::string& found) const {
  if (m.set_by[k] == 0) fail(m.lines[k], expected, found);
  fail(m.set_by[k], expected,
       found + " (set by the statement on this line; the row is at line " +
           std::to_string(m.lines[k]) + ")");
}

/// Every value the case is built from must be a finite number of a magnitude a power system can
/// have (NaN or Inf would silently unlimit a line or corrupt an OPF; 1e20 MW is a typo); QMAX /
/// QMIN may be ±Inf (no reactive limit), as MATPOWER allows. Ranges of single columns: bus type
/// 1-4, branch resistance and tap ratio >= 0 (a negative reactance is a series capacitor and
/// stays legal).
void Parser::check_values(const RawMat& m, const char* matrix, const char* const* names,
                          size_t n_names, size_t k, bool inf_q_ok) const {
  const auto& r = m.rows[k];
  const std::string where = std::string("mpc.") + matrix + " row " + std::to_string(k + 1);
  auto column = [&](size_t j) {
    return " column " + std::to_string(j + 1) + " (" + names[j] + ")";
  };
  for (size_t j = 0; j < std::min(r.size(), n_names); ++j) {
    const bool q_limit = inf_q_ok && (j == 3 || j == 4);
    if (std::isnan(r[j]) || (std::isinf(r[j]) && !q_limit))
      fail_row(m, k, "a finite number in " + where + column(j), number_text(r[j]));
    if (std::isfinite(r[j]) && std::fabs(r[j]) > kMaxCaseMagnitude)
      fail_row(m, k, "a number of magnitude <= 1e+10 in " + where + column(j), number_text(r[j]));
  }
  const std::string name = matrix;
  auto below = [&](size_t j, double lo, const char* expected) {
    if (r[j] < lo)
      fail_row(m, k, std::string(expected) + " in " + where + column(j), number_text(r[j]));
  };
  // MATPOWER bus numbers are positive integers (ext2int maps them to 1..nb).
  if (name == "bus" && r[0] < 1)
    fail_row(m, k, "a positive bus id in " + where + column(0), number_text(r[0]));
  if (name == "bus" && (r[1] != 1 && r[1] != 2 && r[1] != 3 && r[1] != 4))
    fail_row(m, k, "1 (PQ), 2 (PV), 3 (reference) or 4 (isolated) in " + where + column(1),
             number_text(r[1]));
  // Initial voltage magnitudes of connected buses: the AC solvers start from them (0 was
  // "singular", -1 "max_iter", both exit 1).
  if (name == "bus" && r[1] != 4 && !(r[7] > 0))
    fail_row(m, k, "a voltage magnitude VM > 0 (p.u.) in " + where + column(7), number_text(r[7]));
  auto status01 = [&](size_t j) {
    if (r[j] != 0 && r[j] != 1)
      fail_row(m, k, "0 (out of service) or 1 (in service) in " + where + column(j),
               number_text(r[j]));
  };
  if (name == "gen") status01(7);
  if (name == "branch") {
    status01(10);  // -1 was read as out of service; MATPOWER reads any nonzero as in service
    if (r[0] == r[1])
      fail_row(m, k, "a branch between two different buses in " + where,
               "F_BUS = T_BUS = " + number_text(r[0]));
    // 1e-300 overflowed 1/x to Inf in the DC solvers; case141 has 6.4e-7 p.u.
    if (r[3] != 0 && std::fabs(r[3]) < 1e-9)
      fail_row(m, k, "a reactance of 0 or of magnitude >= 1e-9 p.u. in " + where + column(3),
               number_text(r[3]));
    below(2, 0, "a resistance >= 0");
    below(8, 0, "a tap ratio >= 0 (0 = nominal)");
    // Off-nominal ratios are p.u. values near 1; a tiny one (1e-300) overflowed 1/tap² to Inf.
    if (r[8] != 0 && (r[8] < 1e-3 || r[8] > 1e3))
      fail_row(m, k, "a tap ratio of 0 (nominal) or in [0.001, 1000] in " + where + column(8),
               number_text(r[8]));
    if (r.size() >= 13 && r[11] > r[12])
      fail_row(m, k, "ANGMIN <= ANGMAX in " + where,
               "ANGMIN " + number_text(r[11]) + " > ANGMAX " + number_text(r[12]));
  }
  // The AC solvers divide by the voltage setpoint of an in-service gen.
  if (name == "gen" && r[7] > 0 && !(r[5] > 0))
    fail_row(m, k, "a voltage setpoint VG > 0 (p.u.) of an in-service gen in " + where + column(5),
             number_text(r[5]));
  if (name == "gen" && r[9] > r[8])
    fail_row(m, k, "PMIN <= PMAX in " + where,
             "PMIN " + number_text(r[9]) + " > PMAX " + number_text(r[8]));
  // Q limits the other way round made the AC power flow's Q-limit loop switch forever.
  if (name == "gen" && r[4] > r[3])
    fail_row(m, k, "QMIN <= QMAX in " + where,
             "QMIN " + number_text(r[4]) + " > QMAX " + number_text(r[3]));
}

Case Parser::build() {
  const int last_line = toks_.back().line;
  for (const char* f : {"bus", "gen", "branch"}) {
    if (!mats_[f].present) {
      fail(last_line, std::string("an mpc.") + f + " matrix", "end of file without one");
    }
  }
  if (mats_["bus"].rows.empty()) fail(mats_["bus"].open_line, "at least one bus row", "none");
  if (!base_mva_) fail(last_line, "an mpc.baseMVA statement", "end of file without one");
  // 1e300 made every per-unit quantity 0 and 1e-300 every one Inf; cases use 1 to 1000 MVA.
  if (!(*base_mva_ >= 1e-3 && *base_mva_ <= 1e6)) {
    std::ostringstream os;
    os << *base_mva_;
    fail(base_mva_line_, "mpc.baseMVA in [0.001, 1e6] MVA", os.str());
  }
  Case c;
  c.base_mva = *base_mva_;
  c.name = func_name_;
  std::unordered_map<int, int> id_line;  // bus id -> source line of its row
  build_buses(c, id_line);
  build_gens(c, id_line);
  build_branches(c, id_line);
  switch_off_isolated(c);
  const RawMat& cm = mats_["gencost"];
  if (cm.present && !cm.rows.empty()) build_gencost(c, cm);
  c.finalize();
  return c;
}

void Parser::build_buses(Case& c, std::unordered_map<int, int>& id_line) const {
  const RawMat& bm = mats_.at("bus");
  for (size_t k = 0; k < bm.rows.size(); ++k) {
    const auto& r = bm.rows[k];
    const int line = bm.lines[k];
    check_values(bm, "bus", kBusCols, std::size(kBusCols), k, false);
    Bus b;
    b.id = as_id(r[0], file_, line, "bus id");
    if (const auto [it, fresh] = id_line.emplace(b.id, line); !fresh) {
      fail(line, "unique bus ids",
           "bus " + std::to_string(b.id) + " again (first at line " + std::to_string(it->second) +
               ")");
    }
    b.type = as_int(r[1]);
    b.pd_mw = r[2];
    b.qd_mvar = r[3];
    b.gs_mw = r[4];
    b.bs_mvar = r[5];
    b.area = as_int(r[6]);
    b.vm_pu = r[7];
    b.va_deg = r[8];
    b.base_kv = r[9];
    b.zone = as_int(r[10]);
    b.vmax_pu = r[11];
    b.vmin_pu = r[12];
    c.bus.push_back(b);
  }
}

/// An isolated bus (type 4) is out of the network. MATPOWER's ext2int removes it with its gens
/// and branches; we keep the rows (reports keep their row numbers) but switch its gens and
/// branches off and drop its load and shunt, so that every solver and env agrees. The DC power
/// flow had counted such a gen in the generation total, and an in-service branch to such a bus
/// carried flow from a bus whose angle was never solved.
void Parser::switch_off_isolated(Case& c) const {
  std::unordered_map<int, int> type_of;
  for (auto& b : c.bus) {
    type_of[b.id] = b.type;
    if (b.type == 4) b.pd_mw = b.qd_mvar = b.gs_mw = b.bs_mvar = 0.0;
  }
  for (auto& g : c.gen)
    if (type_of[g.bus] == 4) g.status = 0;
  for (auto& br : c.branch)
    if (type_of[br.from] == 4 || type_of[br.to] == 4) br.status = 0;
}

int Parser::bus_ref(const std::unordered_map<int, int>& id_line, double v, int line,
                    const std::string& what) const {
  const int id = as_id(v, file_, line, what);
  if (!id_line.count(id)) fail(line, what + " to be a bus id of mpc.bus", std::to_string(id));
  return id;
}

void Parser::build_gens(Case& c, const std::unordered_map<int, int>& id_line) const {
  const RawMat& gm = mats_.at("gen");
  for (size_t k = 0; k < gm.rows.size(); ++k) {
    const auto& r = gm.rows[k];
    check_values(gm, "gen", kGenCols, std::size(kGenCols), k, true);
    Gen g;
    g.bus = bus_ref(id_line, r[0], gm.lines[k], "gen bus");
    g.pg_mw = r[1];
    g.qg_mvar = r[2];
    g.qmax_mvar = r[3];
    g.qmin_mvar = r[4];
    g.vg_pu = r[5];
    g.mbase_mva = r[6];
    g.status = r[7] > 0 ? 1 : 0;
    g.pmax_mw = r[8];
    g.pmin_mw = r[9];
    c.gen.push_back(g);
  }
}

void Parser::build_branches(Case& c, const std::unordered_map<int, int>& id_line) const {
  const RawMat& rm = mats_.at("branch");
  for (size_t k = 0; k < rm.rows.size(); ++k) {
    const auto& r = rm.rows[k];
    check_values(rm, "branch", kBranchCols, std::size(kBranchCols), k, false);
    Branch br;
    br.from = bus_ref(id_line, r[0], rm.lines[k], "branch from-bus");
    br.to = bus_ref(id_line, r[1], rm.lines[k], "branch to-bus");
    br.r_pu = r[2];
    br.x_pu = r[3];
    br.b_pu = r[4];
    br.rate_a_mva = r[5];
    br.rate_b_mva = r[6];
    br.rate_c_mva = r[7];
    // A negative rating was silently read as "unlimited" by the DC solvers (0 is MATPOWER's
    // "unlimited"); refuse it for every solver.
    for (int j = 5; j <= 7; ++j)
      if (r[j] < 0)
        fail(rm.lines[k],
             std::string("mpc.branch row ") + std::to_string(k + 1) + " column " +
                 std::to_string(j + 1) + " (" + kBranchCols[j] + ") >= 0 (0 = unlimited)",
             std::to_string(r[j]));
    br.tap = r[8];
    br.shift_deg = r[9];
    br.status = r[10] > 0 ? 1 : 0;
    if (r.size() >= 13) {
      br.angmin_deg = r[11];
      br.angmax_deg = r[12];
    }
    c.branch.push_back(br);
  }
}

void Parser::build_gencost(Case& c, const RawMat& cm) const {
  const size_t ng = c.gen.size();
  if (cm.rows.size() != ng && cm.rows.size() != 2 * ng) {
    fail(cm.open_line,
         std::to_string(ng) + " or " + std::to_string(2 * ng) +
             " rows in mpc.gencost (one or two per gen)",
         std::to_string(cm.rows.size()));
  }
  for (size_t k = 0; k < ng; ++k) {
    const auto& r = cm.rows[k];
    const int line = cm.lines[k];
    GenCost gc;
    gc.source_line = line;
    gc.model = as_id(r[0], file_, line, "gencost MODEL");
    if (gc.model != 1 && gc.model != 2) {
      fail(line, "gencost MODEL 1 (piecewise linear) or 2 (polynomial)", std::to_string(gc.model));
    }
    gc.startup = r[1];
    gc.shutdown = r[2];
    const int ncost = as_id(r[3], file_, line, "gencost NCOST");
    const size_t need = 4 + static_cast<size_t>(std::max(ncost, 0)) * (gc.model == 1 ? 2 : 1);
    if (ncost < 0 || need > r.size()) {
      fail(line, std::to_string(need) + " columns for NCOST = " + std::to_string(ncost),
           std::to_string(r.size()));
    }
    for (size_t j = 1; j < need; ++j) {
      // CLP refuses objective coefficients near 1e25; no real cost comes near 1e15 $/h.
      if (!std::isfinite(r[j]) || std::fabs(r[j]) > 1e15) {
        std::ostringstream os;
        os << r[j];
        fail(line,
             "a finite number of magnitude <= 1e15 in mpc.gencost row " + std::to_string(k + 1) +
                 " column " + std::to_string(j + 1),
             os.str());
      }
    }
    gc.coeffs.assign(r.begin() + 4, r.begin() + static_cast<long>(need));
    c.gencost.push_back(gc);
  }
}

}  // namespace pz::grid::detail
