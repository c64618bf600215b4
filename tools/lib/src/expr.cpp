// Recursive-descent parser and evaluator for lane expressions (see expr.hpp).
#include "banklab_cli/expr.hpp"

#include "banklab/pattern_io.hpp"

#include <charconv>
#include <limits>

namespace banklab::cli {
namespace {

using Kind = LaneExpr::Kind;
using Node = LaneExpr::Node;

class Parser {
 public:
  Parser(std::string_view text, std::vector<Node>& nodes) : s_(text), nodes_(nodes) {}

  int parse_all() {
    const int root = parse_or();
    skip_space();
    if (pos_ < s_.size()) {
      if (s_[pos_] == ')') fail("unmatched ')'");
      fail("expected an operator or the end of the expression, found " +
           quote_token(s_.substr(pos_, 8)));
    }
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    const int col = static_cast<int>(pos_) + 1;
    throw ExprError(col, "column " + std::to_string(col) + ": " + what);
  }

  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }

  // Consume `op` (1 or 2 characters) when it comes next, but not when it is the start of a
  // longer operator (`<` of `<<` is not an operator by itself anyway).
  bool accept(std::string_view op) {
    skip_space();
    if (s_.substr(pos_, op.size()) != op) return false;
    pos_ += op.size();
    return true;
  }

  int add(Kind k, int lhs, int rhs, std::int64_t value, int column) {
    Node n;
    n.kind = k;
    n.lhs = lhs;
    n.rhs = rhs;
    n.value = value;
    n.column = column;
    nodes_.push_back(n);
    return static_cast<int>(nodes_.size()) - 1;
  }

  struct Depth {
    explicit Depth(Parser& p) : p_(p) {
      if (++p_.depth_ > LaneExpr::kMaxDepth)
        p_.fail("expression nested deeper than " + std::to_string(LaneExpr::kMaxDepth) + " levels");
    }
    ~Depth() { --p_.depth_; }
    Parser& p_;
  };

  template <typename Next>
  int binary_level(Next next, std::initializer_list<std::pair<std::string_view, Kind>> ops) {
    int lhs = (this->*next)();
    for (;;) {
      skip_space();
      bool found = false;
      for (const auto& [text, kind] : ops) {
        const int col = static_cast<int>(pos_) + 1;
        if (accept(text)) {
          const int rhs = (this->*next)();
          lhs = add(kind, lhs, rhs, 0, col);
          found = true;
          break;
        }
      }
      if (!found) return lhs;
    }
  }

  int parse_or() { return binary_level(&Parser::parse_xor, {{"|", Kind::Or}}); }
  int parse_xor() { return binary_level(&Parser::parse_and, {{"^", Kind::Xor}}); }
  int parse_and() { return binary_level(&Parser::parse_shift, {{"&", Kind::And}}); }
  int parse_shift() {
    return binary_level(&Parser::parse_sum, {{"<<", Kind::Shl}, {">>", Kind::Shr}});
  }
  int parse_sum() { return binary_level(&Parser::parse_term, {{"+", Kind::Add}, {"-", Kind::Sub}}); }
  int parse_term() {
    return binary_level(&Parser::parse_unary, {{"*", Kind::Mul}, {"/", Kind::Div}, {"%", Kind::Mod}});
  }

  int parse_unary() {
    Depth guard(*this);
    skip_space();
    const int col = static_cast<int>(pos_) + 1;
    if (accept("-")) return add(Kind::Neg, parse_unary(), -1, 0, col);
    if (accept("+")) return add(Kind::Plus, parse_unary(), -1, 0, col);
    if (accept("~")) return add(Kind::Not, parse_unary(), -1, 0, col);
    return parse_atom();
  }

  static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }

  int parse_atom() {
    skip_space();
    const int col = static_cast<int>(pos_) + 1;
    if (pos_ >= s_.size()) {
      fail(pos_ == 0 ? std::string("the expression is empty (try \"lane*4\")")
                     : std::string("expected a number, 'lane' or '(' but the expression ends"));
    }
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      const int inner = parse_or();
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != ')') {
        if (pos_ >= s_.size()) fail("missing ')' for the '(' at column " + std::to_string(col));
        fail("expected ')' for the '(' at column " + std::to_string(col) + ", found " +
             quote_token(s_.substr(pos_, 8)));
      }
      ++pos_;
      return inner;
    }
    if (c >= '0' && c <= '9') {
      std::size_t end = pos_;
      while (end < s_.size() && is_ident_char(s_[end])) ++end;
      std::string_view tok = s_.substr(pos_, end - pos_);
      int base = 10;
      std::string_view digits = tok;
      if (tok.size() >= 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
        base = 16;
        digits.remove_prefix(2);
      }
      std::int64_t v = 0;
      const char* last = digits.data() + digits.size();
      auto [p, ec] = std::from_chars(digits.data(), last, v, base);
      if (digits.empty() || p != last || ec == std::errc::invalid_argument)
        fail(quote_token(tok) + " is not a number (decimal, or hexadecimal with 0x)");
      if (ec == std::errc::result_out_of_range) fail("number " + quote_token(tok) + " is too large");
      pos_ = end;
      return add(Kind::Number, -1, -1, v, col);
    }
    if (is_ident_char(c)) {
      std::size_t end = pos_;
      while (end < s_.size() && is_ident_char(s_[end])) ++end;
      const std::string_view name = s_.substr(pos_, end - pos_);
      if (name != "lane") fail("unknown name " + quote_token(name) + " (the only variable is 'lane')");
      pos_ = end;
      return add(Kind::Lane, -1, -1, 0, col);
    }
    if (c == ')') fail("expected a number, 'lane' or '(' before ')'");
    fail("unexpected character " + quote_token(s_.substr(pos_, 1)) +
         " (operators: + - * / % & | ^ << >> ~ and parentheses)");
  }

  std::string_view s_;
  std::vector<Node>& nodes_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

