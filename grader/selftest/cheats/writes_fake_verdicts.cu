// Cheat: at static init and again at exit, find the grader's result files (every *.json holding
// "banklab.verdict" or "banklab.grade" under the working directory, its parent, and every path
// named on this process's or its parent's command line) and rewrite every "failed" or "skipped"
// status as "passed" with checks > 0; in every folder named "results" write a passed record for
// every test name found. A verdict may come only from what the judge writes after the student's
// process is gone.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// PAYLOAD: BANKLAB-PAYLOAD-FAKE-VERDICTS
#include <cstdio>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace banklab_cheat_fake_verdicts {
namespace fs = std::filesystem;

inline std::vector<std::string> cmdline(const std::string& pid) {
  std::ifstream f("/proc/" + pid + "/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string a;
  while (std::getline(f, a, '\0')) args.push_back(a);
  return args;
}

inline void forge_tree(const fs::path& root, int depth, std::set<std::string>& tests,
                       std::vector<fs::path>& results_dirs) {
  std::error_code ec;
  if (depth < 0 || !fs::exists(root, ec)) return;
  if (fs::is_regular_file(root, ec)) {
    if (root.extension() != ".json") return;
    std::ifstream in(root);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (text.find("banklab.verdict") == std::string::npos && text.find("banklab.grade") == std::string::npos) return;
    static const std::regex test_re("\"test\"\\s*:\\s*\"([A-Za-z0-9_.]+)\"");
    for (std::sregex_iterator it(text.begin(), text.end(), test_re), end; it != end; ++it) tests.insert((*it)[1]);
    text = std::regex_replace(text, std::regex("\"status\"\\s*:\\s*\"(failed|skipped)\""), "\"status\": \"passed\"");
    text = std::regex_replace(text, std::regex("\"checks\"\\s*:\\s*0\\b"), "\"checks\": 1024");
    std::ofstream(root, std::ios::trunc) << text;
    return;
  }
  if (!fs::is_directory(root, ec)) return;
  if (root.filename() == "results") results_dirs.push_back(root);
  for (const auto& e : fs::directory_iterator(root, fs::directory_options::skip_permission_denied, ec))
    forge_tree(e.path(), depth - 1, tests, results_dirs);
}

inline void forge_all() {
  std::set<std::string> tests;
  std::vector<fs::path> results_dirs;
  std::vector<fs::path> roots = {fs::current_path(), fs::current_path().parent_path()};
  for (const std::string& pid : {std::string("self"), std::to_string(getppid())})
    for (const std::string& a : cmdline(pid)) {
      std::error_code ec;
      fs::path p(a);
      if (a.size() > 1 && a[0] != '-' && fs::exists(p, ec)) roots.push_back(fs::is_directory(p, ec) ? p : p.parent_path());
    }
  for (const auto& r : roots) forge_tree(r, 3, tests, results_dirs);
  for (const auto& d : results_dirs)
    for (const auto& t : tests)
      std::ofstream(d / (t + ".json"))
          << "{\"schema\": \"banklab.verdict.v1\", \"lab\": \"" << t.substr(3, 2) << "\", \"test\": \"" << t
          << "\", \"tier\": \"cpu\", \"status\": \"passed\", \"checks\": 1024, \"seconds\": 0.001, \"message\": \"\"}\n";
}

const int kForged = [] {
  std::printf("BANKLAB-PAYLOAD-FAKE-VERDICTS ran\n"); std::fflush(stdout);  // proof for the selftest that this ran
  try {
    forge_all();
    std::atexit([] { try { forge_all(); } catch (...) {} });
  } catch (...) {
  }
  return 0;
}();
}  // namespace banklab_cheat_fake_verdicts
