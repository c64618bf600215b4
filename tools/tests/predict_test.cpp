// The reader and the answer lines behind `banklab predict`.
#include "banklab_cli/predict.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "banklab/pattern_io.hpp"

namespace banklab::cli {
namespace {

std::string offsets(std::uint32_t (*f)(int)) {
  std::string s;
  for (int i = 0; i < kWarpSize; ++i) s += " " + std::to_string(f(i));
  return s;
}

const std::string kStride1 = "ld 4 ffffffff" + offsets([](int i) { return 4u * i; });
const std::string kStride32 = "ld 4 ffffffff" + offsets([](int i) { return 128u * i; });
const std::string kStore8 = "st 8 ffffffff" + offsets([](int i) { return 8u * i; });
const std::string kPairs8 = "ld 8 ffffffff" + offsets([](int i) { return 8u * (i / 2); });

// Runs predict_stream over `input`; returns the output, or "error: " + the message.
std::string predict(const std::string& input) {
  std::FILE* in = std::tmpfile();
  std::FILE* out = std::tmpfile();
  std::fwrite(input.data(), 1, input.size(), in);
  std::rewind(in);
  std::string result;
  try {
    predict_stream(in, "in.txt", out);
    std::rewind(out);
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, out)) > 0) result.append(buf, n);
  } catch (const ParseError& e) {
    result = std::string("error: ") + e.what();
  }
  std::fclose(in);
  std::fclose(out);
  return result;
}

TEST(Predict, ConsecutiveWordsTakeOneWavefront) {
  EXPECT_EQ(predict(kStride1 + "\n"), "1 min=1 conflicts=0 groups=warp merged=no\n");
}

TEST(Predict, StrideThirtyTwoTakesThirtyTwoWavefronts) {
  EXPECT_EQ(predict(kStride32 + "\n"), "32 min=1 conflicts=31 groups=warp merged=no\n");
}

TEST(Predict, SixtyFourBitStoresAreServedInHalfWarps) {
  EXPECT_EQ(predict(kStore8 + "\n"), "2 min=2 conflicts=0 groups=half-warps merged=no\n");
}

TEST(Predict, SixtyFourBitLoadsOfSharedPairsMerge) {
  EXPECT_EQ(predict(kPairs8 + "\n"), "1 min=1 conflicts=0 groups=warp merged=yes\n");
}

TEST(Predict, AnswersEveryLineInOrder) {
  EXPECT_EQ(predict(kStride32 + "\n" + kStride1 + "\n"),
            "32 min=1 conflicts=31 groups=warp merged=no\n1 min=1 conflicts=0 groups=warp merged=no\n");
}

TEST(Predict, SkipsBlankLinesAndComments) {
  EXPECT_EQ(predict("# header\n\n   \t\n" + kStride1 + "\n  # indented comment\n"),
            "1 min=1 conflicts=0 groups=warp merged=no\n");
}

TEST(Predict, AcceptsWindowsLineEndingsAndAMissingFinalNewline) {
  EXPECT_EQ(predict(kStride1 + "\r\n" + kStride1),
            "1 min=1 conflicts=0 groups=warp merged=no\n1 min=1 conflicts=0 groups=warp merged=no\n");
}

TEST(Predict, AcceptsTheMaskWithOrWithout0x) {
  const std::string with0x = "ld 4 0xffffffff" + offsets([](int i) { return 4u * i; });
  EXPECT_EQ(predict(with0x + "\n"), "1 min=1 conflicts=0 groups=warp merged=no\n");
}

TEST(Predict, AnErrorNamesTheFileAndTheLine) {
  EXPECT_EQ(predict("# ok\n" + kStride1 + "\nld 3 ffffffff 0\n"),
            "error: in.txt:3: width 3 is not one of 1, 2, 4, 8, 16");
}

TEST(Predict, AnEmptyInputIsAnError) {
  EXPECT_EQ(predict(""), "error: in.txt:1: the input is empty: expected lines 'op width mask off0 ... off31'");
}

TEST(Predict, AnInputOfOnlyCommentsIsAnError) {
  EXPECT_EQ(predict("# a\n# b\n"), "error: in.txt:2: no access in the input (only blank lines and comments)");
}

TEST(Predict, ALineLongerThanTheLimitIsAnError) {
  const std::string r = predict(kStride1 + "\n" + std::string(3 * kMaxLineBytes, '7') + "\n");
  EXPECT_EQ(r.rfind("error: in.txt:2: line is longer than", 0), 0u) << r.substr(0, 200);
}

TEST(Predict, LinesAcrossTheReadBufferBoundaryAreReadWhole) {
  std::string input;
  const int n = 20000;  // ~2.8 MB: many refills of the 256 KiB buffer
  for (int i = 0; i < n; ++i) input += (i % 2 ? kStride1 : kStride32) + "\n";
  const std::string out = predict(input);
  std::size_t lines = 0, thirty_two = 0;
  for (std::size_t p = 0; p < out.size(); p = out.find('\n', p) + 1) {
    ++lines;
    thirty_two += out.compare(p, 3, "32 ") == 0;
  }
  EXPECT_EQ(lines, static_cast<std::size_t>(n));
  EXPECT_EQ(thirty_two, static_cast<std::size_t>(n / 2));
}

TEST(Predict, ControlBytesAreNeverEchoedInMessages) {
  const std::string r = predict(std::string("l\x1b[31md 4 ff") + offsets([](int) { return 0u; }) + "\n");
  EXPECT_EQ(r.find('\x1b'), std::string::npos) << r;
  EXPECT_NE(r.find("\\x1b"), std::string::npos) << r;
}

}  // namespace
}  // namespace banklab::cli
