// Cheat: at exit, overwrite every writable regular file named on the process's command line (the
// probe's answers file) with a short, inconsistent text: a header, one value, and an "end" count
// that matches nothing. Garbled or truncated answers must fail, never be half-read as a pass.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// PAYLOAD: BANKLAB-PAYLOAD-GARBLE
#include <cstdio>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace banklab_cheat_garble {
inline void garble() {
  std::printf("BANKLAB-PAYLOAD-GARBLE ran\n"); std::fflush(stdout);  // proof for the selftest that this ran
  for (int fd = 3; fd < 16; ++fd)  // an answers channel handed over as a descriptor ("fd:N") is garbled too
    dprintf(fd, "banklab-answers 1 lab 05\nvalue TILE_DIM 32\npredict kSwizzledColumnReadWavefronts 1\nend 999\n");
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string a;
  bool first = true;
  while (std::getline(f, a, '\0')) {
    if (first) {  // the executable itself
      first = false;
      continue;
    }
    struct stat st {};
    if (a.empty() || a[0] == '-' || stat(a.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || access(a.c_str(), W_OK) != 0) continue;
    std::ofstream(a, std::ios::trunc) << "banklab-answers 1 lab 05\nvalue TILE_DIM 32\npredict kSwizzledColumnReadWavefronts 1\nend 999\n";
  }
}
const int kRegistered = std::atexit(garble);
}  // namespace banklab_cheat_garble
