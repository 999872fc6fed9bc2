// Internal to the MATPOWER parser: the expression values, raw matrices and the Parser class
// shared by matpower_parser.cpp (statements), matpower_expr.cpp and matpower_case.cpp.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/matpower_lexer.hpp"

namespace pz::grid::detail {

// Besides the matrices, the parser evaluates the simple statements MATPOWER's distribution cases
// append to convert units (e.g. `mpc.bus(:, [PD, QD]) = mpc.bus(:, [PD, QD]) / 1e3;`): scalar
// variables, MATPOWER column names, `mpc.F(rows, cols)` reads and writes, + - * / ^ with scalar
// broadcasting, and elementwise sin/cos/acos/sqrt/... Other statements are ignored; a statement
// that assigns into mpc.bus/gen/branch/gencost but cannot be evaluated is a ConfigError.

/// A dense row-major matrix value of the tiny expression language (scalars are 1x1).
struct Val {
  int rows = 1, cols = 1;
  std::vector<double> v{0.0};
  static Val scalar(double x) { return Val{1, 1, {x}}; }
  bool is_scalar() const { return rows == 1 && cols == 1; }
};

/// One numeric matrix as written in the file, plus the source line of every row.
struct RawMat {
  bool present = false;
  int open_line = 0;
  int cols = 0;
  std::vector<std::vector<double>> rows;
  std::vector<int> lines;
  std::vector<int> set_by;  ///< line of the last statement that assigned into the row (0: none)
};

inline bool is_core_field(const std::string& f) {
  return f == "bus" || f == "gen" || f == "branch" || f == "gencost";
}

inline size_t min_cols(const std::string& f) {
  if (f == "bus") return 13;
  if (f == "gen") return 10;
  if (f == "branch") return 11;
  return 4;  // gencost
}

/// Parser and interpreter of one case file: run() reads every statement, then builds the Case.
class Parser {
 public:
  Parser(std::string_view text, std::string file) : toks_(lex(text)), file_(std::move(file)) {}

  Case run();

 private:
  void check_values(const RawMat& m, const char* matrix, const char* const* names, size_t n_names,
                    size_t k, bool inf_q_ok) const;
  /// Fails at the line that gave mpc.<matrix> row k its value: the row's own line, or the
  /// statement that last assigned into it (named in the message).
  [[noreturn]] void fail_row(const RawMat& m, size_t k, const std::string& expected,
                             const std::string& found) const;
  [[noreturn]] void fail(int line, const std::string& expected, const std::string& found) const {
    throw core::ConfigError(file_ + ":" + std::to_string(line) + ": expected " + expected +
                            ", found " + found);
  }
  /// Nesting limit of brackets and unary operators in one expression (a deeper one is refused
  /// rather than recursed into: no stack overflow on hostile input).
  static constexpr int kMaxDepth = 200;
  int depth_ = 0;
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool is_punct(const Token& t, const char* p) const {
    return t.kind == Tok::kPunct && t.text == p;
  }

  void parse_matrix(const std::string& field, int open_line);
  void skip_balanced(const std::string& open, const std::string& close, const std::string& what,
                     int open_line);
  void statement();
  void execute(const std::vector<Token>& st);

  // expression evaluation over st_[ep_ .. st_end_)
  const Token& et(size_t k = 0) const {
    static const Token kEndTok{Tok::kEnd, "", 0, 0};
    return ep_ + k < st_.size() ? st_[ep_ + k] : kEndTok;
  }
  bool eat(const char* p) {
    if (is_punct(et(), p)) {
      ++ep_;
      return true;
    }
    return false;
  }
  [[noreturn]] void efail(const std::string& expected) const {
    const Token& t = et();
    fail(t.kind == Tok::kEnd ? st_line_ : t.line, expected,
         t.kind == Tok::kEnd ? std::string("end of statement") : describe(t));
  }
  Val expr();
  Val term();
  Val unary();
  Val power();
  Val primary();
  std::vector<int> index_arg(int extent);
  Val binary(const Val& a, const Val& b, const std::string& op) const;
  Val matrix_value(const std::string& field, int line) const;

  Case build();
  void build_buses(Case& c, std::unordered_map<int, int>& id_line) const;
  int bus_ref(const std::unordered_map<int, int>& id_line, double v, int line,
              const std::string& what) const;
  void build_gens(Case& c, const std::unordered_map<int, int>& id_line) const;
  void switch_off_isolated(Case& c) const;
  void build_branches(Case& c, const std::unordered_map<int, int>& id_line) const;
  void build_gencost(Case& c, const RawMat& cm) const;

  std::vector<Token> toks_;
  size_t pos_ = 0;
  std::string file_;
  std::string func_name_;
  std::optional<double> base_mva_;
  int base_mva_line_ = 0;
  std::map<std::string, RawMat> mats_;
  std::map<std::string, Val> vars_;

  std::vector<Token> st_;  // statement being evaluated
  size_t ep_ = 0;
  int st_line_ = 0;
  std::optional<double> end_value_;  // value of `end` inside an index expression
};

}  // namespace pz::grid::detail
