#include "core/expr.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>
#include <mutex>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace cl2 {

double as_double(const ExprValue& v) {
  return std::holds_alternative<double>(v) ? std::get<double>(v) : double(std::get<std::int64_t>(v));
}

std::int64_t as_int(const ExprValue& v) {
  if (std::holds_alternative<std::int64_t>(v)) return std::get<std::int64_t>(v);
  const double d = std::get<double>(v);
  if (d != std::floor(d)) throw std::invalid_argument(fmt::format("{} is not an integer", d));
  return static_cast<std::int64_t>(d);
}

bool as_bool(const ExprValue& v) { return as_double(v) != 0.0; }

int expr_slot(std::string_view name) {
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  static std::mutex mutex;
  static std::unordered_map<std::string, int, Hash, std::equal_to<>> slots;
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = slots.find(name); it != slots.end()) return it->second;
  const int slot = int(slots.size());
  slots.emplace(std::string(name), slot);
  return slot;
}

ExprVariables::ExprVariables(std::initializer_list<std::pair<std::string_view, ExprValue>> values) {
  for (const auto& [name, value] : values) (*this)[name] = value;
}

ExprValue& ExprVariables::at_slot(int slot) {
  const auto index = std::size_t(slot);
  if (index >= values_.size()) {
    values_.resize(index + 1);
    set_.resize(index + 1);
  }
  set_[index] = true;
  return values_[index];
}

const ExprValue& ExprVariables::at(std::string_view name) const {
  if (const ExprValue* value = find(expr_slot(name))) return *value;
  throw std::out_of_range(fmt::format("no variable {}", name));
}

// Operators and functions are resolved to an Op when parsed: search spaces evaluate expressions
// hundreds of thousands of times per shape, and comparing spellings made that the planner's cost.
enum class Op {
  None, Neg, Not, Or, And, Eq, Ne, Lt, Le, Gt, Ge, Add, Sub, Mul, Div, Mod,
  Min, Max, CeilDiv, RoundUp, Abs, Float, Log2, Ceil, Floor, UnknownFunction
};

struct Expr::Node {
  enum class Kind { Number, Variable, Unary, Binary, Ternary, Call } kind;
  ExprValue number{std::int64_t{0}};
  std::string name;  // variable, function, or operator spelling
  int slot = -1;     // a variable's (expr_slot)
  Op op = Op::None;
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;
using Kind = Expr::Node::Kind;

Op op_of(Kind kind, const std::string& name) {
  static const std::map<std::string, Op, std::less<>> binary = {
      {"||", Op::Or},  {"&&", Op::And}, {"==", Op::Eq},  {"!=", Op::Ne},  {"<", Op::Lt},  {"<=", Op::Le},
      {">", Op::Gt},   {">=", Op::Ge},  {"+", Op::Add},  {"-", Op::Sub},  {"*", Op::Mul}, {"/", Op::Div},
      {"%", Op::Mod}};
  static const std::map<std::string, Op, std::less<>> functions = {
      {"min", Op::Min},   {"max", Op::Max},     {"ceil_div", Op::CeilDiv}, {"round_up", Op::RoundUp},
      {"abs", Op::Abs},   {"float", Op::Float}, {"log2", Op::Log2},        {"ceil", Op::Ceil},
      {"floor", Op::Floor}};
  switch (kind) {
    case Kind::Unary: return name == "!" ? Op::Not : Op::Neg;
    case Kind::Binary: return binary.at(name);
    case Kind::Call: {
      auto it = functions.find(name);
      return it == functions.end() ? Op::UnknownFunction : it->second;
    }
    default: return Op::None;
  }
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  NodePtr parse_all() {
    NodePtr node = ternary();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text");
    return node;
  }

 private:
  const std::string& text_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const char* what) const {
    throw std::invalid_argument(
        fmt::format("expression '{}': {} at position {}", text_, what, pos_ + 1));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(std::string_view token) {
    skip_space();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    // "<" must not swallow the first character of "<=", nor "!" that of "!=".
    if (token.size() == 1 && pos_ + 1 < text_.size() && text_[pos_ + 1] == '=' &&
        (token == "<" || token == ">" || token == "!" || token == "="))
      return false;
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!accept(token)) fail(fmt::format("expected '{}'", token).c_str());
  }
  static NodePtr make(Kind kind, std::string name, std::vector<NodePtr> args) {
    auto node = std::make_shared<Expr::Node>();
    node->kind = kind;
    node->op = op_of(kind, name);
    if (kind == Kind::Variable) node->slot = expr_slot(name);
    node->name = std::move(name);
    node->args = std::move(args);
    return node;
  }

