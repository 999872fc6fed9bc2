// Lexer of MATPOWER case files and the column names their statements use.
#include "powerzoo/grid/case/matpower_lexer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <string_view>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::grid::detail {
namespace {

// A line that holds only "%{" (or "#{") and blanks opens a block comment; "%}" closes it.
bool block_comment_is(std::string_view s, size_t i, char brace) {
  size_t b = s.rfind('\n', i == 0 ? 0 : i - 1);
  b = (b == std::string_view::npos || i == 0) ? 0 : b + 1;
  for (size_t k = b; k < i; ++k)
    if (s[k] != ' ' && s[k] != '\t') return false;
  if (i + 1 >= s.size() || s[i + 1] != brace) return false;
  for (size_t k = i + 2; k < s.size() && s[k] != '\n'; ++k)
    if (s[k] != ' ' && s[k] != '\t' && s[k] != '\r') return false;
  return true;
}
bool block_comment_opens(std::string_view s, size_t i) {
  return (s[i] == '%' || s[i] == '#') && block_comment_is(s, i, '{');
}
bool block_comment_closes(std::string_view s, size_t i) {
  return (s[i] == '%' || s[i] == '#') && block_comment_is(s, i, '}');
}

}  // namespace

namespace {

using core::ConfigError;

bool is_ident_start(char ch) { return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_'; }
bool is_ident_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }
bool is_digit(char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; }

// Classic Mac line ends (a lone CR) are line ends: a CR-only file lexed as one comment line.
// Returns `text`, or `buffer` holding it with each lone CR made an LF.
std::string_view unify_line_ends(std::string_view text, std::string& buffer) {
  if (text.find('\r') == std::string_view::npos) return text;
  buffer.assign(text);
  for (size_t k = 0; k < buffer.size(); ++k)
    if (buffer[k] == '\r' && (k + 1 == buffer.size() || buffer[k + 1] != '\n')) buffer[k] = '\n';
  return buffer;
}

}  // namespace

std::vector<Token> lex(std::string_view text) {
  std::string unified;
  const std::string_view s = unify_line_ends(text, unified);
  std::vector<Token> out;
  int line = 1;
  size_t i = 0;
  const size_t n = s.size();
  bool prev_adjacent = false;  // previous token ended right before the current position
  auto push = [&](Tok k, std::string text, double num = 0) {
    out.push_back(Token{k, std::move(text), num, line});
  };
  while (i < n) {
    const char ch = s[i];
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
      ++i;
      prev_adjacent = false;
      continue;
    }
    if ((ch == '%' || ch == '#') && block_comment_opens(s, i)) {  // %{ ... %} (nested)
      int depth = 0;
      do {
        size_t k = i;
        while (k < n && (s[k] == ' ' || s[k] == '\t')) ++k;
        if (k < n && block_comment_opens(s, k))
          ++depth;
        else if (k < n && block_comment_closes(s, k))
          --depth;
        i = std::min(s.find('\n', i), n);
        if (i < n) {
          push(Tok::kNewline, "\\n");
          ++line;
          ++i;
        }
      } while (depth > 0 && i < n);
      prev_adjacent = false;
      continue;
    }
    if (ch == '%' || ch == '#') {  // comment to end of line (Octave also accepts '#')
      while (i < n && s[i] != '\n') ++i;
      prev_adjacent = false;
      continue;
    }
    if (ch == '\n') {
      push(Tok::kNewline, "\\n");
      ++line;
      ++i;
      prev_adjacent = false;
      continue;
    }
    if (s.substr(i, 3) == "...") {  // line continuation: drop the rest of the line and the newline
      while (i < n && s[i] != '\n') ++i;
      if (i < n) {
        ++line;
        ++i;
      }
      prev_adjacent = false;
      continue;
    }
    if (is_digit(ch) || (ch == '.' && i + 1 < n && is_digit(s[i + 1]))) {
      const size_t start = i;
      while (i < n && is_digit(s[i])) ++i;
      if (i < n && s[i] == '.' &&
          !(i + 1 < n &&
            (s[i + 1] == '*' || s[i + 1] == '/' || s[i + 1] == '^' || s[i + 1] == '\''))) {
        ++i;
        while (i < n && is_digit(s[i])) ++i;
      }
      if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
        if (j < n && is_digit(s[j])) {
          i = j;
          while (i < n && is_digit(s[i])) ++i;
        }
      }
      if (i < n && is_ident_start(s[i])) {  // e.g. "12abc": one malformed token
        while (i < n && (is_ident_char(s[i]) || s[i] == '.')) ++i;
        push(Tok::kIdent, std::string(s.substr(start, i - start)));
      } else {
        const std::string text(s.substr(start, i - start));
        push(Tok::kNum, text, std::strtod(text.c_str(), nullptr));
      }
      prev_adjacent = true;
      continue;
    }
    if (is_ident_start(ch)) {
      const size_t start = i;
      while (i < n && is_ident_char(s[i])) ++i;
      push(Tok::kIdent, std::string(s.substr(start, i - start)));
      prev_adjacent = true;
      continue;
    }
    if (ch == '\'' || ch == '"') {
      const bool transpose =
          ch == '\'' && prev_adjacent && !out.empty() &&
          (out.back().kind == Tok::kIdent || out.back().kind == Tok::kNum ||
           (out.back().kind == Tok::kPunct &&
            (out.back().text == ")" || out.back().text == "]" || out.back().text == "}")));
      if (transpose) {
        push(Tok::kPunct, "'");
        ++i;
        prev_adjacent = true;
        continue;
      }
      std::string text;
      ++i;
      while (i < n && s[i] != '\n') {
        if (s[i] == ch) {
          if (i + 1 < n && s[i + 1] == ch) {  // doubled quote = literal quote
            text += ch;
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        text += s[i++];
      }
      push(Tok::kStr, text);
      prev_adjacent = true;
      continue;
    }
    if (static_cast<unsigned char>(ch) >= 0x80 || static_cast<unsigned char>(ch) < 0x20 ||
        ch == 0x7F) {
      push(Tok::kBad, std::string(1, ch));
      ++i;
      prev_adjacent = false;
      continue;
    }
    static const char* kTwo[] = {".*", "./", ".^", ".'", "==", "~=", "!=", "<=", ">=", "&&", "||"};
    bool two = false;
    for (const char* t : kTwo) {
      if (s.substr(i, 2) == t) {
        push(Tok::kPunct, t);
        i += 2;
        two = true;
        break;
      }
    }
    if (!two) push(Tok::kPunct, std::string(1, ch)), ++i;
    prev_adjacent = true;
  }
  out.push_back(Token{Tok::kEnd, "", 0, line});
  return out;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd:
      return "end of file";
    case Tok::kNewline:
      return "end of line";
    case Tok::kStr:
      return "string '" + core::echo(t.text) + "'";
    default:
      return "'" + core::echo(t.text) + "'";
  }
}

