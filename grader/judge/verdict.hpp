// Verdict records (banklab.verdict.v1) and the grade file (banklab.grade.v1): docs/dev/GRADER.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace judge {

/// The schema name of each format the judge writes and reads (the Python side's are
/// banklab.grading.schemas): in every record, checked wherever one is read.
inline constexpr const char* kVerdictSchema = "banklab.verdict.v1";
inline constexpr const char* kGradeSchema = "banklab.grade.v1";

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

/// `text` as JSON, strictly: nothing when it is not JSON (a bad or lone-surrogate \u escape,
/// bytes that are not UTF-8, text after the value) or when one object holds a key twice; `why`
/// then says which. Every JSON the judge reads goes through it (nlohmann::json, the one library).
std::optional<nlohmann::json> parse_strict(const std::string& text, std::string& why);

std::string to_json(const Verdict& v);
/// `text` as a verdict record into `v`: "" when it is one, else why not (parse_strict's refusals,
/// another schema, a missing, extra or mistyped key, an unknown status); `v` is left as it was then.
/// A test's process, which ran the student's code, writes these: read as hostile.
std::string parse_verdict(const std::string& text, Verdict& v);
/// Reads a record this judge wrote; false when the file is missing or not one (parse_verdict).
bool read_verdict(const std::string& path, Verdict& v);
std::string grade_json(const std::string& lab, const std::string& source, const std::string& sha256,
                       const std::vector<Verdict>& verdicts);
/// "[ PASSED  ] lab05.Lab05Layout.X (1024 checks)" and friends: what a person reads.
std::string summary_line(const Verdict& v);

}  // namespace judge
