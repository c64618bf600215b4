/// @file expr.hpp
/// @brief The lane expressions of `banklab explain ld 4 "lane*33*4"`: a small integer
///        expression language over the variable `lane`, giving each lane's BYTE offset.
///
/// Grammar (C precedence and associativity, lowest first):
/// @verbatim
///   expr   := xor ('|' xor)*
///   xor    := and ('^' and)*
///   and    := shift ('&' shift)*
///   shift  := sum (('<<' | '>>') sum)*
///   sum    := term (('+' | '-') term)*
///   term   := unary (('*' | '/' | '%') unary)*
///   unary  := ('-' | '+' | '~') unary | atom
///   atom   := NUMBER | 'lane' | '(' expr ')'
///   NUMBER := decimal digits | '0x' hex digits
/// @endverbatim
/// Values are 64-bit signed integers. Overflow, division by zero and shifts outside 0..62 are
/// errors (never undefined behaviour); `/` and `%` truncate toward zero as in C.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "banklab/model.hpp"

namespace banklab::cli {

/// A syntax or evaluation error in a lane expression. `what()` reads
/// "column N: problem" (syntax) or "lane L: problem" (evaluation).
class ExprError : public std::runtime_error {
 public:
  ExprError(int column, const std::string& what) : std::runtime_error(what), column_(column) {}
  /// 1-based column of the problem in the expression text (0 when it is not about a place).
  int column() const { return column_; }

 private:
  int column_;
};

/// A parsed lane expression.
class LaneExpr {
 public:
  /// Parse `text`. @throws ExprError with the column of the first problem.
  static LaneExpr parse(std::string_view text);

  /// The value for `lane`. @throws ExprError on overflow, division by zero or a bad shift.
  std::int64_t eval(std::int64_t lane) const;

  /// Longest expression accepted, and deepest nesting of parentheses / unary operators.
  static constexpr std::size_t kMaxLength = 4096;
  static constexpr int kMaxDepth = 200;

  enum class Kind : std::uint8_t {
    Number, Lane, Neg, Plus, Not, Add, Sub, Mul, Div, Mod, Shl, Shr, And, Xor, Or
  };
  struct Node {
    Kind kind = Kind::Number;
    int lhs = -1;            ///< operand (unary) or left operand (binary): index into nodes
    int rhs = -1;            ///< right operand (binary)
    std::int64_t value = 0;  ///< Number
    int column = 0;          ///< where the operator or number starts, 1-based
  };

 private:
  std::int64_t eval_node(int n, std::int64_t lane) const;
  std::vector<Node> nodes_;
  int root_ = -1;
};

/// The access whose lane `i` is at byte offset `expr(i)` (inactive lanes get offset 0 and are
/// not evaluated at all).
/// @throws ExprError on a syntax error, an evaluation error in an active lane, a negative or
///         too large offset, or an offset the model rejects (misaligned, beyond shared memory).
WarpAccess access_from_expression(Op op, int width, std::uint32_t mask, std::string_view expr);

}  // namespace banklab::cli