const std::map<std::string, double>& matpower_names() {
  static const std::map<std::string, double> names = {
      // idx_bus
      {"PQ", 1},
      {"PV", 2},
      {"REF", 3},
      {"NONE", 4},
      {"BUS_I", 1},
      {"BUS_TYPE", 2},
      {"PD", 3},
      {"QD", 4},
      {"GS", 5},
      {"BS", 6},
      {"BUS_AREA", 7},
      {"VM", 8},
      {"VA", 9},
      {"BASE_KV", 10},
      {"ZONE", 11},
      {"VMAX", 12},
      {"VMIN", 13},
      {"LAM_P", 14},
      {"LAM_Q", 15},
      {"MU_VMAX", 16},
      {"MU_VMIN", 17},
      // idx_gen
      {"GEN_BUS", 1},
      {"PG", 2},
      {"QG", 3},
      {"QMAX", 4},
      {"QMIN", 5},
      {"VG", 6},
      {"MBASE", 7},
      {"GEN_STATUS", 8},
      {"PMAX", 9},
      {"PMIN", 10},
      {"PC1", 11},
      {"PC2", 12},
      {"QC1MIN", 13},
      {"QC1MAX", 14},
      {"QC2MIN", 15},
      {"QC2MAX", 16},
      {"RAMP_AGC", 17},
      {"RAMP_10", 18},
      {"RAMP_30", 19},
      {"RAMP_Q", 20},
      {"APF", 21},
      {"MU_PMAX", 22},
      {"MU_PMIN", 23},
      {"MU_QMAX", 24},
      {"MU_QMIN", 25},
      // idx_brch
      {"F_BUS", 1},
      {"T_BUS", 2},
      {"BR_R", 3},
      {"BR_X", 4},
      {"BR_B", 5},
      {"RATE_A", 6},
      {"RATE_B", 7},
      {"RATE_C", 8},
      {"TAP", 9},
      {"SHIFT", 10},
      {"BR_STATUS", 11},
      {"ANGMIN", 12},
      {"ANGMAX", 13},
      {"PF", 14},
      {"QF", 15},
      {"PT", 16},
      {"QT", 17},
      {"MU_SF", 18},
      {"MU_ST", 19},
      {"MU_ANGMIN", 20},
      {"MU_ANGMAX", 21},
      // idx_cost
      {"PW_LINEAR", 1},
      {"POLYNOMIAL", 2},
      {"MODEL", 1},
      {"STARTUP", 2},
      {"SHUTDOWN", 3},
      {"NCOST", 4},
      {"COST", 5},
      // constants
      {"pi", std::numbers::pi},
      {"Inf", std::numeric_limits<double>::infinity()},
      {"inf", std::numeric_limits<double>::infinity()},
      {"NaN", std::numeric_limits<double>::quiet_NaN()},
      {"nan", std::numeric_limits<double>::quiet_NaN()}};
  return names;
}

}  // namespace pz::grid::detail
