// Lexer of MATPOWER case files (the subset of MATLAB syntax that case files use).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pz::grid::detail {

/// kBad: a byte that has no place in case code (non-ASCII or a control character outside a
/// comment or string); the parser refuses the file at its line.
enum class Tok { kNum, kIdent, kStr, kPunct, kNewline, kEnd, kBad };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  ///< identifier / punctuation / string contents / number spelling
  double num = 0;
  int line = 1;
};

/// Tokens of `s` ending with a kEnd token; comments dropped, line numbers kept. Throws
/// core::ConfigError on an unterminated string or a malformed number (no file name: the
/// parser adds it).
std::vector<Token> lex(std::string_view s);

/// How a token is named in error messages ("end of file", "'['", "string 'x'").
std::string describe(const Token& t);

/// MATPOWER's named column indices (idx_bus, idx_gen, idx_brch, idx_cost), 1-based, and the
/// bus-type constants, as case files' statements use them (e.g. `mpc.bus(:, [PD, QD])`).
const std::map<std::string, double>& matpower_names();

}  // namespace pz::grid::detail
