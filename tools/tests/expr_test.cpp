// The lane-expression evaluator of `banklab explain ld 4 "lane*33*4"`.
#include "banklab_cli/expr.hpp"

#include <gtest/gtest.h>

namespace banklab::cli {
namespace {

std::int64_t eval(const char* text, std::int64_t lane = 0) { return LaneExpr::parse(text).eval(lane); }

int error_column(const char* text) {
  try {
    LaneExpr::parse(text);
  } catch (const ExprError& e) {
    return e.column();
  }
  return -1;
}

TEST(LaneExpression, LaneIsTheVariable) { EXPECT_EQ(eval("lane", 7), 7); }

TEST(LaneExpression, MultiplicationBindsTighterThanAddition) { EXPECT_EQ(eval("1 + lane*33*4", 2), 265); }

TEST(LaneExpression, ParenthesesGroup) { EXPECT_EQ(eval("(lane + 1) * 4", 3), 16); }

TEST(LaneExpression, HexConstantsAreAccepted) { EXPECT_EQ(eval("0x10 + 0XfF"), 16 + 255); }

TEST(LaneExpression, ShiftsBindLooserThanAdditionAsInC) { EXPECT_EQ(eval("1 << 2 + 1"), 8); }

TEST(LaneExpression, BitwiseOperatorsFollowCPrecedence) {
  // & before ^ before |
  EXPECT_EQ(eval("1 | 2 ^ 3 & 6"), 1 | (2 ^ (3 & 6)));
}

TEST(LaneExpression, XorSwizzleOfAColumnEvaluatesPerLane) {
  EXPECT_EQ(eval("((lane ^ (lane >> 3)) & 31) * 4", 9), ((9 ^ (9 >> 3)) & 31) * 4);
}

TEST(LaneExpression, UnaryMinusAndComplementWork) {
  EXPECT_EQ(eval("-lane + 40", 8), 32);
  EXPECT_EQ(eval("~lane & 31", 5), 26);
}

TEST(LaneExpression, DivisionAndRemainderTruncateLikeC) {
  EXPECT_EQ(eval("lane / 2", 7), 3);
  EXPECT_EQ(eval("lane % 8", 13), 5);
  EXPECT_EQ(eval("-7 / 2"), -3);
}

TEST(LaneExpression, OperatorsOfTheSameLevelAssociateLeft) { EXPECT_EQ(eval("100 - 10 - 1"), 89); }

TEST(LaneExpression, AnEmptyExpressionIsAnErrorAtColumnOne) { EXPECT_EQ(error_column(""), 1); }

TEST(LaneExpression, AMissingOperandIsReportedWhereTheExpressionEnds) { EXPECT_EQ(error_column("lane*"), 6); }

TEST(LaneExpression, AnUnclosedParenthesisIsAnError) { EXPECT_EQ(error_column("(lane"), 6); }

TEST(LaneExpression, AnUnmatchedClosingParenthesisIsAnError) { EXPECT_EQ(error_column("lane)"), 5); }

TEST(LaneExpression, AnUnknownNameIsAnErrorNamingIt) {
  try {
    LaneExpr::parse("tid*4");
    FAIL() << "no error";
  } catch (const ExprError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown name 'tid'"), std::string::npos) << e.what();
  }
}

TEST(LaneExpression, AnUnknownCharacterIsAnError) { EXPECT_EQ(error_column("lane $ 4"), 6); }

TEST(LaneExpression, AMalformedNumberIsAnError) { EXPECT_EQ(error_column("0xg1"), 1); }

TEST(LaneExpression, ATooLargeNumberIsAnError) { EXPECT_EQ(error_column("99999999999999999999"), 1); }

TEST(LaneExpression, DivisionByZeroIsAnErrorNamingTheLane) {
  const LaneExpr e = LaneExpr::parse("4 / (lane - 3)");
  EXPECT_EQ(e.eval(2), -4);
  EXPECT_THROW(e.eval(3), ExprError);
}

TEST(LaneExpression, OverflowIsAnErrorNotUndefinedBehaviour) {
  EXPECT_THROW(eval("0x7fffffffffffffff + 1"), ExprError);
  EXPECT_THROW(eval("0x7fffffffffffffff * 2"), ExprError);
  EXPECT_THROW(eval("1 << 63"), ExprError);
  EXPECT_THROW(eval("1 << -1"), ExprError);
}

TEST(LaneExpression, DeepNestingIsAnErrorNotAStackOverflow) {
  EXPECT_THROW(LaneExpr::parse(std::string(100000, '(') + "lane"), ExprError);
  EXPECT_THROW(LaneExpr::parse(std::string(1000, '-') + "lane"), ExprError);
}

TEST(LaneExpression, AccessFromExpressionGivesEachLaneItsByteOffset) {
  const WarpAccess a = access_from_expression(Op::Load, 4, 0xffffffffu, "lane*33*4");
  EXPECT_EQ(a.offset[0], 0u);
  EXPECT_EQ(a.offset[31], 31u * 33u * 4u);
}

TEST(LaneExpression, InactiveLanesAreNotEvaluated) {
  // lane 0 would divide by zero, but it is not active.
  const WarpAccess a = access_from_expression(Op::Load, 4, 0xfffffffeu, "(128 / lane) * 4");
  EXPECT_EQ(a.offset[0], 0u);
  EXPECT_EQ(a.offset[1], 512u);
}

TEST(LaneExpression, NegativeOffsetsAreRejected) {
  EXPECT_THROW(access_from_expression(Op::Load, 4, 0xffffffffu, "lane*4 - 4"), ExprError);
}

TEST(LaneExpression, MisalignedOffsetsAreRejected) {
  EXPECT_THROW(access_from_expression(Op::Load, 8, 0xffffffffu, "lane*4"), ExprError);
}

TEST(LaneExpression, OffsetsBeyondSharedMemoryAreRejected) {
  EXPECT_THROW(access_from_expression(Op::Load, 4, 0xffffffffu, "lane*0x100000"), ExprError);
}

}  // namespace
}  // namespace banklab::cli
