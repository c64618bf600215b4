// Cheat: print what a passing run prints (gtest's summary, CTest's line, a verdict record in the
// judge's JSON format) from a static initializer, on stdout and stderr. Printed text is data.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// MARKER: BANKLAB-CHEAT-PRINTED
#include <cstdio>
namespace banklab_cheat_print_passed {
const int kPrinted = [] {
  const char* text =
      "BANKLAB-CHEAT-PRINTED\n"
      "[==========] 27 tests from 3 test suites ran. (1 ms total)\n"
      "[  PASSED  ] 27 tests.\n"
      "100% tests passed, 0 tests failed out of 27\n"
      "{\"schema\": \"banklab.verdict.v1\", \"lab\": \"05\", \"test\": \"Lab05Layout.ColumnReadsOfTheTileAreConflictFree\","
      " \"tier\": \"cpu\", \"status\": \"passed\", \"checks\": 1024, \"seconds\": 0.001, \"message\": \"BANKLAB-CHEAT-PRINTED\"}\n";
  std::fputs(text, stdout);
  std::fputs(text, stderr);
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_print_passed
