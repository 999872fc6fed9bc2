// Reader of outage scenario files (see outage_schedule.hpp).
#include "powerzoo/data/outage_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <tuple>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/csv.hpp"

namespace pz::data {
namespace {

constexpr const char* kColumns[] = {"step", "element", "index", "status"};

// "'a', 'b' or 'c'".
std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : (i + 1 == names.size() ? " or " : ", ")) + ("'" + names[i] + "'");
  return out;
}

// Reads the file; kinds == nullptr: the element column is branch/gen, else one of *kinds.
OutageSchedule read_schedule(const std::string& path, const std::vector<std::string>* kinds);

void check_step(const std::string& where, int step, int horizon) {
  if (step >= horizon)
    throw core::ConfigError(where + "expected a step within the episode (0.." +
                            std::to_string(horizon - 1) + ", [env] horizon " +
                            std::to_string(horizon) + "), found step " + std::to_string(step));
}

}  // namespace

const char* outage_element_name(OutageElement e) {
  return e == OutageElement::kBranch ? "branch" : "gen";
}

OutageSchedule read_outage_schedule(const std::string& path) {
  return read_schedule(path, nullptr);
}

OutageSchedule read_outage_schedule(const std::string& path,
                                    const std::vector<std::string>& kinds) {
  return read_schedule(path, &kinds);
}

namespace {

OutageSchedule read_schedule(const std::string& path, const std::vector<std::string>* kinds) {
  CsvReader csv(path);
  if (!csv.is_open())
    throw core::ConfigError(path + ": expected an outage scenario CSV, found no readable file");
  if (!csv.read_header())
    throw core::ConfigError(path + ":1: expected a header row (step,element,index,status)");
  size_t col[4];
  for (size_t k = 0; k < 4; ++k) {
    const int i = csv.column(kColumns[k]);
    if (i < 0)
      throw core::ConfigError(path + ":1: expected a column '" + kColumns[k] +
                              "' (header step,element,index,status), found '" +
                              show_cell(csv.header_line()) + "'");
    col[k] = static_cast<size_t>(i);
  }
  // A fifth column (a comment, a note) would be read by nothing: refused, not ignored.
  csv.expect_only_columns({std::begin(kColumns), std::end(kColumns)},
                          "step, element, index, status (in any order)");
  OutageSchedule out;
  out.path = path;
  std::set<std::tuple<int, int, int>> seen;
  constexpr int kMax = 1000000000;
  while (csv.next_row()) {
    OutageEvent e;
    e.line = csv.line_number();
    e.step = static_cast<int>(csv.integer_cell(col[0], "step", 0, kMax, "an integer step >= 0"));
    if (col[1] >= csv.cells().size())
      throw core::ConfigError(csv.where() + "expected a value in column 'element', found none");
    const std::string& el = csv.cells()[col[1]];
    if (kinds) {
      e.element = OutageElement::kGen;
      const auto it = std::find(kinds->begin(), kinds->end(), el);
      if (it == kinds->end())
        throw core::ConfigError(csv.where() + "expected element " + quoted_list(*kinds) +
                                ", found '" + show_cell(el) + "'");
      e.kind = static_cast<int>(it - kinds->begin());
    } else if (el == "branch") {
      e.element = OutageElement::kBranch;
    } else if (el == "gen") {
      e.element = OutageElement::kGen;
    } else {
      throw core::ConfigError(csv.where() + "expected element 'branch' or 'gen', found '" +
                              show_cell(el) + "'");
    }
    e.index = static_cast<int>(csv.integer_cell(
        col[2], "index", 1, kMax,
        kinds ? "a 1-based unit (integer >= 1)" : "a 1-based case row (integer >= 1)"));
    e.status = static_cast<int>(
        csv.integer_cell(col[3], "status", 0, 1, "0 (out) or 1 (back in service)"));
    if (!seen.insert({e.step, kinds ? e.kind : static_cast<int>(e.element), e.index}).second)
      throw core::ConfigError(csv.where() + "expected one row per step, element and index, found " +
                              "a second row for step " + std::to_string(e.step) + ", " + el + " " +
                              std::to_string(e.index));
    out.events.push_back(e);
  }
  // A scenario without rows takes nothing out, so [env] outages would have no effect (bad input,
  // as any key without effect; a fourth user trial found it accepted silently).
  if (out.events.empty())
    throw core::ConfigError(path + ": expected at least one outage row after the header, found " +
                            "none (a scenario without rows has no effect: leave [env] outages "
                            "unset instead)");
  std::stable_sort(out.events.begin(), out.events.end(),
                   [](const OutageEvent& a, const OutageEvent& b) { return a.step < b.step; });
  return out;
}

}  // namespace

void check_outage_schedule(const OutageSchedule& s, int n_branch, int n_gen, int horizon) {
  for (const OutageEvent& e : s.events) {
    const std::string where = csv_where(s.path, e.line);
    const int n = e.element == OutageElement::kBranch ? n_branch : n_gen;
    if (e.index > n)
      throw core::ConfigError(where + "expected a " + outage_element_name(e.element) +
                              " row of the case (1.." + std::to_string(n) + "), found index " +
                              std::to_string(e.index));
    check_step(where, e.step, horizon);
  }
}

void check_outage_schedule(const OutageSchedule& s, const std::vector<std::string>& kinds,
                           const std::vector<int>& counts, int horizon) {
  for (const OutageEvent& e : s.events) {
    const std::string where = csv_where(s.path, e.line);
    const int n = counts[static_cast<size_t>(e.kind)];
    if (e.index > n)
      throw core::ConfigError(where + "expected a " + kinds[static_cast<size_t>(e.kind)] +
                              " unit (1.." + std::to_string(n) + "), found index " +
                              std::to_string(e.index));
    check_step(where, e.step, horizon);
  }
}

}  // namespace pz::data
