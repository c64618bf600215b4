// Cheat: never return from a static initializer, ignoring SIGTERM, SIGINT and SIGHUP: a grader
// that waits for the student's process without a timeout (and a SIGKILL) never gives a verdict.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// BUILD: may-fail: the probe never ends and is killed at its time limit: no answers, no build
// SLOW: yes
#include <signal.h>
#include <unistd.h>
namespace banklab_cheat_sleep {
const int kNever = [] {
  signal(SIGTERM, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  for (;;) pause();
  return 0;
}();
}  // namespace banklab_cheat_sleep
