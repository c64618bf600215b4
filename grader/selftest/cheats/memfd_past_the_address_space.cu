// Cheat: at static init, fill memfds (anonymous tmpfs files) with 1.5 GiB through write(), 32 MiB
// each: the pages are never mapped, so the probe's 1 GiB address-space limit never sees them. Only
// a limit on the whole step's memory (its cgroup's memory.max, which counts tmpfs and memfd pages)
// stops it. The stub's answers follow if the probe lives.
// APPLIES: 05
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-MEMFD
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace banklab_cheat_memfd {
const int kHeld = [] {
  std::printf("BANKLAB-PAYLOAD-MEMFD ran\n");
  std::fflush(stdout);
  std::vector<char> chunk(1 << 20, 'm');
  long long mib = 0;
  std::string why = "reached 1536 MiB";
  for (int f = 0; f < 48 && why == "reached 1536 MiB"; ++f) {
    const int fd = static_cast<int>(syscall(SYS_memfd_create, "banklab-cheat", 0u));
    if (fd < 0) {
      why = std::string("memfd_create: ") + std::strerror(errno);
      break;
    }
    for (int i = 0; i < 32; ++i) {
      if (write(fd, chunk.data(), chunk.size()) != static_cast<ssize_t>(chunk.size())) {
        why = std::string("write: ") + std::strerror(errno);
        break;
      }
      if (++mib % 64 == 0) {
        std::printf("BANKLAB-CHEAT-MEMFD held %lld MiB\n", mib);
        std::fflush(stdout);
      }
    }  // the descriptor stays open: the pages stay
  }
  std::printf("BANKLAB-CHEAT-MEMFD held %lld MiB in the end (%s)\n", mib, why.c_str());
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_memfd
