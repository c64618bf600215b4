// grader/judge/process_groups.cpp without a GPU: which tests share a process, and what happens when a
// process of several tests ends early. The judge's `test` command is played by a shell script
// that behaves by the tests' names (it passes them, crashes in one, hangs in one, or stops after
// one as the judge does after a GPU left unusable), through the judge's own runner (real
// processes, real records and logs, the real time limits).
#include "process_groups.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grader/tests_of_lab.hpp"

namespace {

using judge::TestGroup;
using judge::Verdict;

// The stand-in for `banklab-judge test --lab 99 ... --test A --test B ...`. Each call appends its
// tests to CALLS. Per test, by name: ...Crashes (killed by SIGSEGV after printing), ...Hangs (never
// ends), ...Slow (0.7 s), ...Breaks (its record, then exit 3 as after a sticky GPU error);
// ...DiesBeforeItsTests kills a process of several tests before any test starts, and passes alone.
// Every record's message says how many tests its process had.
constexpr const char* kStandIn = R"(#!/bin/sh
results=""; logs=""; tests=""
while [ $# -gt 0 ]; do
  case "$1" in
    --results) results=$2; shift 2;;
    --logs) logs=$2; shift 2;;
    --test) tests="$tests $2"; shift 2;;
    *) shift;;
  esac
done
echo "$tests" >> "$CALLS"
n=$(echo $tests | wc -w)
echo "the process started"
mkdir -p "$results/lab99"
for t in $tests; do
  case "$t" in *DiesBeforeItsTests*) [ "$n" -gt 1 ] && kill -SEGV $$;; esac
done
for t in $tests; do
  echo "[ RUN      ] $t" > "$logs/$t.log"
  case "$t" in
    *Crashes*) echo "what $t printed" >> "$logs/$t.log"; kill -SEGV $$;;
    *Hangs*) sleep 30;;
    *Slow*) sleep 0.7;;
  esac
  status=passed
  case "$t" in *Breaks*) status=failed;; esac
  printf '{"schema": "banklab.verdict.v1", "lab": "99", "test": "%s", "tier": "gpu", "status": "%s", "checks": 1, "seconds": 0, "message": "ran with %s"}\n' "$t" "$status" "$n" > "$results/lab99/$t.json"
  case "$t" in *Breaks*) exit 3;; esac
done
)";

class Groups : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/banklab-groups-" + std::to_string(getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    mkdir(dir_.c_str(), 0755);
    std::ofstream(dir_ + "/judge.sh") << kStandIn;
    chmod((dir_ + "/judge.sh").c_str(), 0755);
    setenv("CALLS", (dir_ + "/calls").c_str(), 1);
  }
  std::vector<Verdict> run(const std::vector<std::string>& tests, double timeout_s = 20) {
    const TestGroup g{"gpu", tests, timeout_s};
    return judge::run_group("99", g, judge::judge_runner(dir_ + "/judge.sh", "99", dir_ + "/work", false));
  }
  // Each process's tests, one line a process.
  std::vector<std::string> calls() const {
    std::ifstream in(dir_ + "/calls");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  std::string dir_;
};

// A lab's tests as its generated table lists them (grader/tests_of_lab.hpp: Lab.tests()): the tier
// and traced-ness are the table's, whatever the names say (a test named "Traced..." that the table
// does not mark traced runs untraced, a suite not named OnGpu on the GPU when the table says so).
const grader::TestOfLab kStandInTable[] = {
    {"Lab98Layout.A", "cpu", false},          {"Lab98OnGpu.IsCorrect", "gpu", false},
    {"Lab98OnGpu.Watched", "gpu", true},      {"Lab98Predictions.Q1", "cpu", false},
    {"Lab98OnGpu.IsFast", "gpu", false},      {"Lab98OnGpu.TracedInNameOnly", "gpu", false},
    {"Lab98Somewhere.OnTheGpu", "gpu", false}, {nullptr, nullptr, false}};
[[maybe_unused]] const bool kStandInRegistered = grader::register_test_table("98", kStandInTable);

