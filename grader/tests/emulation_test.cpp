// Where the judge emulates (grader/judge/emulation.cpp), without a GPU: which tests time (skipped
// on the emulator: the lab's table says, not the name), and a process linked against NVIDIA's runtime is never taken for the emulated
// twin (the twin's side: emu.Shim.IsTheEmulatedDevice), nor execs one unless BANKLAB_EMULATE=1.
#include <gtest/gtest.h>

#include <cstdlib>

#include "emulation.hpp"
#include "grader/tests_of_lab.hpp"

namespace {

// A stand-in lab's table (as Lab.tests() generates one): which tests time is its `timed`, whatever
// the names say (a name with "Timing" in it that the table does not mark, a timed test named
// otherwise).
const grader::TestOfLab kStandIn[] = {
    {"Lab96OnGpu.LoadsMeetTheTimingTarget", "gpu", false, true},
    {"Lab96OnGpu.CostsNoMoreThanACopy", "gpu", false, true},
    {"Lab96OnGpu.Quick", "gpu", false, true},
    {"Lab96OnGpu.TimingInNameOnly", "gpu", false, false},
    {"Lab96OnGpu.IsCorrect", "gpu", false, false},
    {"Lab96OnGpu.TracedSharedAccesses", "gpu", true, false},
    {"Lab96Layout.A", "cpu", false, false},
    {nullptr, nullptr, false, false}};
[[maybe_unused]] const bool kStandInRegistered = grader::register_test_table("96", kStandIn);

TEST(Emulation, TimedTestsAreTheTablesNotTheNames) {
  for (const grader::TestOfLab* t = kStandIn; t->test; ++t) EXPECT_EQ(judge::is_timed(t->test), t->timed) << t->test;
  EXPECT_FALSE(judge::is_timed("Lab95OnGpu.MeetsTheTimingTarget"));  // in no table: not a test of this judge
}

TEST(Emulation, AJudgeLinkedAgainstNvidiasRuntimeIsNotTheTwin) {
  EXPECT_FALSE(judge::emulated_process());
  EXPECT_EQ(judge::take_not_judged(), "");
}

TEST(Emulation, OnlyBanklabEmulate1AsksForTheEmulator) {
  for (const char* v : {"", "0", "yes", "true"}) {
    setenv("BANKLAB_EMULATE", v, 1);
    EXPECT_FALSE(judge::emulation_wanted()) << v;
  }
  setenv("BANKLAB_EMULATE", "1", 1);
  EXPECT_TRUE(judge::emulation_wanted());
  unsetenv("BANKLAB_EMULATE");
  EXPECT_FALSE(judge::emulation_wanted());
}

}  // namespace
