// The project's one CSV reader: header row, data rows with 1-based line numbers, cell splitting,
// column lookup by name and the "path:line: " prefixes of error messages.
//
// The rules every CSV the project reads follows (docs/outages.md, "CSV files"): UTF-8, a leading
// UTF-8 byte-order mark skipped (Excel's "CSV UTF-8" writes one, pandas skips it too), LF or CRLF
// line endings, cells split at every ',' and trimmed of the spaces and tabs around them ("6, 7"
// as pandas and MATPOWER users write it), numbers in from_chars syntax: digits, '.', an exponent,
// an optional leading '-' and never '+'; integers digits with an optional leading '-' only.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace pz::data {

/// Splits one CSV line at every ','. Each cell loses every '\r' and '"' and its leading and
/// trailing spaces and tabs (no quoting: a comma always separates). "" → {""};
/// "a,b," → {"a", "b", ""}.
std::vector<std::string> split_csv_line(const std::string& line);

/// A cell as error messages show it, to be put in quotes: core::echo (control characters and
/// bytes that are not UTF-8 as \xHH) with a tab shown as \t and the invisible Unicode
/// characters a spreadsheet leaves in a cell (no-break and narrow spaces U+00A0, U+2007, U+202F,
/// zero-width U+200B..U+200D, U+2060, the byte-order mark U+FEFF) as \uXXXX, so that "found '6'"
/// never hides what made the cell bad.
std::string show_cell(std::string_view cell);

/// The finite number a whole cell writes, in std::from_chars syntax (an optional '-', digits,
/// '.', an exponent; no '+', no spaces, no hex, no "inf"/"nan"). False for anything else.
bool parse_csv_number(std::string_view cell, double& out);

/// True if `line` holds nothing but spaces, tabs and '\r' (such lines are skipped as blank).
bool is_blank_line(const std::string& line);

/// "path:line: " — the prefix of the project's file-and-line error messages (line is 1-based).
std::string csv_where(const std::string& path, int64_t line);

/// Reads a CSV file: the header on line 1, then the data rows in order. Opening never throws:
/// callers check is_open() / read_header() / column() and throw their own core::ConfigError for
/// a missing file or column; read_header() (UTF-16, CR-only line endings), column() (a name
/// twice), expect_only_columns(), next_row() (more cells than the header), number_cell() and
/// integer_cell() throw it themselves, naming file:line and column.
class CsvReader {
 public:
  /// Opens `path` for reading (check is_open()).
  explicit CsvReader(std::string path);

  bool is_open() const { return static_cast<bool>(in_); }
  const std::string& path() const { return path_; }

  /// Reads line 1 as the header. False if the file has no first line (an empty file). A leading
  /// UTF-8 byte-order mark (EF BB BF) is skipped. Throws core::ConfigError "path:1: expected a
  /// UTF-8 CSV, found a UTF-16 byte-order mark ..." for a UTF-16 file and "path:1: expected lines
  /// ending in LF or CRLF, found a carriage return inside line 1 ..." for CR-only line endings.
  bool read_header();
  /// Header cells (split_csv_line of line 1) and the raw text of line 1 (without the BOM and the
  /// line ending).
  const std::vector<std::string>& header() const { return header_; }
  const std::string& header_line() const { return header_line_; }
  /// Index of the first header cell equal to `name`, or -1 if none.
  int column(const std::string& name) const;
  /// Refuses a header cell that is not one of `names` (a column no reader uses would be dropped
  /// unread: a file with a fixed header). Throws core::ConfigError "path:1: expected only the
  /// columns <expected>, found column N 'name'" for the first such cell.
  void expect_only_columns(const std::vector<std::string>& names,
                           const std::string& expected) const;

  /// Advances to the next non-blank line (see is_blank_line). False at end of file. Throws
  /// core::ConfigError "path:line: expected N comma-separated fields, found M: column N+1 ('...')
  /// is past the header '...'" for a row with more cells than a header that was read (a cell no
  /// column names would be dropped unread; fewer cells are the caller's to refuse or accept),
  /// and "path:line: expected lines ending in LF or CRLF, ..." for a carriage return inside it.
  bool next_row();
  /// The current row: 1-based line number in the file, raw text (without the line ending), split
  /// cells.
  int64_t line_number() const { return line_number_; }
  const std::string& line() const { return line_; }
  const std::vector<std::string>& cells() const { return cells_; }
  /// csv_where(path(), line_number()): "path:line: ".
  std::string where() const { return csv_where(path_, line_number_); }

  /// The finite number in cell `i` of the current row (parse_csv_number, the whole cell).
  /// Throws core::ConfigError "path:line: expected a number in column 'name', found '...'"
  /// (or "... expected a value ..., found none" for a missing cell); NaN, inf and a leading '+'
  /// are refused (the last with " (no '+' sign: write 6)").
  double number_cell(size_t i, const char* name) const;
  /// The integer in cell `i`, within [lo, hi], written as one: an optional '-' and digits only
  /// ("+1", "1.0", "1e1", "1.5", "nan" are refused: an integer column in float notation is bad
  /// input). Throws core::ConfigError "path:line: expected <expected> in column 'name', found
  /// '...'".
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