TEST(GroupTests, TheTableNotTheNameGivesTierAndTracedness) {
  EXPECT_EQ(judge::tier_of_test("Lab98OnGpu.IsCorrect"), "gpu");
  EXPECT_EQ(judge::tier_of_test("Lab98Somewhere.OnTheGpu"), "gpu");
  EXPECT_EQ(judge::tier_of_test("Lab98Layout.A"), "cpu");
  EXPECT_TRUE(judge::is_traced("Lab98OnGpu.Watched"));
  EXPECT_FALSE(judge::is_traced("Lab98OnGpu.TracedInNameOnly"));
  // A test no table lists: the CPU tier, untraced (the judge refuses such a test before it runs).
  EXPECT_EQ(judge::tier_of_test("Lab97OnGpu.TracedX"), "cpu");
  EXPECT_FALSE(judge::is_traced("Lab97OnGpu.TracedX"));
  const std::vector<TestGroup> g = judge::group_tests({"Lab98OnGpu.TracedInNameOnly", "Lab98OnGpu.Watched"}, false);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "gpu");
  EXPECT_EQ(g[0].tests, std::vector<std::string>{"Lab98OnGpu.TracedInNameOnly"});
  EXPECT_EQ(g[1].name, "traced");
  EXPECT_EQ(g[1].tests, std::vector<std::string>{"Lab98OnGpu.Watched"});
}

TEST(GroupTests, AJudgeWhoseTestsDifferFromTheTableIsRefused) {
  std::vector<std::string> held;
  for (const grader::TestOfLab* t = kStandInTable; t->test; ++t) held.push_back(t->test);
  EXPECT_EQ(grader::tests_differ_from_tables(held, "98"), "");
  std::vector<std::string> more = held;
  more.push_back("Lab98OnGpu.NotInTheTable");
  EXPECT_NE(grader::tests_differ_from_tables(more, "98").find("Lab98OnGpu.NotInTheTable is not in its table"),
            std::string::npos);
  std::vector<std::string> fewer(held.begin() + 1, held.end());
  EXPECT_NE(grader::tests_differ_from_tables(fewer, "98").find("lists Lab98Layout.A, which this judge does not hold"),
            std::string::npos);
  EXPECT_EQ(grader::tests_differ_from_tables({}, "97"), "");  // a lab with no table and no test
}

TEST(GroupTests, CpuGpuAndTracedTestsEachShareAProcessOrEachHasItsOwn) {
  const std::vector<std::string> tests = {"Lab98Layout.A", "Lab98OnGpu.IsCorrect", "Lab98OnGpu.Watched",
                                          "Lab98Predictions.Q1", "Lab98OnGpu.IsFast"};
  const std::vector<TestGroup> g = judge::group_tests(tests, false);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].name, "cpu");
  EXPECT_EQ(g[0].tests, (std::vector<std::string>{"Lab98Layout.A", "Lab98Predictions.Q1"}));
  EXPECT_EQ(g[0].timeout_s, 60);
  EXPECT_EQ(g[1].name, "gpu");
  EXPECT_EQ(g[1].tests, (std::vector<std::string>{"Lab98OnGpu.IsCorrect", "Lab98OnGpu.IsFast"}));
  EXPECT_EQ(g[1].timeout_s, 180);
  EXPECT_EQ(g[2].name, "traced");
  EXPECT_EQ(g[2].tests, (std::vector<std::string>{"Lab98OnGpu.Watched"}));
  const std::vector<TestGroup> alone = judge::group_tests(tests, true);
  ASSERT_EQ(alone.size(), tests.size());
  for (std::size_t i = 0; i < tests.size(); ++i) {
    EXPECT_EQ(alone[i].tests, std::vector<std::string>{tests[i]});
    EXPECT_EQ(alone[i].timeout_s, judge::tier_of_test(tests[i]) == "gpu" ? 180 : 60);
  }
  EXPECT_TRUE(judge::group_tests({"Lab98Layout.A"}, false).size() == 1);
}

TEST(GroupTests, TheSwitchIsReadFromTheEnvironment) {
  unsetenv("BANKLAB_JUDGE_ONE_TEST_PER_PROCESS");
  EXPECT_FALSE(judge::one_test_per_process_from_env());
  setenv("BANKLAB_JUDGE_ONE_TEST_PER_PROCESS", "1", 1);
  EXPECT_TRUE(judge::one_test_per_process_from_env());
  setenv("BANKLAB_JUDGE_ONE_TEST_PER_PROCESS", "0", 1);
  EXPECT_FALSE(judge::one_test_per_process_from_env());
  unsetenv("BANKLAB_JUDGE_ONE_TEST_PER_PROCESS");
}

