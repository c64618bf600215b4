// grader::variant_named_in (grader/judge/variants.cpp): the `// banklab variant:` line of a student's
// file, read by hand. std::regex over the whole file overflowed the judge's stack on one long line
// (issue 45: banklab-judge grade exited 139 on the stub plus a comment line of 256 Ki spaces).
#include "grader/variants.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

const std::string kMarker =
    "// banklab variant: lab 05 variant 4 (col = 9, chunk = 2). Keep this line: your file is graded as this variant.\n";

TEST(VariantLine, IsFoundAfterACommentLineOf256KiSpaces) {
  const std::string text = "// kernel.cu\n//" + std::string(256 << 10, ' ') + "\n" + kMarker + "int x;\n";
  EXPECT_EQ(grader::variant_named_in(text, "05"), 4);
}

TEST(VariantLine, LongLinesOfAnyBytesNameNoVariant) {
  for (const char c : {' ', 'a', '/', '\t', '9'}) {
    const std::string line(1 << 20, c);
    EXPECT_EQ(grader::variant_named_in(line, "05"), -1) << "a line of 1 Mi '" << c << "'";
    EXPECT_EQ(grader::variant_named_in("//" + line, "05"), -1) << "a comment of 1 Mi '" << c << "'";
    EXPECT_EQ(grader::variant_named_in(line + "\n" + kMarker, "05"), 4) << "after 1 Mi '" << c << "'";
  }
}

TEST(VariantLine, ReadsTheFormMakeReleaseWrites) {
  EXPECT_EQ(grader::variant_named_in(kMarker, "05"), 4);
  EXPECT_EQ(grader::variant_named_in("x\r\n//\t banklab variant: lab 01 variant 2 (elem = short)\r\n", "01"), 2);
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 01 variant 1234", "01"), 1234);   // at the very end
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 05 variant 3.", "05"), 3);
}

TEST(VariantLine, RefusesWhatIsNotThatForm) {
  EXPECT_EQ(grader::variant_named_in("", "05"), -1);
  EXPECT_EQ(grader::variant_named_in("  // banklab variant: lab 05 variant 4\n", "05"), -1);   // not at a line's start
  EXPECT_EQ(grader::variant_named_in("int x; // banklab variant: lab 05 variant 4\n", "05"), -1);
  EXPECT_EQ(grader::variant_named_in("/* banklab variant: lab 05 variant 4 */\n", "05"), -1);
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 05 variant 12345\n", "05"), -1);  // 5 digits
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 05 variant 4x\n", "05"), -1);
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 05 variant \n", "05"), -1);
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 5 variant 4\n", "05"), -1);
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 05 variant 4\n", "01"), -1);     // another lab's
}

TEST(VariantLine, TheFirstMarkerLineDecides) {
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 05 variant 2\n" + kMarker, "05"), 2);
  // The first marker names another lab: none for this one (as before: a file of another lab).
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 01 variant 2\n" + kMarker, "05"), -1);
  // A line that only looks like one does not stop the search.
  EXPECT_EQ(grader::variant_named_in("// banklab variant: lab 05 variant 99999\n" + kMarker, "05"), 4);
}

}  // namespace
