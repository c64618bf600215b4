// Cheat: a global GoogleTest Environment whose SetUp skips: every test of the program is then
// reported skipped, and a skip is not a failure.
// APPLIES: all
// MODE: append
// BUILD: may-fail: the judge links no GoogleTest into the probe (it is not the first edition's gtest binary), so a cheat that needs GoogleTest's symbols cannot link: its target does not exist
// EXPECT: no-full-pass
#if __has_include(<gtest/gtest.h>)
#include <gtest/gtest.h>
namespace banklab_cheat_environment {
struct SkipEverything : ::testing::Environment {
  void SetUp() override { GTEST_SKIP() << "no GPU"; }
};
::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new SkipEverything);
}  // namespace banklab_cheat_environment
#endif
