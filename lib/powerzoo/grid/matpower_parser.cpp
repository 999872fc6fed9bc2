// MATPOWER case format v2 parser: matrices plus the unit-conversion statements of the
// distribution cases, built into a Case.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "powerzoo/core/error.hpp"
#include "powerzoo/grid/case.hpp"
#include "powerzoo/grid/matpower_lexer.hpp"

namespace pz::grid {

// Besides the matrices, the parser evaluates the simple statements MATPOWER's distribution cases
// append to convert units (e.g. `mpc.bus(:, [PD, QD]) = mpc.bus(:, [PD, QD]) / 1e3;`): scalar
// variables, MATPOWER column names, `mpc.F(rows, cols)` reads and writes, + - * / ^ with scalar
// broadcasting, and elementwise sin/cos/acos/sqrt/... Other statements are ignored; a statement
// that assigns into mpc.bus/gen/branch/gencost but cannot be evaluated is a ConfigError.

namespace {

using core::ConfigError;
using detail::describe;
using detail::lex;
using detail::Tok;
using detail::Token;

// ---------------------------------------------------------------------------------------------
// Values and raw matrices
// ---------------------------------------------------------------------------------------------

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
};

bool is_core_field(const std::string& f) {
  return f == "bus" || f == "gen" || f == "branch" || f == "gencost";
}

size_t min_cols(const std::string& f) {
  if (f == "bus") return 13;
  if (f == "gen") return 10;
  if (f == "branch") return 11;
  return 4;  // gencost
}

// ---------------------------------------------------------------------------------------------
// Parser / interpreter
// ---------------------------------------------------------------------------------------------

class Parser {
 public:
  Parser(std::string_view text, std::string file) : toks_(lex(text)), file_(std::move(file)) {}

  Case run();

