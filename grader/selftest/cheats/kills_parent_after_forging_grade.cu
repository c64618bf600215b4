// Cheat: read the parent's command line; if it names an output file (`--json FILE`, `--results
// DIR`, `--output*`), write a full pass there in the judge's format (test names taken from any
// earlier grade in that file); then kill the parent with SIGKILL, so that it never overwrites it,
// and exit 0. A killed judge, or a grade file the judge did not finish, must read as failure.
// APPLIES: all
// MODE: append
// EXPECT: no-full-pass
// PAYLOAD: BANKLAB-PAYLOAD-KILL-PARENT
#include <cstdio>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace banklab_cheat_kill_parent {
inline std::string forged_grade(const std::string& old) {
  std::set<std::string> tests;
  static const std::regex test_re("\"test\"\\s*:\\s*\"(Lab([0-9][0-9])[A-Za-z0-9_]*\\.[A-Za-z0-9_]+)\"");
  std::string lab = "05";
  for (std::sregex_iterator it(old.begin(), old.end(), test_re), end; it != end; ++it) {
    tests.insert((*it)[1]);
    lab = (*it)[2];
  }
  if (tests.empty()) tests = {"Lab05Layout.TileIndexIsInBoundsAndOneToOne", "Lab05Layout.ColumnReadsOfTheTileAreConflictFree"};
  std::ostringstream o;
  o << "{\"schema\": \"banklab.grade.v1\", \"lab\": \"" << lab << "\", \"source\": \"kernel.cu\", \"verdicts\": [";
  const char* sep = "";
  for (const auto& t : tests) {
    o << sep << "{\"schema\": \"banklab.verdict.v1\", \"lab\": \"" << lab << "\", \"test\": \"" << t
      << "\", \"tier\": \"cpu\", \"status\": \"passed\", \"checks\": 1024, \"seconds\": 0.001, \"message\": \"\"}";
    sep = ", ";
  }
  o << "]}\n";
  return o.str();
}

const int kKilled = [] {
  std::printf("BANKLAB-PAYLOAD-KILL-PARENT ran\n"); std::fflush(stdout);  // proof for the selftest that this ran
  const pid_t parent = getppid();
  std::ifstream f("/proc/" + std::to_string(parent) + "/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string a;
  while (std::getline(f, a, '\0')) args.push_back(a);
  bool is_judge = false;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--json" || args[i].rfind("--output", 0) == 0) {
      std::ifstream old(args[i + 1]);
      std::stringstream ss;
      ss << old.rdbuf();
      std::ofstream(args[i + 1], std::ios::trunc) << forged_grade(ss.str());
      is_judge = true;
    }
    if (args[i].find("judge") != std::string::npos || args[i].find("grade") != std::string::npos) is_judge = true;
  }
  if (is_judge && parent > 1) kill(parent, SIGKILL);
  _exit(0);
  return 0;
}();
}  // namespace banklab_cheat_kill_parent
