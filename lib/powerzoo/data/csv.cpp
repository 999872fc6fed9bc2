// The project's one CSV reader (see csv.hpp).
#include "powerzoo/data/csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"

namespace pz::data {
namespace {

void trim_spaces(std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) {
    s.clear();
    return;
  }
  s.erase(s.find_last_not_of(" \t") + 1);
  s.erase(0, b);
}

// Drops the '\r' of a CRLF ending. A '\r' left inside the line means CR-only line endings (old
// Mac files): the whole file would read as one line, so it is refused here by name.
void strip_line_ending(std::string& line, const std::string& path, int64_t n) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.find('\r') != std::string::npos)
    throw core::ConfigError(csv_where(path, n) +
                            "expected lines ending in LF or CRLF, found a carriage return inside "
                            "line " +
                            std::to_string(n) +
                            " (CR-only line endings? save the file with LF "
                            "or CRLF line endings)");
}

// " (no '+' sign: write 6)" for a cell that starts with '+', else "".
std::string plus_hint(const std::string& cell) {
  if (cell.empty() || cell[0] != '+') return "";
  return " (no '+' sign: write " + show_cell(cell.substr(1)) + ")";
}

// The invisible characters show_cell writes as \uXXXX, in UTF-8.
struct Invisible {
  std::string_view utf8;
  const char* shown;
};
constexpr Invisible kInvisible[] = {{"\xC2\xA0", "\\u00A0"},     {"\xE2\x80\x87", "\\u2007"},
                                    {"\xE2\x80\x8B", "\\u200B"}, {"\xE2\x80\x8C", "\\u200C"},
                                    {"\xE2\x80\x8D", "\\u200D"}, {"\xE2\x80\xAF", "\\u202F"},
                                    {"\xE2\x81\xA0", "\\u2060"}, {"\xEF\xBB\xBF", "\\uFEFF"}};

}  // namespace

std::string show_cell(std::string_view cell) {
  const std::string e = core::echo(cell);
  std::string out;
  for (size_t i = 0; i < e.size();) {
    if (e[i] == '\t') {
      out += "\\t";
      ++i;
      continue;
    }
    bool hit = false;
    for (const Invisible& v : kInvisible) {
      if (std::string_view(e).substr(i, v.utf8.size()) != v.utf8) continue;
      out += v.shown;
      i += v.utf8.size();
      hit = true;
      break;
    }
    if (!hit) out += e[i++];
  }
  return out;
}

bool parse_csv_number(std::string_view cell, double& out) {
  if (cell.empty()) return false;
  const char* e = cell.data() + cell.size();
  const auto r = std::from_chars(cell.data(), e, out);
  return r.ec == std::errc() && r.ptr == e && std::isfinite(out);
}

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
  // Excel's "CSV UTF-8" starts with a byte-order mark; pandas skips it, and so do we.
  if (header_line_.starts_with("\xEF\xBB\xBF")) header_line_.erase(0, 3);
  if (header_line_.starts_with("\xFF\xFE") || header_line_.starts_with("\xFE\xFF"))
    throw core::ConfigError(csv_where(path_, 1) +
                            "expected a UTF-8 CSV, found a UTF-16 byte-order mark (Excel's "
                            "\"Unicode text\"; save the file as \"CSV UTF-8\")");
  strip_line_ending(header_line_, path_, 1);
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

void CsvReader::expect_only_columns(const std::vector<std::string>& names,
                                    const std::string& expected) const {
  for (size_t i = 0; i < header_.size(); ++i)
    if (std::find(names.begin(), names.end(), header_[i]) == names.end())
      throw core::ConfigError(csv_where(path_, 1) + "expected only the columns " + expected +
                              ", found column " + std::to_string(i + 1) + " '" +
                              show_cell(header_[i]) + "'");
}

bool CsvReader::next_row() {
  while (std::getline(in_, line_)) {
    ++line_number_;
    strip_line_ending(line_, path_, line_number_);
    if (is_blank_line(line_)) continue;
    cells_ = split_csv_line(line_);
    // A cell past the header's columns belongs to no column: every reader would drop it unread.
    if (!header_.empty() && cells_.size() > header_.size())
      throw core::ConfigError(where() + "expected " + std::to_string(header_.size()) +
                              " comma-separated fields, found " + std::to_string(cells_.size()) +
                              ": column " + std::to_string(header_.size() + 1) + " ('" +
                              show_cell(cells_[header_.size()]) + "') is past the header '" +
                              show_cell(header_line_) + "'");
    return true;
  }
  cells_.clear();
  return false;
}

double CsvReader::number_cell(size_t i, const char* name) const {
  if (i >= cells_.size())
    throw core::ConfigError(where() + "expected a value in column '" + name + "', found none");
  double v = 0;
  if (!parse_csv_number(cells_[i], v))
    throw core::ConfigError(where() + "expected a number in column '" + name + "', found '" +
                            show_cell(cells_[i]) + "'" + plus_hint(cells_[i]));
  return v;
}

int64_t CsvReader::integer_cell(size_t i, const char* name, int64_t lo, int64_t hi,
                                const char* expected) const {
  if (i >= cells_.size())
    throw core::ConfigError(where() + "expected a value in column '" + name + "', found none");
  // Digits only (an optional '-'): "1e1" or "3.0" in an integer column is a float written
  // where the file's format says integer, refused rather than read as one; '+' as for numbers.
  const std::string& c = cells_[i];
  const size_t d = !c.empty() && c[0] == '-' ? 1 : 0;
  const bool digits = c.size() > d && c.find_first_not_of("0123456789", d) == std::string::npos;
  int64_t v = 0;
  const char* e = c.data() + c.size();
  const bool parsed = digits && [&] {
    const auto r = std::from_chars(c.data(), e, v);
    return r.ec == std::errc() && r.ptr == e;
  }();
  if (!parsed || v < lo || v > hi)
    throw core::ConfigError(where() + "expected " + expected + " in column '" + name +
                            "', found '" + show_cell(c) + "'" + plus_hint(c));
  return v;
}

}  // namespace pz::data
