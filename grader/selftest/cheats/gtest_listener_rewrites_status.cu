// Cheat: a GoogleTest event listener, installed at static init, that ends the program with status
// 0 once the tests have run (whatever they said). Compiles with or without GoogleTest around it.
// APPLIES: all
// MODE: append
// BUILD: may-fail: the judge links no GoogleTest into the probe (it is not the first edition's gtest binary), so a cheat that needs GoogleTest's symbols cannot link: its target does not exist
// EXPECT: no-full-pass
#if __has_include(<gtest/gtest.h>)
#include <gtest/gtest.h>
#include <unistd.h>
namespace banklab_cheat_listener {
struct ExitZero : ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest&) override { _exit(0); }
};
const bool kInstalled = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new ExitZero);
  return true;
}();
}  // namespace banklab_cheat_listener
#endif
