// The project's one CSV reader (see csv.hpp).
#include "powerzoo/data/csv.hpp"

#include <cmath>
#include <utility>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"

namespace pz::data {
namespace {

void trim_spaces(std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) {
    s.clear();
    return;
  }
  s.erase(s.find_last_not_of(' ') + 1);
  s.erase(0, b);
}

// The whole of `s` parsed by std::stod, or false (empty, trailing text, out of range).
bool parse_double(const std::string& s, double* v) {
  size_t pos = 0;
  try {
    *v = std::stod(s, &pos);
  } catch (...) {
    return false;
  }
  return !s.empty() && pos == s.size();
}

}  // namespace

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (char c : line) {
    if (c == ',') {
      trim_spaces(cell);
      out.push_back(std::move(cell));
      cell.clear();
    } else if (c != '\r' && c != '"') {
      cell.push_back(c);
    }
  }
  trim_spaces(cell);
  out.push_back(std::move(cell));
  return out;
}

bool is_blank_line(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

std::string csv_where(const std::string& path, int64_t line) {
  return path + ":" + std::to_string(line) + ": ";
}

CsvReader::CsvReader(std::string path) : path_(std::move(path)) {
  core::expect_regular_file(path_, "a CSV file");  // before open(), which blocks on a FIFO
  in_.open(path_);
}

bool CsvReader::read_header() {
  if (!std::getline(in_, header_line_)) return false;
  line_number_ = 1;
  header_ = split_csv_line(header_line_);
  return true;
}

int CsvReader::column(const std::string& name) const {
  int found = -1;
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] != name) continue;
    if (found >= 0)  // the first one was used without a word
      throw core::ConfigError(csv_where(path_, 1) + "expected the column '" + core::echo(name) +
                              "' once in the header, found it at columns " +
                              std::to_string(found + 1) + " and " + std::to_string(i + 1));
    found = static_cast<int>(i);
  }
  return found;
}

bool CsvReader::next_row() {
  while (std::getline(in_, line_)) {
    ++line_number_;
    if (is_blank_line(line_)) continue;
    cells_ = split_csv_line(line_);
    // A cell past the header's columns belongs to no column: every reader would drop it unread.
    if (!header_.empty() && cells_.size() > header_.size())
      throw core::ConfigError(where() + "expected " + std::to_string(header_.size()) +
                              " comma-separated fields, found " + std::to_string(cells_.size()) +
                              ": column " + std::to_string(header_.size() + 1) + " ('" +
                              core::echo(cells_[header_.size()]) + "') is past the header '" +
                              core::echo(header_line_) + "'");
    return true;
  }
  cells_.clear();
  return false;
}

double CsvReader::number_cell(size_t i, const char* name) const {
  if (i >= cells_.size())
    throw core::ConfigError(where() + "expected a value in column '" + name + "', found none");
  double v = 0;
  if (!parse_double(cells_[i], &v) || !std::isfinite(v))
    throw core::ConfigError(where() + "expected a number in column '" + name + "', found '" +
                            core::echo(cells_[i]) + "'");
  return v;
}

int64_t CsvReader::integer_cell(size_t i, const char* name, int64_t lo, int64_t hi,
                                const char* expected) const {
  if (i >= cells_.size())
    throw core::ConfigError(where() + "expected a value in column '" + name + "', found none");
  // Digits only (an optional sign): "1e1" or "3.0" in an integer column is a float written
  // where the file's format says integer, refused rather than read as one.
  const std::string& c = cells_[i];
  const size_t d = !c.empty() && (c[0] == '-' || c[0] == '+') ? 1 : 0;
  const bool digits = c.size() > d && c.find_first_not_of("0123456789", d) == std::string::npos;
  double v = 0;
  if (!digits || !parse_double(c, &v) || !std::isfinite(v) || v < static_cast<double>(lo) ||
      v > static_cast<double>(hi))
    throw core::ConfigError(where() + "expected " + expected + " in column '" + name +
                            "', found '" + core::echo(cells_[i]) + "'");
  return static_cast<int64_t>(v);
}

}  // namespace pz::data
