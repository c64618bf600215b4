// Cheat (issue 30, family 3): at static init, read every file that the command lines of the
// processes it can see name (/proc/*/cmdline: the judge's --source and --work, grade-class's
// --roster and --out, an earlier OUT beside it, the judge binary that holds the answers) and every
// file one folder below a named folder, and print how many it could read and the first bytes of
// each (a classmate's roster line, a grade) where the student would see them. Inside the judge's
// sandbox it sees only its own PID namespace (the sandbox's init and itself) and none of the host's
// files but the system's: it reads nothing. The stub's answers are judged.
// APPLIES: 05
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-READS-ANCESTORS
#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

namespace banklab_cheat_reads_ancestors {
// The system's files and the step's own (its inputs, its /tmp): reading those proves nothing.
inline bool system_path(const std::string& p) {
  for (const std::string s : {"/usr", "/bin", "/lib", "/lib32", "/lib64", "/libx32", "/sbin", "/proc", "/dev",
                              "/etc/alternatives", "/in", "/inc", "/tmp/w"})
    if (p == s || p.rfind(s + "/", 0) == 0) return true;
  return p == "/tmp";
}

inline std::string first_bytes(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return "";
  std::string s(64, '\0');
  in.read(&s[0], 64);
  s.resize(static_cast<std::size_t>(in.gcount()));
  for (char& c : s)
    if (c < 32 || c > 126) c = '.';
  return s.empty() ? "(empty)" : s;
}

const int kRead = [] {
  std::set<std::string> named;
  int seen = 0;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      ++seen;
      // PID 1 (the machine's init, or the sandbox's own, which names the sandbox's binds) and
      // itself name nothing of the grading.
      if (std::string(e->d_name) == "1" || std::atoi(e->d_name) == getpid()) continue;
      std::ifstream cmd(std::string("/proc/") + e->d_name + "/cmdline", std::ios::binary);
      for (std::string a; std::getline(cmd, a, '\0');) {
        const std::size_t eq = a.find('=');
        if (eq != std::string::npos && a[0] != '/') a = a.substr(eq + 1);
        if (a.size() > 1 && a[0] == '/' && !system_path(a)) named.insert(a);
      }
    }
    closedir(d);
  }
  int read = 0;
  std::string what;
  auto look = [&](const std::string& p) {
    const std::string b = first_bytes(p);
    if (b.empty()) return;
    ++read;
    if (what.size() < 400) what += " [" + p + ": " + b + "]";
  };
  for (const std::string& p : named) {
    look(p);
    if (DIR* d = opendir(p.c_str())) {
      while (dirent* e = readdir(d))
        if (e->d_name[0] != '.') look(p + "/" + e->d_name);
      closedir(d);
    }
  }
  std::printf("BANKLAB-PAYLOAD-READS-ANCESTORS ran: %d processes seen, %zu paths named, %d files read%s\n", seen,
              named.size(), read, what.c_str());
  std::fflush(stdout);
  return 0;
}();
}  // namespace banklab_cheat_reads_ancestors
