// MATPOWER case statements' expression evaluator: index arguments, + - * / ^ with scalar
// broadcasting, transposes, mpc field reads, names and elementwise functions.
#include <cmath>
#include <map>
#include <sstream>

#include "powerzoo/grid/case/matpower_parser_impl.hpp"

namespace pz::grid::detail {
namespace {

// Counts one level of expression nesting for the life of the object.
struct Nesting {
  explicit Nesting(int& depth) : depth_(depth) { ++depth_; }
  ~Nesting() { --depth_; }
  Nesting(const Nesting&) = delete;
  Nesting& operator=(const Nesting&) = delete;
  int& depth_;
};

}  // namespace

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
      std::ostringstream os;
      os << x;
      fail(st_line_, "an index in 1.." + std::to_string(extent), os.str());
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
  const Nesting nest(depth_);
  if (depth_ > kMaxDepth)
    efail("an expression nested at most " + std::to_string(kMaxDepth) + " levels deep");
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

}  // namespace pz::grid::detail