  NodePtr ternary() {
    NodePtr cond = logical_or();
    if (!accept("?")) return cond;
    NodePtr yes = ternary();
    expect(":");
    NodePtr no = ternary();
    return make(Kind::Ternary, "?", {cond, yes, no});
  }
  template <typename Next>
  NodePtr binary_level(std::initializer_list<std::string_view> ops, Next next) {
    NodePtr left = (this->*next)();
    for (;;) {
      bool matched = false;
      for (auto op : ops) {
        if (accept(op)) {
          left = make(Kind::Binary, std::string(op), {left, (this->*next)()});
          matched = true;
          break;
        }
      }
      if (!matched) return left;
    }
  }
  NodePtr logical_or() { return binary_level({"||"}, &Parser::logical_and); }
  NodePtr logical_and() { return binary_level({"&&"}, &Parser::comparison); }
  NodePtr comparison() {
    return binary_level({"==", "!=", "<=", ">=", "<", ">"}, &Parser::additive);
  }
  NodePtr additive() { return binary_level({"+", "-"}, &Parser::multiplicative); }
  NodePtr multiplicative() { return binary_level({"*", "/", "%"}, &Parser::unary); }
  NodePtr unary() {
    if (accept("-")) return make(Kind::Unary, "-", {unary()});
    if (accept("!")) return make(Kind::Unary, "!", {unary()});
    return primary();
  }
  NodePtr primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end");
    const char c = text_[pos_];
    if (accept("(")) {
      NodePtr inner = ternary();
      expect(")");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      std::string name = text_.substr(start, pos_ - start);
      if (!accept("(")) return make(Kind::Variable, name, {});
      std::vector<NodePtr> args;
      if (!accept(")")) {
        do args.push_back(ternary());
        while (accept(","));
        expect(")");
      }
      return make(Kind::Call, name, std::move(args));
    }
    fail("unexpected character");
  }
  NodePtr number() {
    const std::size_t start = pos_;
    bool is_double = false;
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
            text_[pos_] == 'e' || ((text_[pos_] == '-' || text_[pos_] == '+') && pos_ > start &&
                                   text_[pos_ - 1] == 'e'))) {
      is_double = is_double || text_[pos_] == '.' || text_[pos_] == 'e';
      ++pos_;
    }
    auto node = std::make_shared<Expr::Node>();
    node->kind = Kind::Number;
    const std::string digits = text_.substr(start, pos_ - start);
    try {
      node->number = is_double ? ExprValue(std::stod(digits)) : ExprValue(std::stoll(digits));
    } catch (const std::exception&) {
      fail("bad number");
    }
    return node;
  }
};

ExprValue arithmetic(Op op, const ExprValue& a, const ExprValue& b, const std::string& text) {
  switch (op) {
    case Op::Eq: return std::int64_t(as_double(a) == as_double(b));
    case Op::Ne: return std::int64_t(as_double(a) != as_double(b));
    case Op::Lt: return std::int64_t(as_double(a) < as_double(b));
    case Op::Le: return std::int64_t(as_double(a) <= as_double(b));
    case Op::Gt: return std::int64_t(as_double(a) > as_double(b));
    case Op::Ge: return std::int64_t(as_double(a) >= as_double(b));
    default: break;
  }
  if (std::holds_alternative<std::int64_t>(a) && std::holds_alternative<std::int64_t>(b)) {
    const std::int64_t x = std::get<std::int64_t>(a), y = std::get<std::int64_t>(b);
    if ((op == Op::Div || op == Op::Mod) && y == 0)
      throw std::invalid_argument(fmt::format("expression '{}': division by zero", text));
    switch (op) {
      case Op::Add: return x + y;
      case Op::Sub: return x - y;
      case Op::Mul: return x * y;
      case Op::Div: return x / y;
      case Op::Mod: return x % y;
      default: break;
    }
  } else {
    const double x = as_double(a), y = as_double(b);
    switch (op) {
      case Op::Add: return x + y;
      case Op::Sub: return x - y;
      case Op::Mul: return x * y;
      case Op::Div:
        if (y == 0.0) throw std::invalid_argument(fmt::format("expression '{}': division by zero", text));
        return x / y;
      case Op::Mod: throw std::invalid_argument(fmt::format("expression '{}': % needs integers", text));
      default: break;
    }
  }
  throw std::logic_error("unknown binary operator");
}

