// The text formats: the predict line and the measurement CSV.
#include "banklab/pattern_io.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace banklab {
namespace {

std::string line_with(const std::string& head, int n_offsets, const std::string& off = "0") {
  std::string s = head;
  for (int i = 0; i < n_offsets; ++i) s += " " + off;
  return s;
}

TEST(PatternIo, AWellFormedLineParses) {
  WarpAccess a;
  std::string s = "ld 4 0xffffffff";
  for (int i = 0; i < 32; ++i) s += " " + std::to_string(i * 4);
  ASSERT_FALSE(parse_access_line(s, a).has_value());
  EXPECT_EQ(a.op, Op::Load);
  EXPECT_EQ(a.width, 4);
  EXPECT_EQ(a.mask, 0xffffffffu);
  EXPECT_EQ(a.offset[31], 124u);
}

TEST(PatternIo, TheMaskMayOmitTheHexPrefix) {
  WarpAccess a;
  ASSERT_FALSE(parse_access_line(line_with("st 8 0000ffff", 32), a).has_value());
  EXPECT_EQ(a.mask, 0x0000ffffu);
  EXPECT_EQ(a.op, Op::Store);
}

TEST(PatternIo, FormatAndParseRoundTrip) {
  WarpAccess a;
  a.op = Op::Store;
  a.width = 16;
  a.mask = 0x0f0f0f0fu;
  for (int i = 0; i < 32; ++i) a.offset[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i * 48);
  WarpAccess b;
  ASSERT_FALSE(parse_access_line(format_access_line(a), b).has_value());
  EXPECT_EQ(b.offset, a.offset);
  EXPECT_EQ(b.mask, a.mask);
}

TEST(PatternIo, TooFewOffsetsAreReported) {
  WarpAccess a;
  auto err = parse_access_line(line_with("ld 4 ffffffff", 31), a);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("found 31"), std::string::npos) << *err;
}

TEST(PatternIo, TooManyOffsetsAreReported) {
  WarpAccess a;
  EXPECT_TRUE(parse_access_line(line_with("ld 4 ffffffff", 33), a));
}

TEST(PatternIo, AnUnknownOpIsReported) {
  WarpAccess a;
  auto err = parse_access_line(line_with("load 4 ffffffff", 32), a);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("unknown op"), std::string::npos);
}

TEST(PatternIo, WidthThreeIsReported) {
  WarpAccess a;
  EXPECT_TRUE(parse_access_line(line_with("ld 3 ffffffff", 32), a));
}

TEST(PatternIo, AMisalignedOffsetIsReported) {
  WarpAccess a;
  EXPECT_TRUE(parse_access_line(line_with("ld 8 ffffffff", 32, "4"), a));
}

TEST(PatternIo, AnOffsetBeyondSharedMemoryIsReported) {
  WarpAccess a;
  EXPECT_TRUE(parse_access_line(line_with("ld 4 ffffffff", 32, "1000000"), a));
}

TEST(PatternIo, GarbageIsReportedWithoutEchoingAHugeToken) {
  WarpAccess a;
  auto err = parse_access_line(std::string(10'000'000, 'x'), a);
  ASSERT_TRUE(err);
  EXPECT_LT(err->size(), 200u);
}

TEST(PatternIo, NegativeOffsetsAreReported) {
  WarpAccess a;
  EXPECT_TRUE(parse_access_line(line_with("ld 4 ffffffff", 32, "-4"), a));
}

TEST(PatternIo, CommentsAndBlankLinesAreSkippable) {
  EXPECT_TRUE(is_blank_or_comment(""));
  EXPECT_TRUE(is_blank_or_comment("   \t"));
  EXPECT_TRUE(is_blank_or_comment("  # a comment"));
  EXPECT_FALSE(is_blank_or_comment("ld 4"));
}

TEST(PatternIo, AMeasurementCsvWithAWrongHeaderIsRejectedOnLineOne) {
  std::istringstream in("name,op\n");
  try {
    read_measurements(in, "x.csv");
    FAIL() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 1);
  }
}

TEST(PatternIo, ACopyCsvReadsZAsNoSourceAndNamesABadSource) {
  std::string offs, srcs;
  for (int i = 0; i < 32; ++i) {
    offs += (i ? " " : "") + std::to_string(4 * i);
    srcs += (i ? " " : "") + (i % 2 ? std::string("z") : std::to_string(4 * i));
  }
  const std::string head = "id,width,mask,offsets,sources,wavefronts\n";
  std::istringstream in(head + "a,4,ffffffff," + offs + "," + srcs + ",2\n");
  const auto rows = read_sourced_copies(in, "x.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].access.op, Op::AsyncCopy);
  EXPECT_EQ(rows[0].source[0], 0u);
  EXPECT_EQ(rows[0].source[1], kNoSource);
  EXPECT_EQ(rows[0].source[2], 8u);
  EXPECT_EQ(rows[0].wavefronts, 2);
  std::istringstream bad(head + "b,4,ffffffff," + offs + "," + srcs.substr(0, srcs.size() - 1) + "q,2\n");
  try {
    read_sourced_copies(bad, "x.csv");
    FAIL() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("'q'"), std::string::npos) << e.what();
  }
}

