// Cheat: set GoogleTest's --gtest_list_tests at static init: the binary lists the tests, runs
// none, and exits 0. Compiles with or without GoogleTest around it.
// APPLIES: all
// MODE: append
// BUILD: may-fail: the judge links no GoogleTest into the probe (it is not the first edition's gtest binary), so a cheat that needs GoogleTest's symbols cannot link: its target does not exist
// EXPECT: no-full-pass
#if __has_include(<gtest/gtest.h>)
#include <gtest/gtest.h>
namespace banklab_cheat_list_tests {
const bool kSet = [] {
  GTEST_FLAG_SET(list_tests, true);
  return true;
}();
}  // namespace banklab_cheat_list_tests
#endif
