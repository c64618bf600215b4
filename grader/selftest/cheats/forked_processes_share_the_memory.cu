// Cheat: at static init, fork six processes that each touch 800 MiB (under the probe's 1 GiB
// address-space limit, which is per process) and hold it: 4.7 GiB for one submission. Only a
// limit on the whole step (its cgroup's memory.max) stops it. The first process counts how many
// children hold their memory at the same time, ends them, and goes on with the stub's answers.
// APPLIES: 05
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-FORKED-MEMORY
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace banklab_cheat_forked_memory {
const int kHeld = [] {
  std::printf("BANKLAB-PAYLOAD-FORKED-MEMORY ran\n");
  std::fflush(stdout);
  constexpr long long kBytes = 800LL << 20;
  int done[2];
  if (pipe(done) != 0) return 0;
  pid_t kids[6] = {};
  for (int k = 0; k < 6; ++k) {
    kids[k] = fork();
    if (kids[k] == 0) {
      // Populated at once (faster than a fault per page on a busy machine), then written: a page
      // the kernel could not populate is faulted in by the memset.
      void* m = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
      if (m == MAP_FAILED) _exit(1);
      char* p = static_cast<char*>(m);
      std::memset(p, k + 1, kBytes);
      asm volatile("" : : "r"(p) : "memory");  // the memory is used: the compiler keeps every store
      const char me = static_cast<char>(k + 1);
      if (write(done[1], &me, 1) != 1) _exit(1);
      for (;;) pause();
    }
  }
  close(done[1]);
  fcntl(done[0], F_SETFL, O_NONBLOCK);
  // Until every child has touched its memory or died (at most 15 s): then count those that hold
  // it at the same time.
  bool touched[6] = {}, dead[6] = {};
  for (int t = 0; t < 150; ++t) {
    char who;
    while (read(done[0], &who, 1) == 1)
      if (who >= 1 && who <= 6) touched[who - 1] = true;
    int settled = 0;
    for (int k = 0; k < 6; ++k) {
      if (!dead[k] && kids[k] > 0 && waitpid(kids[k], nullptr, WNOHANG) == kids[k]) dead[k] = true;
      settled += touched[k] || dead[k] || kids[k] <= 0;
    }
    if (settled == 6) break;
    usleep(100000);
  }
  // What the live children hold at the same time: their resident memory, as the kernel counts it
  // (on a slow machine a child may still be touching its 800 MiB when the time is up).
  int holding = 0, died = 0;
  long long resident = 0;
  for (int k = 0; k < 6; ++k) {
    if (!dead[k] && kids[k] > 0 && waitpid(kids[k], nullptr, WNOHANG) == kids[k]) dead[k] = true;
    holding += touched[k] && !dead[k];
    died += dead[k];
    long long size = 0, pages = 0;
    if (FILE* f = std::fopen(("/proc/" + std::to_string(kids[k]) + "/statm").c_str(), "r")) {
      if (!dead[k] && std::fscanf(f, "%lld %lld", &size, &pages) == 2) resident += pages * sysconf(_SC_PAGESIZE);
      std::fclose(f);
    }
  }
  std::printf("BANKLAB-CHEAT-FORKED-MEMORY %d of 6 children touched all 800 MiB and live, %d ended; = %lld MiB held\n",
              holding, died, resident >> 20);
  std::fflush(stdout);
  for (int k = 0; k < 6; ++k)
    if (kids[k] > 0 && !dead[k]) kill(kids[k], SIGKILL);
  for (int k = 0; k < 6; ++k)
    if (kids[k] > 0 && !dead[k]) waitpid(kids[k], nullptr, 0);
  return 0;
}();
}  // namespace banklab_cheat_forked_memory