TEST(PatternIo, AMeasurementCsvMayCarryAGpuColumn) {
  std::string offs;
  for (int i = 0; i < 32; ++i) offs += (i ? " " : "") + std::to_string(4 * i);
  std::istringstream in("id,op,width,mask,offsets,wavefronts,bank_conflicts,instructions,gpu\n"
                        "a,ld,4,ffffffff," + offs + ",1,0,1,NVIDIA H200\n");
  const auto rows = read_measurements(in, "x.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].gpu, "NVIDIA H200");
}

}  // namespace
}  // namespace banklab

namespace banklab {
namespace {

TEST(FieldParsers, ReadOpWidthAndMask) {
  Op op = Op::Store;
  int width = 0;
  std::uint32_t mask = 0;
  EXPECT_FALSE(parse_op("ld", op).has_value());
  EXPECT_EQ(op, Op::Load);
  for (int w : kLegalWidths) {
    EXPECT_FALSE(parse_width(std::to_string(w), width).has_value());
    EXPECT_EQ(width, w);
  }
  EXPECT_FALSE(parse_mask("0x0000ffff", mask).has_value());
  EXPECT_EQ(mask, 0x0000ffffu);
  EXPECT_FALSE(parse_mask("F0", mask).has_value());
  EXPECT_EQ(mask, 0xf0u);
}

TEST(FieldParsers, NameTheBadValueInTheirMessages) {
  Op op;
  int width;
  std::uint32_t mask;
  EXPECT_EQ(parse_op("mov", op).value_or(""), "unknown op 'mov' (expected one of 'ld', 'st', 'ldsm', 'stsm', 'cpasync', 'atom', 'atominc', 'atomcas', 'atomexch', 'atomloop')");
  EXPECT_EQ(parse_width("3", width).value_or(""), "width 3 is not one of 1, 2, 4, 8, 16");
  EXPECT_EQ(parse_width("four", width).value_or(""), "width 'four' is not a number");
  EXPECT_EQ(parse_width("", width).value_or(""), "width '' is not a number");
  EXPECT_EQ(parse_mask("1ffffffff", mask).value_or(""), "mask '1ffffffff' is not a 32-bit hexadecimal number");
  EXPECT_EQ(parse_mask("0x", mask).value_or(""), "mask '0x' is not a 32-bit hexadecimal number");
}

TEST(FieldParsers, NeverEchoControlBytesOrLongTokens) {
  EXPECT_EQ(quote_token("a\x1b[2Jb"), "'a\\x1b[2Jb'");
  EXPECT_EQ(quote_token(std::string(100, 'x')), "'" + std::string(24, 'x') + "...'");
}

TEST(PatternIo, TmaSwizzleModesParseByTheirSpanInBytes) {
  const std::pair<const char*, TmaSwizzle> good[] = {
      {"none", TmaSwizzle::None}, {"32", TmaSwizzle::Bytes32}, {"64", TmaSwizzle::Bytes64}, {"128", TmaSwizzle::Bytes128}};
  for (const auto& [text, mode] : good) {
    TmaSwizzle got = TmaSwizzle::Bytes128;
    EXPECT_FALSE(parse_tma_swizzle(text, got)) << text;
    EXPECT_EQ(got, mode) << text;
  }
  for (const char* bad : {"16", "256", "128B", "", "sw128"}) {
    TmaSwizzle got = TmaSwizzle::None;
    const auto err = parse_tma_swizzle(bad, got);
    ASSERT_TRUE(err) << bad;
    EXPECT_NE(err->find("is not one of none, 32, 64, 128"), std::string::npos) << *err;
  }
}

TEST(PatternIo, WithTmaSwizzleMovesEveryActiveLaneAndNothingElse) {
  WarpAccess a;
  a.op = Op::LoadMatrix;
  a.width = 16;
  a.mask = 0x0000ffffu;
  for (int i = 0; i < kWarpSize; ++i) a.offset[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i % 8 * 128 + i / 8 * 16);
  for (TmaSwizzle mode : {TmaSwizzle::None, TmaSwizzle::Bytes32, TmaSwizzle::Bytes64, TmaSwizzle::Bytes128}) {
    const WarpAccess s = with_tma_swizzle(a, mode);
    EXPECT_EQ(s.op, a.op);
    EXPECT_EQ(s.width, a.width);
    EXPECT_EQ(s.mask, a.mask);
    for (std::size_t i = 0; i < kWarpSize; ++i)
      EXPECT_EQ(s.offset[i], i < 16 ? tma_swizzled_offset(mode, a.offset[i]) : a.offset[i]) << "lane " << i;
  }
}

}  // namespace
}  // namespace banklab