TEST_F(Groups, TestsThatAllWriteARecordShareOneProcess) {
  const std::vector<Verdict> v = run({"L.APasses", "L.BPasses", "L.CPasses"});
  ASSERT_EQ(v.size(), 3u);
  for (const Verdict& x : v) {
    EXPECT_EQ(x.status, "passed");
    EXPECT_EQ(x.message, "ran with 3");
  }
  EXPECT_EQ(calls(), std::vector<std::string>{" L.APasses L.BPasses L.CPasses"});
}

TEST_F(Groups, ACrashKeepsItsOwnVerdictAndTheTestsAfterItRunAlone) {
  const std::vector<Verdict> v = run({"L.APasses", "L.BCrashes", "L.CPasses", "L.DPasses"});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].test, "L.APasses");
  EXPECT_EQ(v[0].message, "ran with 4");  // before the crash: its record stands
  EXPECT_EQ(v[1].test, "L.BCrashes");
  EXPECT_EQ(v[1].status, "failed");
  // What a process of its own would say: what ended it, and only this test's own output.
  EXPECT_EQ(v[1].message, "the judge wrote no verdict for this test (killed by signal 11 (Segmentation fault)): "
                          "[ RUN      ] L.BCrashes\nwhat L.BCrashes printed\n");
  EXPECT_EQ(v[2].test, "L.CPasses");
  EXPECT_EQ(v[2].message, "ran with 1");
  EXPECT_EQ(v[3].message, "ran with 1");
  EXPECT_EQ(calls(), (std::vector<std::string>{" L.APasses L.BCrashes L.CPasses L.DPasses", " L.CPasses", " L.DPasses"}));
}

TEST_F(Groups, ACrashAloneGetsTheSameVerdictAsInAGroup) {
  const std::vector<Verdict> grouped = run({"L.APasses", "L.BCrashes"});
  const std::vector<Verdict> alone = run({"L.BCrashes"});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].message, grouped[1].message);
  EXPECT_EQ(alone[0].status, grouped[1].status);
}

TEST_F(Groups, AStopAfterAnUnusableGpuKeepsThatTestsRecordAndRunsTheRestAlone) {
  const std::vector<Verdict> v = run({"L.APasses", "L.BBreaks", "L.CPasses"});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1].status, "failed");
  EXPECT_EQ(v[1].message, "ran with 3");  // its own record, as it wrote it
  EXPECT_EQ(v[2].status, "passed");
  EXPECT_EQ(v[2].message, "ran with 1");
  EXPECT_EQ(calls(), (std::vector<std::string>{" L.APasses L.BBreaks L.CPasses", " L.CPasses"}));
}

TEST_F(Groups, AHangIsStoppedAtItsOwnLimitAndTheRestRunAlone) {
  const std::vector<Verdict> v = run({"L.APasses", "L.BHangs", "L.CPasses"}, 1);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].message, "ran with 3");
  EXPECT_EQ(v[1].message, "the judge wrote no verdict for this test (killed after 1 s (time limit)): [ RUN      ] L.BHangs\n");
  EXPECT_EQ(v[2].message, "ran with 1");
}

TEST_F(Groups, TheLimitIsEachTestsNotTheWholeProcesss) {
  // 3 x 0.7 s in one process under a limit of 1 s: each test is within it.
  const std::vector<Verdict> v = run({"L.ASlow", "L.BSlow", "L.CSlow"}, 1);
  for (const Verdict& x : v) EXPECT_EQ(x.message, "ran with 3");
  EXPECT_EQ(calls().size(), 1u);
}

TEST_F(Groups, AProcessThatDiesBeforeItsFirstTestLeavesEveryTestToRunAlone) {
  const std::vector<Verdict> v = run({"L.ADiesBeforeItsTests", "L.BPasses"});
  ASSERT_EQ(v.size(), 2u);
  for (const Verdict& x : v) {
    EXPECT_EQ(x.status, "passed");
    EXPECT_EQ(x.message, "ran with 1");
  }
  EXPECT_EQ(calls(), (std::vector<std::string>{" L.ADiesBeforeItsTests L.BPasses", " L.ADiesBeforeItsTests", " L.BPasses"}));
}

}  // namespace
