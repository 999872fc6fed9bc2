// The project's one CSV reader: header row, data rows with 1-based line numbers, cell splitting,
// column lookup by name and the "path:line: " prefixes of error messages.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace pz::data {

/// Splits one CSV line at every ','. Each cell loses every '\r' and '"' and its leading and
/// trailing spaces (no quoting: a comma always separates). "" → {""}; "a,b," → {"a", "b", ""}.
std::vector<std::string> split_csv_line(const std::string& line);

/// True if `line` holds nothing but spaces, tabs and '\r' (such lines are skipped as blank).
bool is_blank_line(const std::string& line);

/// "path:line: " — the prefix of the project's file-and-line error messages (line is 1-based).
std::string csv_where(const std::string& path, int64_t line);

/// Reads a CSV file: the header on line 1, then the data rows in order. Opening and the header
/// never throw: callers check is_open() / read_header() / column() and throw their own
/// core::ConfigError; next_row() (a row with more cells than the header), number_cell() and
/// integer_cell() throw it themselves, naming file:line and column.
class CsvReader {
 public:
  /// Opens `path` for reading (check is_open()).
  explicit CsvReader(std::string path);

  bool is_open() const { return static_cast<bool>(in_); }
  const std::string& path() const { return path_; }

  /// Reads line 1 as the header. False if the file has no first line (an empty file).
  bool read_header();
  /// Header cells (split_csv_line of line 1) and the raw text of line 1 (without '\n').
  const std::vector<std::string>& header() const { return header_; }
  const std::string& header_line() const { return header_line_; }
  /// Index of the first header cell equal to `name`, or -1 if none.
  int column(const std::string& name) const;

  /// Advances to the next non-blank line (see is_blank_line). False at end of file. Throws
  /// core::ConfigError "path:line: expected N comma-separated fields, found M: column N+1 ('...')
  /// is past the header '...'" for a row with more cells than a header that was read (a cell no
  /// column names would be dropped unread; fewer cells are the caller's to refuse or accept).
  bool next_row();
  /// The current row: 1-based line number in the file, raw text (without '\n'), split cells.
  int64_t line_number() const { return line_number_; }
  const std::string& line() const { return line_; }
  const std::vector<std::string>& cells() const { return cells_; }
  /// csv_where(path(), line_number()): "path:line: ".
  std::string where() const { return csv_where(path_, line_number_); }

  /// The finite number in cell `i` of the current row (std::stod syntax, the whole cell).
  /// Throws core::ConfigError "path:line: expected a number in column 'name', found '...'"
  /// (or "... expected a value ..., found none" for a missing cell); NaN and inf are refused.
  double number_cell(size_t i, const char* name) const;
  /// The integer in cell `i`, within [lo, hi], written as one: an optional sign and digits only
  /// ("1.0", "1e1", "1.5", "nan" are refused: an integer column in float notation is bad input).
  /// Throws core::ConfigError "path:line: expected <expected> in column 'name', found '...'".
  int64_t integer_cell(size_t i, const char* name, int64_t lo, int64_t hi,
                       const char* expected) const;

 private:
  std::string path_;
  std::ifstream in_;
  std::vector<std::string> header_;
  std::string header_line_;
  std::string line_;
  std::vector<std::string> cells_;
  int64_t line_number_ = 0;
};

}  // namespace pz::data
