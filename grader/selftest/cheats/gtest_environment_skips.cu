// Cheat: a global GoogleTest Environment whose SetUp skips: every test of the program is then
// reported skipped, and a skip is not a failure.
// APPLIES: all
// MODE: append
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
