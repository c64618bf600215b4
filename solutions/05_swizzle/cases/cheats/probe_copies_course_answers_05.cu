// Cheat: the probe (the student's host code) looks for answers it could copy: the course's
// solutions/ folder, every answers.txt under build/*/judge/lab05/ of any checkout it can find from
// its working folder, the paths on any process's command line (/proc/*/cmdline: other judges, the
// batch grader) and their parents. The first lab 05 answers file it finds replaces its own answers
// (written to the judge's answer channel, descriptor or file), then it ends at once. Inside the
// judge's sandbox there is no other process, no course tree and no work folder: nothing is found
// and the stub's own answers are judged.
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-STEAL
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace banklab_cheat_steal {
inline std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
inline std::vector<std::string> args_of(const std::string& pid) {
  std::vector<std::string> out;
  std::ifstream f("/proc/" + pid + "/cmdline", std::ios::binary);
  for (std::string a; std::getline(f, a, '\0');) out.push_back(a);
  return out;
}
inline std::string parent_of(std::string p) {
  const std::size_t s = p.find_last_of('/');
  return s == std::string::npos || s == 0 ? "/" : p.substr(0, s);
}
inline void add_with_parents(std::set<std::string>& roots, std::string p) {
  for (int i = 0; i < 5 && !p.empty() && p != "/"; ++i, p = parent_of(p)) roots.insert(p);
}
inline std::vector<std::string> candidates(const std::string& root) {
  std::vector<std::string> out = {root + "/answers.txt", root + "/judge/lab05/answers.txt"};
  if (DIR* d = opendir((root + "/build").c_str())) {
    while (dirent* e = readdir(d)) out.push_back(root + "/build/" + e->d_name + "/judge/lab05/answers.txt");
    closedir(d);
  }
  return out;
}
const int kStolen = [] {
  std::printf("BANKLAB-PAYLOAD-STEAL ran\n");
  std::set<std::string> roots;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) add_with_parents(roots, cwd);
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
        for (const std::string& a : args_of(e->d_name))
          if (!a.empty() && a[0] == '/') add_with_parents(roots, a);
    closedir(d);
  }
  int seen = 0;
  for (const std::string& r : roots) {
    if (access((r + "/solutions/05_swizzle/kernel.cu").c_str(), R_OK) == 0)
      std::printf("BANKLAB-CHEAT-STEAL-SAW %s/solutions\n", r.c_str());
    for (const std::string& c : candidates(r)) {
      const std::string text = slurp(c);
      if (text.rfind("banklab-answers 1 lab 05", 0) != 0) continue;
      std::printf("BANKLAB-CHEAT-STEAL-FOUND %s\n", c.c_str());
      std::fflush(stdout);
      const std::vector<std::string> me = args_of("self");
      if (me.size() > 1) {
        const std::string& ch = me[1];
        const int fd = ch.rfind("fd:", 0) == 0 ? std::atoi(ch.c_str() + 3) : open(ch.c_str(), O_WRONLY | O_TRUNC);
        if (fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size())) _exit(0);
      }
      ++seen;
    }
  }
  std::printf("BANKLAB-PAYLOAD-STEAL searched %zu folders, copied nothing (%d found)\n", roots.size(), seen);
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_steal
