// MATPOWER case format v2 parser: the statement interpreter (function line, matrices, unit
// conversions) and parse_case; expressions are in matpower_expr.cpp, the Case in matpower_case.cpp.
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

#include "powerzoo/grid/case/matpower_parser_impl.hpp"

namespace pz::grid {
namespace detail {

using core::ConfigError;

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
    m.set_by.push_back(0);
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
  // Control flow would change what the file means (an `if 0` block, a `return` before the end):
  // MATPOWER case files do not use it, so it is refused rather than run line by line.
  static const std::set<std::string> kControl = {
      "if",     "elseif", "else",  "switch", "case",  "otherwise", "while", "for",
      "parfor", "try",    "catch", "return", "break", "continue",  "do",    "until"};
  if (t.kind == Tok::kIdent && kControl.count(t.text))
    fail(t.line, "a MATPOWER case statement (control flow is not evaluated)", "'" + t.text + "'");
  if (t.kind == Tok::kIdent && (t.text == "end" || t.text == "endfunction")) {
    // Only as the end of the case function: nothing but blank lines may follow.
    size_t k = pos_ + 1;
    while (k < toks_.size() && (toks_[k].kind == Tok::kNewline || is_punct(toks_[k], ";"))) ++k;
    if (k < toks_.size() && toks_[k].kind != Tok::kEnd)
      fail(toks_[k].line,
           "nothing after the 'end' of the case function at line " + std::to_string(t.line),
           describe(toks_[k]));
    pos_ = k;
    return;
  }
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
      // A bracketed baseMVA was skipped as an unknown matrix, and the case then "had no
      // baseMVA statement" at its last line.
      if (field == "baseMVA") {
        fail(open.line, "a number for mpc.baseMVA (mpc.baseMVA = 100;)", "a bracketed matrix");
      }
      if (is_core_field(field)) {
        parse_matrix(field, open.line);
        // MATLAB would transpose the matrix; we read rows as written, so refuse it.
        if (is_punct(peek(), "'") || is_punct(peek(), ".'"))
          fail(peek().line, "a row per line in mpc." + field + " (no transpose)", "']''");
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
  depth_ = 0;
  ep_ = 0;
  st_line_ = st.front().line;
  end_value_.reset();
  const Token& t0 = st.front();
  // `[A, B, ...] = idx_bus;` and other multi-assignments: the MATPOWER names are predefined.
  if (is_punct(t0, "[")) return;
  if (t0.kind != Tok::kIdent) return;
  // `mpc = struct();` would replace the whole case in MATLAB; it was skipped.
  if (t0.text == "mpc" && st.size() >= 2 && is_punct(st[1], "="))
    fail(st_line_, "assignments to fields of mpc (mpc.bus = ...)", "an assignment to mpc itself");
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
      m.set_by[ri[a] - 1] = st_line_;
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

Case Parser::run() {
  for (const Token& t : toks_) {  // outside comments and strings a case file is ASCII
    if (t.kind != Tok::kBad) continue;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s byte 0x%02X",
                  static_cast<unsigned char>(t.text[0]) >= 0x80 ? "non-ASCII" : "control",
                  static_cast<unsigned char>(t.text[0]));
    fail(t.line, "ASCII text outside comments and strings", buf);
  }
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

}  // namespace detail

Case parse_case(std::string_view text, const std::string& file) {
  detail::Parser p(text, file);
  Case c = p.run();
  if (c.name.empty()) c.name = std::filesystem::path(file).stem().string();
  return c;
}

}  // namespace pz::grid