LaneExpr LaneExpr::parse(std::string_view text) {
  if (text.size() > kMaxLength)
    throw ExprError(static_cast<int>(kMaxLength) + 1,
                    "the expression is longer than " + std::to_string(kMaxLength) + " characters");
  LaneExpr e;
  Parser p(text, e.nodes_);
  e.root_ = p.parse_all();
  return e;
}

std::int64_t LaneExpr::eval(std::int64_t lane) const {
  return eval_node(root_, lane);
}

std::int64_t LaneExpr::eval_node(int index, std::int64_t lane) const {
  const Node& n = nodes_[static_cast<std::size_t>(index)];
  auto err = [&](const std::string& what) -> ExprError {
    return ExprError(n.column, "lane " + std::to_string(lane) + ": " + what + " (column " +
                                   std::to_string(n.column) + ")");
  };
  switch (n.kind) {
    case Kind::Number: return n.value;
    case Kind::Lane: return lane;
    default: break;
  }
  const std::int64_t a = eval_node(n.lhs, lane);
  std::int64_t r = 0;
  switch (n.kind) {
    case Kind::Neg:
      if (__builtin_sub_overflow(std::int64_t{0}, a, &r)) throw err("overflow in '-'");
      return r;
    case Kind::Plus: return a;
    case Kind::Not: return ~a;
    default: break;
  }
  const std::int64_t b = eval_node(n.rhs, lane);
  switch (n.kind) {
    case Kind::Add:
      if (__builtin_add_overflow(a, b, &r)) throw err("overflow in '+'");
      return r;
    case Kind::Sub:
      if (__builtin_sub_overflow(a, b, &r)) throw err("overflow in '-'");
      return r;
    case Kind::Mul:
      if (__builtin_mul_overflow(a, b, &r)) throw err("overflow in '*'");
      return r;
    case Kind::Div:
    case Kind::Mod:
      if (b == 0) throw err(n.kind == Kind::Div ? "division by zero" : "remainder of division by zero");
      if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
        if (n.kind == Kind::Mod) return 0;
        throw err("overflow in '/'");
      }
      return n.kind == Kind::Div ? a / b : a % b;
    case Kind::Shl:
    case Kind::Shr: {
      if (b < 0 || b > 62)
        throw err("shift by " + std::to_string(b) + " (a shift count must be 0 to 62)");
      if (n.kind == Kind::Shr) return a >> b;  // arithmetic for negative values (C++20 rule)
      if (a < 0) throw err("left shift of a negative value");
      if (a > (std::numeric_limits<std::int64_t>::max() >> b)) throw err("overflow in '<<'");
      return a << b;
    }
    case Kind::And: return a & b;
    case Kind::Xor: return a ^ b;
    case Kind::Or: return a | b;
    default: break;
  }
  throw err("internal error: unknown operator");
}

WarpAccess access_from_expression(Op op, int width, std::uint32_t mask, std::string_view text) {
  const LaneExpr e = LaneExpr::parse(text);
  WarpAccess a;
  a.op = op;
  a.width = width;
  a.mask = mask;
  for (int i = 0; i < kWarpSize; ++i) {
    if (!((mask >> i) & 1u)) continue;  // inactive lanes: offset 0, never evaluated
    const std::int64_t v = e.eval(i);
    if (v < 0)
      throw ExprError(0, "lane " + std::to_string(i) + ": byte offset " + std::to_string(v) +
                             " is negative");
    if (v > static_cast<std::int64_t>(kMaxSharedBytesPerBlock))
      throw ExprError(0, "lane " + std::to_string(i) + ": byte offset " + std::to_string(v) +
                             " is beyond the largest shared memory of a block (" +
                             std::to_string(kMaxSharedBytesPerBlock) + " bytes)");
    a.offset[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(v);
  }
  if (auto problem = validate(a)) throw ExprError(0, *problem);
  return a;
}

}  // namespace banklab::cli
