// Verdict records (banklab.verdict.v1) and the grade file (banklab.grade.v1): docs/dev/GRADER.md.
#pragma once

#include <string>
#include <vector>

namespace judge {

struct Verdict {
  std::string lab, test, tier = "cpu";
  std::string status = "failed";  ///< passed | failed | skipped | fault (not judged: the grading machine's problem)
  long long checks = 0;
  double seconds = 0;
  std::string message;
  /// Judged on the emulator (a GPU test of the emulated twin, docs/dev/EMULATOR.md): the record
  /// then holds `"emulated": true`; a record without the key was judged on a GPU or the CPU.
  bool emulated = false;
};

std::string to_json(const Verdict& v);
/// Reads a record this judge wrote; false when the file is missing or not one.
bool read_verdict(const std::string& path, Verdict& v);
std::string grade_json(const std::string& lab, const std::string& source, const std::string& sha256,
                       const std::vector<Verdict>& verdicts);
/// "[ PASSED  ] lab05.Lab05Layout.X (1024 checks)" and friends: what a person reads.
std::string summary_line(const Verdict& v);

}  // namespace judge
