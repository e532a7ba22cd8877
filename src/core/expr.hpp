#pragma once
// A small arithmetic language for search-space files: constraints, launch geometry, shared memory
// and cost models are written as expressions over the parameters, the problem (M, N, K, ...) and
// the device (NUM_SMS, SMEM_OPTIN, ...), so that adding a template family needs no driver code.
//
// Values are 64-bit integers or doubles with C semantics (int op int stays int, / truncates, %
// needs ints; any double makes the result a double). Operators, lowest precedence first:
//   ?:   ||   &&   == != < <= > >=   + -   * / %   unary - !
// Functions: min(a,b,...), max(a,b,...), ceil_div(a,b), round_up(a,b), abs(a), float(a), log2(a),
// ceil(a), floor(a).
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>

namespace cl2 {

using ExprValue = std::variant<std::int64_t, double>;

double as_double(const ExprValue& value);
std::int64_t as_int(const ExprValue& value);  // throws if the value is a double with a fraction
bool as_bool(const ExprValue& value);

// Looked up by name on every variable an expression reads: planning evaluates millions of
// expressions per shape, so a hash map (names compared as views, no string built per lookup).
struct ExprNameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
};
using ExprVariables = std::unordered_map<std::string, ExprValue, ExprNameHash, std::equal_to<>>;

class Expr {
 public:
  struct Node;
  // Throws std::invalid_argument naming the text and the position on a syntax error.
  static Expr parse(const std::string& text);
  // Throws std::invalid_argument on an unknown variable or function, or a division by zero.
  ExprValue eval(const ExprVariables& vars) const;
  const std::string& text() const { return text_; }
  // Every variable name the expression reads (function names excluded).
  std::set<std::string> names() const;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace cl2
