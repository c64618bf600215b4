// Cheat: replace the grader itself on disk. The student's process finds the executables of
// itself and of its parent (/proc/self/exe, /proc/<ppid>/exe); any that looks like the grader
// (grade_labNN, banklab-judge, banklab_judge) is replaced, by rename, with a shell script that
// prints a pass, writes passing records where asked (--json FILE, --results DIR with --test
// NAME) and exits 0. This run still fails; every later run uses the fake grader unless the build
// notices. The judge must not be writable by the student's process, or must check its own
// identity (and the runner must check that the judge it runs is the one it built).
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// PAYLOAD: BANKLAB-PAYLOAD-REPLACE-GRADER
// MARKER: BANKLAB-CHEAT-FAKE-GRADER
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace banklab_cheat_replace_grader {
inline std::string exe_of(const std::string& pid) {
  char buf[4096];
  const ssize_t n = readlink(("/proc/" + pid + "/exe").c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

inline bool looks_like_the_grader(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  return name.rfind("grade_lab", 0) == 0 || name.find("banklab-judge") != std::string::npos ||
         name.find("banklab_judge") != std::string::npos;
}

inline void replace(const std::string& path) {
  if (path.empty() || !looks_like_the_grader(path)) return;
  const std::string tmp = path + ".banklab-cheat";
  std::ofstream(tmp)
      << "#!/bin/sh\n"
         "# BANKLAB-CHEAT-FAKE-GRADER\n"
         "echo '[==========] 1 test from 1 test suite ran.'; echo '[  PASSED  ] 1 test.'\n"
         "json=''; results=''; test='Lab05Layout.ColumnReadsOfTheTileAreConflictFree'\n"
         "while [ $# -gt 0 ]; do case \"$1\" in --json) json=\"$2\"; shift;; --results) results=\"$2\"; shift;;"
         " --test) test=\"$2\"; shift;; esac; shift; done\n"
         "rec=\"{\\\"schema\\\": \\\"banklab.verdict.v1\\\", \\\"lab\\\": \\\"05\\\", \\\"test\\\": \\\"$test\\\", "
         "\\\"tier\\\": \\\"cpu\\\", \\\"status\\\": \\\"passed\\\", \\\"checks\\\": 1024, \\\"seconds\\\": 0.001, "
         "\\\"message\\\": \\\"BANKLAB-CHEAT-FAKE-GRADER\\\"}\"\n"
         "[ -n \"$results\" ] && mkdir -p \"$results\" && echo \"$rec\" > \"$results/$test.json\"\n"
         "[ -n \"$json\" ] && echo \"{\\\"schema\\\": \\\"banklab.grade.v1\\\", \\\"lab\\\": \\\"05\\\", \\\"verdicts\\\": [$rec]}\" > \"$json\"\n"
         "exit 0\n";
  chmod(tmp.c_str(), 0755);
  std::rename(tmp.c_str(), path.c_str());
}

const int kReplaced = [] {
  std::printf("BANKLAB-PAYLOAD-REPLACE-GRADER ran\n"); std::fflush(stdout);  // proof for the selftest that this ran
  replace(exe_of("self"));
  replace(exe_of(std::to_string(getppid())));
  return 0;
}();
}  // namespace banklab_cheat_replace_grader
