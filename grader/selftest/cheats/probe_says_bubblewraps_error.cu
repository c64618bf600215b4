// Cheat (issue 45, family 1): the probe prints bubblewrap's own error line on stderr and exits 1
// before it writes any answer, the way a sandbox that cannot start a step ends it. A judge that
// decides "the machine's fault" from the step's words made the file "not graded" on every entry
// point, again at every re-run: the student chose a blank over a failure. The judge calls a failure
// the machine's only when its own known-good file fails the same step the same way (a control,
// grader/judge/whose_fault.cpp): here the control runs, so the build fails, as the file's.
// APPLIES: 05
// MODE: append
// EXPECT: build-fails: the probe ends with exit 1 before its answers, which is the file's failure, never a fault
// PAYLOAD: bwrap: Can't mount proc on /newroot/proc: Device or resource busy
#include <unistd.h>

#include <cstdio>
namespace banklab_cheat_says_bwrap {
const int kSaid = [] {
  std::fputs("bwrap: Can't mount proc on /newroot/proc: Device or resource busy\n", stderr);
  std::fflush(stderr);
  _exit(1);
  return 0;
}();
}  // namespace banklab_cheat_says_bwrap
