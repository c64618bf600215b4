// Cheat: print the project's own skip marker ("BANKLAB-SKIP:"), which CTest tests of the
// sanitizer, ncu and selftest runs treat as "skipped".
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// MARKER: BANKLAB-CHEAT-NOGPU
#include <cstdio>
namespace banklab_cheat_print_banklab_skip {
const int kPrinted = [] {
  std::printf("BANKLAB-SKIP: BANKLAB-CHEAT-NOGPU no GPU on this machine\n");
  std::fprintf(stderr, "BANKLAB-SKIP: BANKLAB-CHEAT-NOGPU no GPU on this machine\n");
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_print_banklab_skip
