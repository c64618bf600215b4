// What `banklab explain` draws in the terminal.
#include "banklab_cli/explain_render.hpp"

#include <gtest/gtest.h>

#include "banklab_cli/expr.hpp"

namespace banklab::cli {
namespace {

std::string explain(Op op, int width, const char* expr, std::uint32_t mask = 0xffffffffu,
                    bool color = false) {
  const WarpAccess a = access_from_expression(op, width, mask, expr);
  RenderOptions o;
  o.color = color;
  return render_explanation(a, analyze(a), o);
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(Explain, StrideThirtyTwoNamesBankZeroAndThirtyTwoWavefronts) {
  const std::string s = explain(Op::Load, 4, "lane*32*4");
  EXPECT_TRUE(has(s, "32 wavefronts (minimum 1)")) << s;
  EXPECT_TRUE(has(s, "bank 0 serves 32 distinct words")) << s;
}

TEST(Explain, DrawsOneRowPerWavefront) {
  const std::string s = explain(Op::Load, 4, "lane*32*4");
  EXPECT_TRUE(has(s, "wavefront  1 |")) << s;
  EXPECT_TRUE(has(s, "wavefront 32 |")) << s;
  EXPECT_FALSE(has(s, "wavefront 33 |")) << s;
}

TEST(Explain, MarksTheSecondWordOfABankAsAConflict) {
  const std::string s = explain(Op::Load, 4, "lane*32*4");
  // Row 2: lane 1 in bank 0, marked '!'.
  EXPECT_TRUE(has(s, "wavefront  2 |  1!")) << s;
}

TEST(Explain, MarksABroadcast) {
  const std::string s = explain(Op::Load, 4, "0");
  EXPECT_TRUE(has(s, "wavefront  1 |  0*")) << s;
  EXPECT_TRUE(has(s, "Broadcast: word 0 (bank 0) to lanes 0-31")) << s;
  EXPECT_TRUE(has(s, "1 wavefront (minimum 1)")) << s;
}

TEST(Explain, PowerOfTwoStrideHintSuggestsPaddingAndSwizzle) {
  const std::string s = explain(Op::Load, 4, "lane*32*4");
  EXPECT_TRUE(has(s, "pad each row by one element")) << s;
  EXPECT_TRUE(has(s, "XOR-swizzle")) << s;
  EXPECT_TRUE(has(s, "tile[32][33]")) << s;
}

TEST(Explain, PaddedColumnIsConflictFree) {
  const std::string s = explain(Op::Load, 4, "lane*33*4");
  EXPECT_TRUE(has(s, "1 wavefront (minimum 1): no bank conflict")) << s;
}

TEST(Explain, VectorWidthHintExplainsHalfWarps) {
  const std::string s = explain(Op::Store, 8, "lane*8");
  EXPECT_TRUE(has(s, "Groups: half-warps")) << s;
  EXPECT_TRUE(has(s, "served per half-warp")) << s;
  EXPECT_TRUE(has(s, "2 wavefronts (minimum 2)")) << s;
}

TEST(Explain, VectorWidthHintExplainsQuarterWarps) {
  const std::string s = explain(Op::Load, 16, "lane*16");
  EXPECT_TRUE(has(s, "quarter-warps")) << s;
  EXPECT_TRUE(has(s, "served per quarter-warp")) << s;
}

TEST(Explain, SaysWhyAMergedLoadMerged) {
  const std::string s = explain(Op::Load, 8, "(lane/2)*8");
  EXPECT_TRUE(has(s, "merged: yes")) << s;
  EXPECT_TRUE(has(s, "lane i^1 is inactive or reads the same address")) << s;
}

TEST(Explain, ShowsGroupsOfAHalfWarpAccess) {
  const std::string s = explain(Op::Store, 8, "lane*8");
  EXPECT_TRUE(has(s, "group 1 of 2: lanes 0-15")) << s;
  EXPECT_TRUE(has(s, "group 2 of 2: lanes 16-31")) << s;
}

TEST(Explain, NoActiveLaneSaysSo) {
  const std::string s = explain(Op::Load, 4, "lane*4", 0);
  EXPECT_TRUE(has(s, "0 wavefronts (minimum 0)")) << s;
  EXPECT_TRUE(has(s, "No lane is active")) << s;
}

TEST(Explain, UsesNoEscapeCodesWithoutColour) {
  EXPECT_FALSE(has(explain(Op::Load, 4, "lane*32*4"), "\x1b[")) << "colour without asking";
}

TEST(Explain, UsesAnsiRedForConflictsWithColour) {
  EXPECT_TRUE(has(explain(Op::Load, 4, "lane*32*4", 0xffffffffu, true), "\x1b[1;31m"));
}

TEST(Explain, LaneListCompressesRanges) {
  EXPECT_EQ(lane_list({0, 1, 2, 3, 8, 10, 11}), "lanes 0-3, 8, 10, 11");
  EXPECT_EQ(lane_list({5}), "lane 5");
}

}  // namespace
}  // namespace banklab::cli
