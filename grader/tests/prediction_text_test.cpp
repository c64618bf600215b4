// Predictions read as written (grader/judge/prediction_text.cpp, issue 44): every floating-point
// literal or conversion in a prediction's initializer is found, and integer expressions are not
// refused. CTest: judge.PredictionText.*
#include "grader/prediction_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

// The floating part of prediction kX when the file's namespace predict holds `decl` (after `before`).
std::string floating_of(const std::string& decl, const std::string& before = "") {
  const std::string src = "#include <cmath>\nnamespace lab06 {\n" + before + "\nnamespace predict {\n// LAB TODO: x\n" + decl +
                          "\n}  // namespace predict\n}  // namespace lab06\n";
  const auto p = grader::read_predictions(src);
  const auto it = p.find("kX");
  if (it == p.end()) return "<no kX>";
  return it->second.floating;
}

TEST(PredictionText, FloatingLiteralsAndConversionsAreFound) {
  EXPECT_EQ(floating_of("constexpr int kX = 1.5;"), "1.5");
  EXPECT_EQ(floating_of("constexpr int kX = 3.0 / 2;"), "3.0");
  EXPECT_EQ(floating_of("constexpr int kX = int(1.5f);"), "1.5f");
  EXPECT_EQ(floating_of("constexpr int kX = static_cast<int>(2.0);"), "2.0");
  EXPECT_EQ(floating_of("constexpr int kX = 2.;"), "2.");
  EXPECT_EQ(floating_of("constexpr int kX = .5 * 4;"), ".5");
  EXPECT_EQ(floating_of("constexpr int kX = 1e1;"), "1e1");
  EXPECT_EQ(floating_of("constexpr int kX = 0x1p4;"), "0x1p4");
  EXPECT_EQ(floating_of("constexpr int kX{1.5};"), "1.5");
  EXPECT_EQ(floating_of("constexpr int kA = 1, kX = 2.5;"), "2.5");
  EXPECT_EQ(floating_of("constexpr int kX = static_cast<int>(float(3) / 2);"), "float");
  EXPECT_EQ(floating_of("constexpr int kX = (double)7 / 2;"), "double");
  EXPECT_EQ(floating_of("constexpr int kX = std::sqrt(1024);"), "sqrt");
  EXPECT_EQ(floating_of("constexpr int kX = [] { return 1.5; }();"), "1.5");
}

TEST(PredictionText, FloatingNamesAreFollowed) {
  EXPECT_EQ(floating_of("constexpr int kX = kHalf * 2;", "constexpr double kHalf = 3;"), "kHalf");
  EXPECT_EQ(floating_of("constexpr int kX = kB;", "constexpr auto kA = 0.5; constexpr auto kB = kA * 4;"), "kB");
  EXPECT_EQ(floating_of("constexpr int kX = HALF;", "#define HALF 1.5"), "HALF");
  EXPECT_EQ(floating_of("constexpr int kX = SCALE(4);", "#define SCALE(x) ((x) * 0.5)"), "SCALE");
  EXPECT_EQ(floating_of("constexpr int kX = half_of(5);", "constexpr double half_of(int v) { return v / 2.0; }"),
            "half_of");
  EXPECT_EQ(floating_of("constexpr int kX = S::k;", "struct S { static constexpr float k = 3; };"), "k");
}

TEST(PredictionText, IntegerExpressionsAreWelcome) {
  for (const char* decl : {"constexpr int kX = 3 ^ 5;", "constexpr int kX = 32 * 4;", "constexpr int kX = (1 << 5);",
                           "constexpr int kX = 1'024 / 0x20;", "constexpr int kX = sizeof(float) * 8;",
                           "constexpr int kX = alignof(double);", "constexpr int kX = -1;", "constexpr int kX{7};",
                           "constexpr long long kX = 5LL % 3;", "constexpr unsigned kX = 0b101u;",
                           "constexpr int kX = kRows * 4; // 1.5 in a comment", "constexpr int kX = 3; /* 2.5 */",
                           "constexpr int kX = sizeof(\"1.5\");"})
    EXPECT_EQ(floating_of(decl, "constexpr int kRows = 8;"), "") << decl;
  // A local float of a kernel is not the constant a prediction names.
  EXPECT_EQ(floating_of("constexpr int kX = v * 2;",
                        "constexpr int v = 3;\n__global__ void k(float* o) { float v = 1.5f; o[0] = v; }"),
            "");
  // An integer function whose body is integer.
  EXPECT_EQ(floating_of("constexpr int kX = twice(3);", "constexpr int twice(int a) { return a * 2; }"), "");
}

TEST(PredictionText, InitializerIsShownAsWritten) {
  const auto p = grader::read_predictions("namespace predict {\nconstexpr int kX =  3.0\n  /   2;\n}\n");
  ASSERT_EQ(p.count("kX"), 1u);
  EXPECT_EQ(p.at("kX").initializer, "3.0 / 2");
  const std::string long_line = "namespace predict { constexpr int kX = " + std::string(300000, '1') + "; }";
  const auto q = grader::read_predictions(long_line);  // linear in a long line
  ASSERT_EQ(q.count("kX"), 1u);
  EXPECT_EQ(q.at("kX").initializer.size(), 83u);
  EXPECT_EQ(q.at("kX").floating, "");
  EXPECT_EQ(grader::read_predictions("namespace lab06::predict { constexpr int kX = 1.5; }").at("kX").floating, "1.5");
  EXPECT_EQ(grader::read_predictions("constexpr int kX = 1.5;").count("kX"), 0u);  // not a prediction
}

}  // namespace