ExprValue call(const Expr::Node& node, std::span<const ExprValue> args, const std::string& text) {
  const std::string& name = node.name;
  auto need = [&](std::size_t n) {
    if (args.size() != n)
      throw std::invalid_argument(
          fmt::format("expression '{}': {}() takes {} arguments", text, name, n));
  };
  switch (node.op) {
    case Op::Min:
    case Op::Max: {
      if (args.empty()) throw std::invalid_argument(fmt::format("expression '{}': {}() of nothing", text, name));
      ExprValue best = args[0];
      for (const auto& v : args) {
        const bool better = node.op == Op::Min ? as_double(v) < as_double(best) : as_double(v) > as_double(best);
        if (better) best = v;
      }
      return best;
    }
    case Op::CeilDiv:
    case Op::RoundUp: {
      need(2);
      const std::int64_t x = as_int(args[0]), y = as_int(args[1]);
      if (y <= 0) throw std::invalid_argument(fmt::format("expression '{}': {}() by {}", text, name, y));
      const std::int64_t q = (x + y - 1) / y;
      return node.op == Op::CeilDiv ? q : q * y;
    }
    case Op::Abs:
      need(1);
      if (std::holds_alternative<std::int64_t>(args[0])) return std::int64_t(std::llabs(as_int(args[0])));
      return std::fabs(as_double(args[0]));
    case Op::Float: need(1); return as_double(args[0]);
    case Op::Log2: need(1); return std::log2(as_double(args[0]));
    case Op::Ceil: need(1); return std::int64_t(std::ceil(as_double(args[0])));
    case Op::Floor: need(1); return std::int64_t(std::floor(as_double(args[0])));
    default: break;
  }
  throw std::invalid_argument(fmt::format("expression '{}': unknown function {}()", text, name));
}

ExprValue evaluate(const Expr::Node& node, const ExprVariables& vars, const std::string& text) {
  switch (node.kind) {
    case Kind::Number: return node.number;
    case Kind::Variable: {
      const ExprValue* value = vars.find(node.slot);
      if (!value) throw std::invalid_argument(fmt::format("expression '{}': unknown name {}", text, node.name));
      return *value;
    }
    case Kind::Unary: {
      const ExprValue v = evaluate(*node.args[0], vars, text);
      if (node.op == Op::Not) return std::int64_t(!as_bool(v));
      if (std::holds_alternative<std::int64_t>(v)) return -std::get<std::int64_t>(v);
      return -std::get<double>(v);
    }
    case Kind::Binary: {
      if (node.op == Op::And)
        return std::int64_t(as_bool(evaluate(*node.args[0], vars, text)) &&
                            as_bool(evaluate(*node.args[1], vars, text)));
      if (node.op == Op::Or)
        return std::int64_t(as_bool(evaluate(*node.args[0], vars, text)) ||
                            as_bool(evaluate(*node.args[1], vars, text)));
      return arithmetic(node.op, evaluate(*node.args[0], vars, text),
                        evaluate(*node.args[1], vars, text), text);
    }
    case Kind::Ternary:
      return as_bool(evaluate(*node.args[0], vars, text)) ? evaluate(*node.args[1], vars, text)
                                                         : evaluate(*node.args[2], vars, text);
    case Kind::Call: {
      // On the stack where they fit: planning calls min, max and ceil_div millions of times a
      // shape, and a vector allocated per call took about 6% of planning.
      constexpr std::size_t kInline = 8;
      const std::size_t count = node.args.size();
      if (count > kInline) {
        std::vector<ExprValue> args;
        for (const auto& arg : node.args) args.push_back(evaluate(*arg, vars, text));
        return call(node, {args.data(), count}, text);
      }
      ExprValue args[kInline];
      for (std::size_t i = 0; i < count; ++i) args[i] = evaluate(*node.args[i], vars, text);
      return call(node, {args, count}, text);
    }
  }
  throw std::logic_error("unreachable expression node");
}

}  // namespace

Expr Expr::parse(const std::string& text) {
  Expr expr;
  expr.text_ = text;
  expr.root_ = Parser(text).parse_all();
  return expr;
}

ExprValue Expr::eval(const ExprVariables& vars) const { return evaluate(*root_, vars, text_); }

std::set<std::string> Expr::names() const {
  std::set<std::string> out;
  std::vector<const Node*> stack = {root_.get()};
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    if (node->kind == Kind::Variable) out.insert(node->name);
    for (const auto& arg : node->args) stack.push_back(arg.get());
  }
  return out;
}

}  // namespace cl2
