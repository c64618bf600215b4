// Cheat: catch every signal a grader uses to stop a process that runs too long (SIGTERM, SIGINT,
// SIGHUP, SIGALRM, SIGXCPU) and abnormal ends (SIGABRT, SIGSEGV) and exit 0 from the handler,
// then stall at static init for 25 seconds, past the probe's timeout. A grader that stops the
// student's process with SIGTERM sees a clean exit 0 with no answers written: a timeout is a
// failure whatever the status, and answers without their end record are garbage.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// BUILD: may-fail: the probe stalls past its time limit and is killed: no answers, no build
// SLOW: yes
#include <signal.h>
#include <unistd.h>
namespace banklab_cheat_signals {
inline void exit_zero(int) { _exit(0); }
const int kInstalled = [] {
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGALRM, SIGXCPU, SIGABRT, SIGSEGV, SIGBUS, SIGFPE}) signal(s, exit_zero);
  for (int i = 0; i < 25; ++i) sleep(1);
  return 0;
}();
}  // namespace banklab_cheat_signals
