// Cheat: print gtest's skip marker. CTest tests with a SKIP_REGULAR_EXPRESSION for
// "[  SKIPPED ]" (CMake 4's GoogleTest module adds one to every test) then report skipped, not
// failed, whatever the exit status.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// MARKER: BANKLAB-CHEAT-SKIP
#include <cstdio>
namespace banklab_cheat_print_skipped {
const int kPrinted = [] {
  std::printf("[  SKIPPED ] BANKLAB-CHEAT-SKIP: no CUDA-capable device is detected\n");
  std::fprintf(stderr, "[  SKIPPED ] BANKLAB-CHEAT-SKIP\n");
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_print_skipped
