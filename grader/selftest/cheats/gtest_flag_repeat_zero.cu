// Cheat: --gtest_repeat=0 and a filter that matches nothing, set at static init: zero tests run,
// the binary exits 0. gtest's InitGoogleTest may parse argv after this; the filter is set again
// by an environment variable for that case.
// APPLIES: all
// MODE: append
// BUILD: may-fail: the judge links no GoogleTest into the probe (it is not the first edition's gtest binary), so a cheat that needs GoogleTest's symbols cannot link: its target does not exist
// EXPECT: no-full-pass
#include <cstdlib>
#if __has_include(<gtest/gtest.h>)
#include <gtest/gtest.h>
#endif
namespace banklab_cheat_repeat {
const bool kSet = [] {
#if __has_include(<gtest/gtest.h>)
  GTEST_FLAG_SET(repeat, 0);
  GTEST_FLAG_SET(filter, "NoSuchSuite.NoSuchTest");
#endif
  setenv("GTEST_FILTER", "NoSuchSuite.NoSuchTest", 1);
  setenv("GTEST_REPEAT", "0", 1);
  return true;
}();
}  // namespace banklab_cheat_repeat
