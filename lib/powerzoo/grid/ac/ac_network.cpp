// AcNetwork: π-models, Ybus in compressed rows, islands and MATPOWER bus types of a case.
#include "powerzoo/grid/ac/ac_network.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <sstream>

#include "powerzoo/core/error.hpp"

namespace pz::grid {

namespace {

std::string case_file(const Case& c) {
  return c.source_path.empty() ? "case '" + c.name + "'" : c.source_path;
}

std::string num(double x) {
  std::ostringstream os;
  os.precision(12);
  os << x;
  return os.str();
}

[[noreturn]] void bad(const Case& c, const std::string& where, const std::string& expected,
                      const std::string& found) {
  throw core::ConfigError(case_file(c) + ": " + where + ": expected " + expected + ", found " +
                          found);
}

}  // namespace

BranchAdmittance branch_admittance(const Branch& br) {
  const Complex ys = 1.0 / Complex(br.r_pu, br.x_pu);
  const Complex tau = std::polar(br.effective_tap(), br.shift_deg * std::numbers::pi / 180.0);
  const Complex ytt = ys + Complex(0.0, br.b_pu / 2.0);
  BranchAdmittance y;
  y.yff = ytt / std::norm(tau);
  y.yft = -ys / std::conj(tau);
  y.ytf = -ys / tau;
  y.ytt = ytt;
  return y;
}

void validate_ac_case(const Case& c) {
  bool has_ref = false;
  for (size_t k = 0; k < c.bus.size(); ++k) {
    const Bus& b = c.bus[k];
    has_ref = has_ref || b.type == 3;
    if (b.vmin_pu > b.vmax_pu)
      bad(c,
          "mpc.bus row " + std::to_string(k + 1) + " (bus " + std::to_string(b.id) +
              ") columns 13 (VMIN) and 12 (VMAX)",
          "VMIN <= VMAX", "VMIN = " + num(b.vmin_pu) + " > VMAX = " + num(b.vmax_pu));
  }
  if (!has_ref)
    bad(c, "mpc.bus column 2 (BUS_TYPE)", "a reference bus (type 3) for the AC solvers",
        "none among " + std::to_string(c.bus.size()) + " buses");
  for (size_t k = 0; k < c.branch.size(); ++k) {
    const Branch& br = c.branch[k];
    const std::string row = "mpc.branch row " + std::to_string(k + 1) + " (" +
                            std::to_string(br.from) + "-" + std::to_string(br.to) + ")";
    if (br.status > 0 && br.r_pu == 0.0 && br.x_pu == 0.0)
      bad(c, row + " columns 3 (BR_R) and 4 (BR_X)",
          "a nonzero impedance on an in-service branch (BR_STATUS = 1)", "r = x = 0");
    if (br.rate_a_mva < 0)
      bad(c, row + " column 6 (RATE_A)", "RATE_A >= 0 (0 = unlimited)", num(br.rate_a_mva));
  }
}

AcNetwork::AcNetwork(const Case& c) : n_bus_(c.n_bus()), base_mva_(c.base_mva) {
  validate_ac_case(c);
  const int nb = n_bus_, nl = c.n_branch();
  bus_on_.assign(nb, 0);
  shunt_.assign(nb, Complex(0, 0));
  for (int b = 0; b < nb; ++b) {
    bus_on_[b] = c.bus[b].type != 4;
    shunt_[b] = Complex(c.bus[b].gs_mw, c.bus[b].bs_mvar) / base_mva_;
  }
  branch_y_.assign(nl, BranchAdmittance{});
  branch_on_.assign(nl, 0);
  for (int l = 0; l < nl; ++l) {
    const int f = c.branch_from_idx[l], t = c.branch_to_idx[l];
    branch_on_[l] = c.branch[l].status > 0 && bus_on_[f] && bus_on_[t];
    if (branch_on_[l]) branch_y_[l] = branch_admittance(c.branch[l]);
  }
  // Pattern: per row the sorted unique neighbours plus the diagonal.
  std::vector<std::vector<int>> adj(nb);
  for (int b = 0; b < nb; ++b)
    if (bus_on_[b]) adj[b].push_back(b);
  for (int l = 0; l < nl; ++l) {
    if (!branch_on_[l]) continue;
    const int f = c.branch_from_idx[l], t = c.branch_to_idx[l];
    adj[f].push_back(t);
    adj[t].push_back(f);
  }
  row_ptr_.assign(nb + 1, 0);
  for (int b = 0; b < nb; ++b) {
    std::sort(adj[b].begin(), adj[b].end());
    adj[b].erase(std::unique(adj[b].begin(), adj[b].end()), adj[b].end());
    row_ptr_[b + 1] = row_ptr_[b] + static_cast<int>(adj[b].size());
    col_idx_.insert(col_idx_.end(), adj[b].begin(), adj[b].end());
  }
  y_.assign(col_idx_.size(), Complex(0, 0));
  auto pos = [&](int i, int k) {
    const auto first = col_idx_.begin() + row_ptr_[i], last = col_idx_.begin() + row_ptr_[i + 1];
    return static_cast<int>(std::lower_bound(first, last, k) - col_idx_.begin());
  };
  diag_pos_.assign(nb, -1);
  for (int b = 0; b < nb; ++b)
    if (bus_on_[b]) {
      diag_pos_[b] = pos(b, b);
      y_[diag_pos_[b]] += shunt_[b];
    }
  branch_pos_.assign(4 * static_cast<size_t>(nl), -1);
  for (int l = 0; l < nl; ++l) {
    if (!branch_on_[l]) continue;
    const int f = c.branch_from_idx[l], t = c.branch_to_idx[l];
    int* p = &branch_pos_[4 * static_cast<size_t>(l)];
    p[0] = pos(f, f);
    p[1] = pos(f, t);
    p[2] = pos(t, f);
    p[3] = pos(t, t);
    y_[p[0]] += branch_y_[l].yff;
    y_[p[1]] += branch_y_[l].yft;
    y_[p[2]] += branch_y_[l].ytf;
    y_[p[3]] += branch_y_[l].ytt;
  }
  // Islands: the same components as every other reader of the case (grid/case/energized).
  Islands isl = find_islands(c);
  island_ = std::move(isl.island);
  n_islands_ = isl.n;
}

void ac_bus_types(const AcNetwork& net, const Case& c, const std::vector<char>& gen_on,
                  const std::vector<int>& type, std::vector<AcBusType>& out) {
  thread_local std::vector<char> has_gen;
  has_gen.assign(net.n_bus(), 0);
  for (int g = 0; g < c.n_gen(); ++g)
    if (gen_on[g] && net.bus_on()[c.gen_bus_idx[g]]) has_gen[c.gen_bus_idx[g]] = 1;
  bus_types(net.island(), net.n_islands(), has_gen, type, out);
}

}  // namespace pz::grid