 private:
  [[noreturn]] void fail(int line, const std::string& expected, const std::string& found) const {
    throw ConfigError(file_ + ":" + std::to_string(line) + ": expected " + expected + ", found " +
                      found);
  }
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

void Parser::parse_matrix(const std::string& field, int open_line) {
  RawMat m;
  m.present = true;
  m.open_line = open_line;
  std::vector<double> row;
  int row_line = peek().line;
  auto end_row = [&]() {
    if (row.empty()) return;
    if (m.rows.empty()) {
      if (row.size() < min_cols(field)) {
        fail(row_line, "at least " + std::to_string(min_cols(field)) + " columns in mpc." + field,
             std::to_string(row.size()));
      }
      m.cols = static_cast<int>(row.size());
    } else if (static_cast<int>(row.size()) != m.cols) {
      fail(row_line,
           std::to_string(m.cols) + " columns in mpc." + field + " row " +
               std::to_string(m.rows.size() + 1) + " (as in its first row)",
           std::to_string(row.size()));
    }
    m.rows.push_back(row);
    m.lines.push_back(row_line);
    row.clear();
  };
  for (;;) {
    const Token& t = peek();
    if (row.empty()) row_line = t.line;
    if (t.kind == Tok::kEnd) {
      fail(t.line,
           "']' closing mpc." + field + " (opened at line " + std::to_string(open_line) + ")",
           "end of file");
    }
    if (t.kind == Tok::kNewline || is_punct(t, ";")) {
      end_row();
      ++pos_;
      continue;
    }
    if (is_punct(t, "]")) {
      end_row();
      ++pos_;
      break;
    }
    if (is_punct(t, ",")) {
      ++pos_;
      continue;
    }
    double sign = 1;
    const Token* v = &t;
    if ((is_punct(t, "-") || is_punct(t, "+")) &&
        (peek(1).kind == Tok::kNum || peek(1).kind == Tok::kIdent)) {
      sign = is_punct(t, "-") ? -1 : 1;
      v = &peek(1);
      ++pos_;
    }
    if (v->kind == Tok::kNum) {
      row.push_back(sign * v->num);
    } else if (v->kind == Tok::kIdent && (v->text == "Inf" || v->text == "inf")) {
      row.push_back(sign * std::numeric_limits<double>::infinity());
    } else if (v->kind == Tok::kIdent && (v->text == "NaN" || v->text == "nan")) {
      row.push_back(std::numeric_limits<double>::quiet_NaN());
    } else {
      fail(v->line, "a number in mpc." + field, describe(*v));
    }
    ++pos_;
  }
  if (is_core_field(field)) mats_[field] = std::move(m);
}

void Parser::skip_balanced(const std::string& open, const std::string& close,
                           const std::string& what, int open_line) {
  int depth = 1;
  while (depth > 0) {
    const Token& t = peek();
    if (t.kind == Tok::kEnd) {
      fail(
          t.line,
          "'" + close + "' closing " + what + " (opened at line " + std::to_string(open_line) + ")",
          "end of file");
    }
    if (t.kind == Tok::kPunct && t.text == open) ++depth;
    if (t.kind == Tok::kPunct && t.text == close) --depth;
    ++pos_;
  }
}

void Parser::statement() {
  const Token& t = peek();
  // `function mpc = caseN`
  if (t.kind == Tok::kIdent && t.text == "function") {
    ++pos_;
    std::vector<Token> head;
    while (peek().kind != Tok::kNewline && peek().kind != Tok::kEnd) head.push_back(toks_[pos_++]);
    for (size_t k = 0; k + 1 < head.size(); ++k) {
      if (is_punct(head[k], "=") && head[k + 1].kind == Tok::kIdent) func_name_ = head[k + 1].text;
    }
    if (func_name_.empty() && !head.empty() && head.back().kind == Tok::kIdent) {
      func_name_ = head.back().text;
    }
    return;
  }
  // `mpc.field = [ ... ]` or `mpc.field = { ... }`
  if (t.kind == Tok::kIdent && t.text == "mpc" && is_punct(peek(1), ".") &&
      peek(2).kind == Tok::kIdent && is_punct(peek(3), "=") &&
      (is_punct(peek(4), "[") || is_punct(peek(4), "{"))) {
    const std::string field = peek(2).text;
    const Token& open = peek(4);
    pos_ += 5;
    if (open.text == "[") {
      if (is_core_field(field)) {
        parse_matrix(field, open.line);
      } else {
        skip_balanced("[", "]", "mpc." + field, open.line);
      }
    } else {
      if (is_core_field(field)) fail(open.line, "'[' starting numeric matrix mpc." + field, "'{'");
      skip_balanced("{", "}", "mpc." + field, open.line);
    }
    return;
  }
  // Generic statement: tokens up to ';' / ',' / newline at bracket depth 0.
  std::vector<Token> st;
  int depth = 0;
  const int first_line = t.line;
  for (;;) {
    const Token& u = peek();
    if (u.kind == Tok::kEnd) {
      if (depth > 0)
        fail(u.line, "closing bracket for the statement at line " + std::to_string(first_line),
             "end of file");
      break;
    }
    if (depth == 0 && (u.kind == Tok::kNewline || is_punct(u, ";") || is_punct(u, ","))) break;
    if (u.kind == Tok::kPunct && (u.text == "(" || u.text == "[" || u.text == "{")) ++depth;
    if (u.kind == Tok::kPunct && (u.text == ")" || u.text == "]" || u.text == "}")) --depth;
    if (u.kind == Tok::kNewline) {  // newline inside brackets: keep going
      ++pos_;
      continue;
    }
    st.push_back(u);
    ++pos_;
  }
  if (!st.empty()) execute(st);
}

void Parser::execute(const std::vector<Token>& st) {
  st_ = st;
  ep_ = 0;
  st_line_ = st.front().line;
  end_value_.reset();
  const Token& t0 = st.front();
  // `[A, B, ...] = idx_bus;` and other multi-assignments: the MATPOWER names are predefined.
  if (is_punct(t0, "[")) return;
  if (t0.kind != Tok::kIdent) return;
  if (t0.text == "mpc" && st.size() >= 3 && is_punct(st[1], ".") && st[2].kind == Tok::kIdent) {
    const std::string field = st[2].text;
    ep_ = 3;
    if (eat("=")) {
      if (field == "version") {
        if (et().kind == Tok::kStr && et().text != "2") {
          fail(et().line, "mpc.version = '2' (MATPOWER case format version 2)", describe(et()));
        }
        return;
      }
      if (field == "baseMVA") {
        base_mva_line_ = st_line_;
        const Val v = expr();
        if (et().kind != Tok::kEnd) efail("end of the mpc.baseMVA statement");
        if (!v.is_scalar()) fail(st_line_, "a scalar mpc.baseMVA", "a matrix");
        base_mva_ = v.v[0];
        return;
      }
      if (is_core_field(field)) {
        fail(st_line_, "'[' starting numeric matrix mpc." + field, describe(et()));
      }
      return;  // other fields (areas, bus_name, ...) are ignored
    }
    if (!is_core_field(field)) return;
    // mpc.field(rows, cols) = expr
    RawMat& m = mats_[field];
    if (!m.present) fail(st_line_, "mpc." + field + " to be defined before it is modified", "none");
    if (!eat("(")) efail("'(' or '=' after mpc." + field);
    const std::vector<int> ri = index_arg(static_cast<int>(m.rows.size()));
    if (!eat(",")) efail("',' between row and column indices of mpc." + field);
    const std::vector<int> ci = index_arg(m.cols);
    if (!eat(")")) efail("')' closing the index of mpc." + field);
    if (!eat("=")) efail("'=' after mpc." + field + "(...)");
    const Val v = expr();
    if (et().kind != Tok::kEnd) efail("end of statement");
    const int nr = static_cast<int>(ri.size()), nc = static_cast<int>(ci.size());
    if (!v.is_scalar() && (v.rows != nr || v.cols != nc)) {
      fail(st_line_, std::to_string(nr) + "x" + std::to_string(nc) + " value for mpc." + field,
           std::to_string(v.rows) + "x" + std::to_string(v.cols));
    }
    for (int a = 0; a < nr; ++a) {
      for (int b = 0; b < nc; ++b) {
        m.rows[ri[a] - 1][ci[b] - 1] = v.is_scalar() ? v.v[0] : v.v[a * v.cols + b];
      }
    }
    return;
  }
  // name = expr
  if (st.size() >= 2 && is_punct(st[1], "=")) {
    ep_ = 2;
    try {
      const Val v = expr();
      if (et().kind != Tok::kEnd) efail("end of statement");
      vars_[t0.text] = v;
    } catch (const ConfigError&) {
      vars_.erase(t0.text);  // unsupported expression: leave the name undefined
    }
  }
  // Anything else (function calls, control flow, ...) is ignored.
}

std::vector<int> Parser::index_arg(int extent) {
  std::vector<int> idx;
  if (is_punct(et(), ":") && (is_punct(et(1), ",") || is_punct(et(1), ")"))) {
    ++ep_;
    for (int k = 1; k <= extent; ++k) idx.push_back(k);
    return idx;
  }
  end_value_ = extent;
  const Val v = expr();
  end_value_.reset();
  for (double x : v.v) {
    if (x != std::floor(x) || x < 1 || x > extent) {
      fail(st_line_, "an index in 1.." + std::to_string(extent), std::to_string(x));
    }
    idx.push_back(static_cast<int>(x));
  }
  return idx;
}

Val Parser::binary(const Val& a, const Val& b, const std::string& op) const {
  const bool elementwise = op == "+" || op == "-" || op == ".*" || op == "./" || op == ".^";
  if (!a.is_scalar() && !b.is_scalar()) {
    if (!elementwise) fail(st_line_, "a scalar operand for '" + op + "'", "two matrices");
    if (a.rows != b.rows || a.cols != b.cols) {
      fail(st_line_, "operands of equal size for '" + op + "'", "mismatched sizes");
    }
  }
  if ((op == "/" || op == "^") && !b.is_scalar()) {
    fail(st_line_, "a scalar right operand for '" + op + "'", "a matrix");
  }
  if (op == "^" && !a.is_scalar()) fail(st_line_, "a scalar base for '^'", "a matrix");
  const Val& shape = a.is_scalar() ? b : a;
  Val r{shape.rows, shape.cols, std::vector<double>(shape.v.size())};
  for (size_t k = 0; k < r.v.size(); ++k) {
    const double x = a.is_scalar() ? a.v[0] : a.v[k];
    const double y = b.is_scalar() ? b.v[0] : b.v[k];
    if (op == "+")
      r.v[k] = x + y;
    else if (op == "-")
      r.v[k] = x - y;
    else if (op == "*" || op == ".*")
      r.v[k] = x * y;
    else if (op == "/" || op == "./")
      r.v[k] = x / y;
    else
      r.v[k] = std::pow(x, y);
  }
  return r;
}

Val Parser::expr() {
  Val a = term();
  for (;;) {
    if (eat("+"))
      a = binary(a, term(), "+");
    else if (eat("-"))
      a = binary(a, term(), "-");
    else
      return a;
  }
}

Val Parser::term() {
  Val a = unary();
  for (;;) {
    std::string op;
    for (const char* p : {"*", "/", ".*", "./"}) {
      if (is_punct(et(), p)) op = p;
    }
    if (op.empty()) return a;
    ++ep_;
    a = binary(a, unary(), op);
  }
}

Val Parser::unary() {
  if (eat("-")) {
    Val v = unary();
    for (double& x : v.v) x = -x;
    return v;
  }
  if (eat("+")) return unary();
  return power();
}

Val Parser::power() {
  Val a = primary();
  for (;;) {
    if (eat("'") || eat(".'")) {
      Val t{a.cols, a.rows, std::vector<double>(a.v.size())};
      for (int i = 0; i < a.rows; ++i)
        for (int j = 0; j < a.cols; ++j) t.v[j * a.rows + i] = a.v[i * a.cols + j];
      a = t;
    } else if (is_punct(et(), "^") || is_punct(et(), ".^")) {
      const std::string op = et().text;
      ++ep_;
      Val e = (is_punct(et(), "-") || is_punct(et(), "+")) ? unary() : primary();
      a = binary(a, e, op);
    } else {
      return a;
    }
  }
}

Val Parser::matrix_value(const std::string& field, int line) const {
  const auto it = mats_.find(field);
  if (it == mats_.end() || !it->second.present) {
    fail(line, "mpc." + field + " to be defined before use", "none");
  }
  const RawMat& m = it->second;
  Val v{static_cast<int>(m.rows.size()), m.cols, {}};
  for (const auto& r : m.rows) v.v.insert(v.v.end(), r.begin(), r.end());
  return v;
}

Val Parser::primary() {
  const Token t = et();
  if (t.kind == Tok::kNum) {
    ++ep_;
    return Val::scalar(t.num);
  }
  if (eat("(")) {
    Val v = expr();
    if (!eat(")")) efail("')'");
    return v;
  }
  if (eat("[")) {  // row vector of scalars, e.g. [BR_R BR_X] or [PD, QD]
    Val v{1, 0, {}};
    while (!eat("]")) {
      if (et().kind == Tok::kEnd) efail("']'");
      const Val e = expr();
      v.v.insert(v.v.end(), e.v.begin(), e.v.end());
      v.cols += static_cast<int>(e.v.size());
      eat(",");
    }
    return v;
  }
  if (t.kind != Tok::kIdent) efail("a number, name or '('");
  ++ep_;
  if (t.text == "mpc") {
    if (!eat(".") || et().kind != Tok::kIdent) efail("a field name after 'mpc.'");
    const std::string field = et().text;
    ++ep_;
    if (field == "baseMVA") {
      if (!base_mva_) fail(t.line, "mpc.baseMVA to be defined before use", "none");
      return Val::scalar(*base_mva_);
    }
    if (!is_core_field(field)) fail(t.line, "a numeric mpc field", "mpc." + field);
    const Val m = matrix_value(field, t.line);
    if (!eat("(")) return m;
    const auto saved_end = end_value_;
    const std::vector<int> ri = index_arg(m.rows);
    if (!eat(",")) efail("',' between row and column indices");
    const std::vector<int> ci = index_arg(m.cols);
    if (!eat(")")) efail("')'");
    end_value_ = saved_end;
    Val r{static_cast<int>(ri.size()), static_cast<int>(ci.size()), {}};
    for (int a : ri)
      for (int b : ci) r.v.push_back(m.v[(a - 1) * m.cols + (b - 1)]);
    return r;
  }
  if (t.text == "end" && end_value_) return Val::scalar(*end_value_);
  if (is_punct(et(), "(")) {  // elementwise function of one argument
    using Fn = double (*)(double);
    static const std::map<std::string, Fn> fns = {{"sin", [](double x) { return std::sin(x); }},
                                                  {"cos", [](double x) { return std::cos(x); }},
                                                  {"tan", [](double x) { return std::tan(x); }},
                                                  {"asin", [](double x) { return std::asin(x); }},
                                                  {"acos", [](double x) { return std::acos(x); }},
                                                  {"atan", [](double x) { return std::atan(x); }},
                                                  {"sqrt", [](double x) { return std::sqrt(x); }},
                                                  {"abs", [](double x) { return std::fabs(x); }},
                                                  {"exp", [](double x) { return std::exp(x); }},
                                                  {"log", [](double x) { return std::log(x); }},
                                                  {"log10", [](double x) { return std::log10(x); }}};
    const auto f = fns.find(t.text);
    if (f == fns.end()) fail(t.line, "a supported function", "'" + t.text + "('");
    ++ep_;
    Val v = expr();
    if (!eat(")")) efail("')'");
    for (double& x : v.v) x = f->second(x);
    return v;
  }
  if (const auto it = vars_.find(t.text); it != vars_.end()) return it->second;
  const auto& names = detail::matpower_names();
  if (const auto it = names.find(t.text); it != names.end()) return Val::scalar(it->second);
  fail(t.line, "a defined name", "'" + t.text + "'");
}

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

Case Parser::build() {
  const int last_line = toks_.back().line;
  for (const char* f : {"bus", "gen", "branch"}) {
    if (!mats_[f].present) {
      fail(last_line, std::string("an mpc.") + f + " matrix", "end of file without one");
    }
  }
  if (mats_["bus"].rows.empty()) fail(mats_["bus"].open_line, "at least one bus row", "none");
  if (!base_mva_) fail(last_line, "an mpc.baseMVA statement", "end of file without one");
  if (!(*base_mva_ > 0) || !std::isfinite(*base_mva_)) {
    std::ostringstream os;
    os << *base_mva_;
    fail(base_mva_line_, "mpc.baseMVA > 0", os.str());
  }
  Case c;
  c.base_mva = *base_mva_;
  c.name = func_name_;
  const RawMat& bm = mats_["bus"];
  std::unordered_map<int, int> id_line;
  for (size_t k = 0; k < bm.rows.size(); ++k) {
    const auto& r = bm.rows[k];
    const int line = bm.lines[k];
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
  auto check_bus = [&](double v, int line, const std::string& what) {
    const int id = as_id(v, file_, line, what);
    if (!id_line.count(id)) fail(line, what + " to be a bus id of mpc.bus", std::to_string(id));
    return id;
  };
  const RawMat& gm = mats_["gen"];
  for (size_t k = 0; k < gm.rows.size(); ++k) {
    const auto& r = gm.rows[k];
    Gen g;
    g.bus = check_bus(r[0], gm.lines[k], "gen bus");
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
  const RawMat& rm = mats_["branch"];
  for (size_t k = 0; k < rm.rows.size(); ++k) {
    const auto& r = rm.rows[k];
    Branch br;
    br.from = check_bus(r[0], rm.lines[k], "branch from-bus");
    br.to = check_bus(r[1], rm.lines[k], "branch to-bus");
    br.r_pu = r[2];
    br.x_pu = r[3];
    br.b_pu = r[4];
    br.rate_a_mva = r[5];
    br.rate_b_mva = r[6];
    br.rate_c_mva = r[7];
    br.tap = r[8];
    br.shift_deg = r[9];
    br.status = r[10] > 0 ? 1 : 0;
    if (r.size() >= 13) {
      br.angmin_deg = r[11];
      br.angmax_deg = r[12];
    }
    c.branch.push_back(br);
  }
  const RawMat& cm = mats_["gencost"];
  if (cm.present && !cm.rows.empty()) {
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
      gc.model = as_id(r[0], file_, line, "gencost MODEL");
      if (gc.model != 1 && gc.model != 2) {
        fail(line, "gencost MODEL 1 (piecewise linear) or 2 (polynomial)",
             std::to_string(gc.model));
      }
      gc.startup = r[1];
      gc.shutdown = r[2];
      const int ncost = as_id(r[3], file_, line, "gencost NCOST");
      const size_t need = 4 + static_cast<size_t>(std::max(ncost, 0)) * (gc.model == 1 ? 2 : 1);
      if (ncost < 0 || need > r.size()) {
        fail(line, std::to_string(need) + " columns for NCOST = " + std::to_string(ncost),
             std::to_string(r.size()));
      }
      gc.coeffs.assign(r.begin() + 4, r.begin() + static_cast<long>(need));
      c.gencost.push_back(gc);
    }
  }
  c.finalize();
  return c;
}

Case Parser::run() {
  while (peek().kind != Tok::kEnd) {
    const Token& t = peek();
    if (t.kind == Tok::kNewline || is_punct(t, ";") || is_punct(t, ",")) {
      ++pos_;
      continue;
    }
    statement();
  }
  return build();
}

}  // namespace

Case parse_case(std::string_view text, const std::string& file) {
  Parser p(text, file);
  Case c = p.run();
  if (c.name.empty()) c.name = std::filesystem::path(file).stem().string();
  return c;
}

}  // namespace pz::grid
