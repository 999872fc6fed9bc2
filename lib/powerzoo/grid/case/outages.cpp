// Out-of-service edits of a case (see outages.hpp).
#include "powerzoo/grid/case/outages.hpp"

#include <algorithm>
#include <string>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::grid {

namespace {

// A row number: decimal digits only (no sign, no exponent, no spaces), at most 9 of them.
bool parse_row(std::string_view s, long& out) {
  if (s.empty() || s.size() > 9) return false;
  out = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    out = out * 10 + (ch - '0');
  }
  return true;
}

}  // namespace

Outages parse_outages(std::string_view text, const Case& c) {
  Outages o;
  if (text.empty())
    throw core::ConfigError("expected a list such as branch:3,gen:2, found an empty value");
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::string shown = "'" + core::echo(std::string(item)) + "'";
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos)
      throw core::ConfigError("expected items of the form branch:K or gen:G, found " + shown);
    const std::string_view kind = item.substr(0, colon);
    long row = 0;
    if (kind != "branch" && kind != "gen")
      throw core::ConfigError("expected the element 'branch' or 'gen', found " + shown);
    if (!parse_row(item.substr(colon + 1), row) || row < 1)
      throw core::ConfigError("expected a row number (1-based, as in the case file) in " + shown +
                              ", found '" + core::echo(std::string(item.substr(colon + 1))) + "'");
    const bool is_branch = kind == "branch";
    const long n = is_branch ? c.n_branch() : c.n_gen();
    if (row > n)
      throw core::ConfigError("expected a " + std::string(kind) + " row in 1.." +
                              std::to_string(n) + " (the rows of mpc." + std::string(kind) +
                              " in " + (c.source_path.empty() ? c.name : c.source_path) +
                              "), found " + shown);
    // As the envs' scenario files: taking out a row the case has out already does nothing.
    const bool in_service = is_branch ? c.branch[row - 1].status > 0 : c.gen[row - 1].status > 0;
    if (!in_service)
      throw core::ConfigError("expected a " + std::string(kind) +
                              " in service in the case, found " + shown + " out of service in " +
                              (c.source_path.empty() ? c.name : c.source_path) + " already");
    std::vector<int>& rows = is_branch ? o.branches : o.gens;
    if (std::find(rows.begin(), rows.end(), static_cast<int>(row - 1)) != rows.end())
      throw core::ConfigError("expected each row once, found " + shown + " twice");
    rows.push_back(static_cast<int>(row - 1));
    start = comma + 1;
  }
  return o;
}

void apply_outages(Case& c, const Outages& o) {
  for (int l : o.branches) c.branch[l].status = 0;
  for (int g : o.gens) c.gen[g].status = 0;
}

}  // namespace pz::grid
