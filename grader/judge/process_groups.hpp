// `banklab-judge grade`'s tests in as few processes as the judge's isolation allows (issue 33):
// the CPU tests in one, the untraced GPU tests in one (one CUDA context), the traced tests in one
// (the tracer started once, before any CUDA call). Each test in such a process still starts as
// in a process of its own (run_in_process.hpp). Where a process ends before every test of it has a
// record (a crash, a hang stopped by its watchdog or its time limit, a GPU left unusable), the
// test that was running keeps the verdict a process of its own would give it (no verdict: a
// failure naming what ended it, with its own output) and the tests left run again, each in a
// process of its own, as before issue 33. docs/dev/GRADER.md, "One process, several tests".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "process.hpp"
#include "verdict.hpp"

namespace judge {

/// The test's tier, "gpu" or "cpu", as its lab's table says (grader/tests_of_lab.hpp: Lab.tests(),
/// generated); "cpu" for a name no table holds (a test the lab does not have).
std::string tier_of_test(const std::string& suite_dot_name);
/// Whether the test runs under the shared-memory tracer, as its lab's table says (false for a
/// name no table holds).
bool is_traced(const std::string& test);

struct TestGroup {
  std::string name;                ///< "cpu", "gpu", "traced", or the test's own name when alone
  std::vector<std::string> tests;  ///< Suite.Name, in registration order
  double timeout_s = 60;           ///< each test's limit
};

/// Each test's limit in its process, by tier (the judge's limit, not the test's own watchdogs).
double test_time_limit(const std::string& tier);

/// The processes of a grade, in the order they run: "cpu", "gpu", "traced" (the empty ones left
/// out), or with one_per_process every test alone, in registration order.
std::vector<TestGroup> group_tests(const std::vector<std::string>& tests, bool one_per_process);

/// Whether $BANKLAB_JUDGE_ONE_TEST_PER_PROCESS is 1 (grade runs every test in a process of its
/// own, as before issue 33: to compare the verdicts of both).
bool one_test_per_process_from_env();

/// How a group's process runs and what it leaves: the judge's own (judge_runner) or a stand-in.
struct GroupRunner {
  /// Runs `tests` in one process (its output named after `name`); the limit is each test's.
  std::function<ProcessResult(const std::string& name, const std::vector<std::string>& tests, double timeout_s)> run;
  /// The record the last run wrote for the test, if it wrote one.
  std::function<std::optional<Verdict>(const std::string& test)> record;
  /// The test's own output, when it started in the last run (nothing when it never started).
  std::function<std::optional<std::string>(const std::string& test)> own_output;
  /// The output of the last run of `name` (a test alone) outside any test's own.
  std::function<std::string(const std::string& name)> process_output;
};

/// Runs group g, then each test it left without a record alone. One verdict per test, in g's order.
std::vector<Verdict> run_group(const std::string& lab, const TestGroup& g, const GroupRunner& runner);

/// `banklab-judge test` processes of this judge (`me`): records in work/results, each test's output
/// in work/logs/Suite.Name.log, each process's in work/logs/NAME.process.log.
GroupRunner judge_runner(const std::string& me, const std::string& lab, const std::string& work, bool graded,
                         bool emulate_gpu = false);

}  // namespace judge
