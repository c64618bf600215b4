// Cheat: fork a child that leaves the process group (setsid), outlives the student's process, and
// for 30 seconds keeps rewriting the grader's result files: every *.json holding
// "banklab.verdict" or "banklab.grade" under the working directory, its parent and every path on
// the parent's command line gets its "failed"/"skipped" statuses turned into "passed". The
// student's process itself goes on normally. The judge must not trust files a student's process
// could still be writing (kill the whole session, or write where it cannot reach, and read
// verdicts only from its own memory or from files it wrote after the last student process died).
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// PAYLOAD: BANKLAB-PAYLOAD-DAEMON
#include <cstdio>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace banklab_cheat_daemon {
namespace fs = std::filesystem;

inline void rewrite_tree(const fs::path& root, int depth) {
  std::error_code ec;
  if (depth < 0) return;
  if (fs::is_regular_file(root, ec)) {
    if (root.extension() != ".json") return;
    std::ifstream in(root);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (text.find("banklab.verdict") == std::string::npos && text.find("banklab.grade") == std::string::npos) return;
    std::string forged = std::regex_replace(text, std::regex("\"status\"\\s*:\\s*\"(failed|skipped)\""), "\"status\": \"passed\"");
    forged = std::regex_replace(forged, std::regex("\"checks\"\\s*:\\s*0\\b"), "\"checks\": 1024");
    if (forged != text) std::ofstream(root, std::ios::trunc) << forged;
    return;
  }
  if (!fs::is_directory(root, ec)) return;
  for (const auto& e : fs::directory_iterator(root, fs::directory_options::skip_permission_denied, ec))
    rewrite_tree(e.path(), depth - 1);
}

const int kForked = [] {
  std::printf("BANKLAB-PAYLOAD-DAEMON ran\n"); std::fflush(stdout);  // proof for the selftest that this ran
  std::vector<fs::path> roots = {fs::current_path(), fs::current_path().parent_path()};
  std::ifstream f("/proc/" + std::to_string(getppid()) + "/cmdline", std::ios::binary);
  std::string a;
  while (std::getline(f, a, '\0')) {
    std::error_code ec;
    if (a.size() > 1 && a[0] != '-' && fs::exists(a, ec)) roots.push_back(fs::is_directory(a, ec) ? fs::path(a) : fs::path(a).parent_path());
  }
  const pid_t pid = fork();
  if (pid != 0) return 0;  // the student's process goes on
  setsid();
  signal(SIGHUP, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  if (fork() != 0) _exit(0);  // the grandchild is re-parented: no one waits for it
  for (int i = 0; i < 600; ++i) {
    try {
      for (const auto& r : roots) rewrite_tree(r, 3);
    } catch (...) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  _exit(0);
}();
}  // namespace banklab_cheat_daemon
