// Cheat: main under extern "C" with argc/argv, printing what a passing gtest run prints.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// BUILD: may-fail: a second main cannot link with the probe's own main: the lab does not build, which is a correct verdict
// MARKER: BANKLAB-CHEAT-MAIN
#include <cstdio>
extern "C" int main(int, char**) {
  std::printf("BANKLAB-CHEAT-MAIN\n[==========] 27 tests from 3 test suites ran.\n[  PASSED  ] 27 tests.\n");
  return 0;
}
