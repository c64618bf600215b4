// Where the judge emulates (grader/judge/emulation.cpp), without a GPU: which tests time (skipped
// on the emulator: the lab's table says, not the name), a process linked against NVIDIA's runtime is
// never taken for the emulated twin (the twin's side: emu.Shim.IsTheEmulatedDevice), and when the
// judge emulates: by default where no GPU is usable, for a lab of the emulated tier, not in graded
// mode without --emulate-gpu; BANKLAB_EMULATE=0 never, =1 always.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "banklab/cuda_check.cuh"
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

// Who decides, as data: BANKLAB_EMULATE (unset, "0", "1", another word), the lab, graded mode
// without --emulate-gpu (a GPU required), whether a GPU is usable here; the answer, and whether
// the GPU was asked about at all (a traced process must make no CUDA call before its session).
struct Choice {
  const char* emulate;  // nullptr: unset
  const char* lab;
  bool gpu_required;
  bool no_gpu;
  bool wanted;
  bool asks;
};

constexpr Choice kChoices[] = {
    {nullptr, "00", false, true, true, true},     // the default where no GPU is usable: the emulator
    {nullptr, "00", false, false, false, true},   // a usable GPU: the GPU
    {nullptr, "00", true, true, false, false},    // graded mode needs a GPU (no --emulate-gpu)
    {nullptr, "99", false, true, false, false},   // a lab whose emulated tier is not checked: "no GPU" skip
    {"yes", "00", false, true, true, true},       // any other word is the default
    {"", "00", false, false, false, true},
    {"0", "00", false, true, false, false},       // never, whatever the machine
    {"1", "99", true, false, true, false},        // always, whatever the lab, the mode and the machine
};

TEST(Emulation, TheDefaultEmulatesWhereNoGpuIsUsableAndBanklabEmulateOverridesIt) {
  for (const Choice& c : kChoices) {
    if (c.emulate) setenv("BANKLAB_EMULATE", c.emulate, 1);
    else unsetenv("BANKLAB_EMULATE");
    bool asked = false;
    const bool wanted = judge::emulation_wanted(c.lab, c.gpu_required, [&] {
      asked = true;
      return c.no_gpu;
    });
    const std::string what = std::string(c.emulate ? c.emulate : "(unset)") + " lab " + c.lab;
    EXPECT_EQ(wanted, c.wanted) << what;
    EXPECT_EQ(asked, c.asks) << what;
  }
  unsetenv("BANKLAB_EMULATE");
}

TEST(Emulation, OnlyTheCheckedLabsAreEmulatedByDefault) {
  EXPECT_TRUE(judge::lab_is_emulated("00"));  // the first lab of the emulated tier
  for (const char* lab : {"99", "0", "", "00 ", " 00", "00 01"}) EXPECT_FALSE(judge::lab_is_emulated(lab)) << lab;
}

// This machine as the judge sees it: without a usable GPU (CI, this project's own machine) the
// default is the emulator; with one, the GPU. The traced way (a child asks) agrees with the plain one.
TEST(Emulation, OnThisMachineTheDefaultFollowsTheGpu) {
  unsetenv("BANKLAB_EMULATE");
  const bool no_gpu = banklab::no_gpu_reason()[0] != '\0';
  EXPECT_EQ(judge::no_usable_gpu(true), no_gpu);
  EXPECT_EQ(judge::no_usable_gpu(false), no_gpu);
  EXPECT_EQ(judge::emulation_wanted("00", false, [] { return judge::no_usable_gpu(false); }), no_gpu);
}

}  // namespace
