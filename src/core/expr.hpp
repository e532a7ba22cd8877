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
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace cl2 {

using ExprValue = std::variant<std::int64_t, double>;

double as_double(const ExprValue& value);
std::int64_t as_int(const ExprValue& value);  // throws if the value is a double with a fraction
bool as_bool(const ExprValue& value);

// Variable names are interned process-wide: each distinct name gets a small slot number the first
// time it is parsed or set, and an expression's variables are resolved to slots when it is parsed.
// Planning evaluates millions of expressions per shape, and hashing each name on each read was
// half of its time (perf on the H200 decode plans).
int expr_slot(std::string_view name);

// Values by slot. Setting by name interns the name (a lock and a hash); the planner's inner loop
// sets by slot.
class ExprVariables {
 public:
  ExprVariables() = default;
  ExprVariables(std::initializer_list<std::pair<std::string_view, ExprValue>> values);
  ExprValue& operator[](std::string_view name) { return at_slot(expr_slot(name)); }
  ExprValue& at_slot(int slot);
  // nullptr where the variable is not set.
  const ExprValue* find(int slot) const {
    return std::size_t(slot) < set_.size() && set_[std::size_t(slot)] ? &values_[std::size_t(slot)] : nullptr;
  }
  // Throws std::out_of_range naming the variable where it is not set.
  const ExprValue& at(std::string_view name) const;

 private:
  std::vector<ExprValue> values_;
  std::vector<bool> set_;
};

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
