// Reader of `<case>_unit_commitment.csv` tables (see unit_commitment_table.hpp).
#include "powerzoo/data/unit_commitment_table.hpp"

#include <cmath>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/data/csv.hpp"

namespace pz::data {
namespace {

struct Column {
  const char* name;
  double UcTableRow::*field;
};

// In the order they are looked up in the header and parsed in a row.
constexpr Column kColumns[] = {{"bus_id", &UcTableRow::bus_id},
                               {"mc_a", &UcTableRow::mc_a},
                               {"mc_b", &UcTableRow::mc_b},
                               {"mc_c", &UcTableRow::mc_c},
                               {"p_max", &UcTableRow::p_max},
                               {"p_min", &UcTableRow::p_min},
                               {"ramp_up", &UcTableRow::ramp_up},
                               {"ramp_down", &UcTableRow::ramp_down},
                               {"min_up_time", &UcTableRow::min_up_time},
                               {"min_down_time", &UcTableRow::min_down_time},
                               {"init_state", &UcTableRow::init_state},
                               {"keep_time", &UcTableRow::keep_time},
                               {"init_start_up_cost", &UcTableRow::init_start_up_cost},
                               {"init_no_load_cost", &UcTableRow::init_no_load_cost}};
constexpr size_t kNumColumns = sizeof(kColumns) / sizeof(kColumns[0]);
constexpr size_t kPMinColumn = 5;  // p_min: p_min/p_max are checked right after it is read

}  // namespace

std::vector<UcTableRow> read_unit_commitment_table(const std::string& path,
                                                   const std::string& case_name) {
  CsvReader csv(path);
  if (!csv.is_open())
    throw core::ConfigError(path + ": expected a unit-commitment CSV for case '" + case_name +
                            "', found no readable file");
  if (!csv.read_header()) throw core::ConfigError(path + ":1: expected a header row");
  size_t col[kNumColumns];
  for (size_t k = 0; k < kNumColumns; ++k) {
    const int i = csv.column(kColumns[k].name);
    if (i < 0)
      throw core::ConfigError(path + ":1: expected a column '" + kColumns[k].name +
                              "', found none");
    col[k] = static_cast<size_t>(i);
  }
  std::vector<UcTableRow> rows;
  while (csv.next_row()) {
    UcTableRow r;
    r.line = csv.line_number();
    for (size_t k = 0; k < kNumColumns; ++k) {
      r.*kColumns[k].field = csv.number_cell(col[k], kColumns[k].name);
      if (k == kPMinColumn && !(r.p_min >= 0 && r.p_max >= r.p_min))
        throw core::ConfigError(csv.where() + "expected 0 <= p_min <= p_max, found p_min " +
                                std::to_string(r.p_min) + ", p_max " + std::to_string(r.p_max));
    }
    r.bus_id_text = csv.cells()[col[0]];
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace pz::data
