// `banklab-judge test`: one or several of a lab's tests judged in this process, one verdict record
// each (docs/dev/GRADER.md, "One process, several tests"). Every test starts as it would in a
// process of its own: its own module of the student's kernels, its own buffers, its own lock
// of the GPU and its own time limits; a GPU test that leaves the GPU unusable (a sticky error)
// ends the process after its record, and the caller runs the tests left each in its own process.
#pragma once

#include <string>
#include <vector>

#include "verdict.hpp"

namespace judge {

/// Exit status of a process of several tests that stopped after a GPU test left the GPU's context
/// unusable: the tests after it have no record (the caller runs each in its own process).
inline constexpr int kStoppedEarly = 3;

struct TestRun {
  std::string lab, work, results;
  /// Where each test's own output goes (DIR/Suite.Name.log), from its start to its verdict; ""
  /// leaves it on this process's output.
  std::string logs;
  std::vector<std::string> tests;  ///< Suite.Name, in any order: they run in the order GoogleTest registered them
  bool graded = false;
  /// Graded mode with --emulate-gpu: in the emulated twin a timing test is skipped ("needs a GPU"),
  /// not a fault (the points table decides what it earns); every other skip is a fault as before.
  bool emulate_gpu = false;
};

/// Every test the judge knows, as "Suite.Name", in registration order, for one lab ("" = all).
std::vector<std::string> registered_tests(const std::string& lab);

/// "" when the tests this judge holds for lab `lab` ("" = every lab) are exactly those its table
/// lists (grader/tests_of_lab.hpp: Lab.tests(), the source of each test's tier and traced-ness), else
/// what differs: the judge refuses to list, test or grade then.
std::string test_table_mismatch(const std::string& lab);

/// Judges run.tests in this process and writes one record each to run.results. Exit status: with
/// one test, that test's (0 passed, 77 skipped, 1 failed or fault); with several, 0 when every
/// test passed, 77 when every one passed or skipped, kStoppedEarly as above, else 1; 2 for traced
/// and untraced tests together (the tracer would slow the timed ones: never in one process).
int run_tests(const TestRun& run, const char* argv0);

/// Writes v's record into results/labNN/ (unless results is ""), prints its summary line (and its
/// message first when print_message: a verdict not from a GoogleTest run, which printed it) and
/// returns the exit status it stands for.
int finish_verdict(const Verdict& v, const std::string& results, bool print_message = false);

/// The message of a test that must run in graded mode but could not run here.
std::string fault_message(const Verdict& v, const std::string& skip_reason);

}  // namespace judge
