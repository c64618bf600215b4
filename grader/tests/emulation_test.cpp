// Where the judge emulates (grader/judge/emulation.cpp), without a GPU: which tests time (skipped
// on the emulator), and a process linked against NVIDIA's runtime is never taken for the emulated
// twin (the twin's side: emu.Shim.IsTheEmulatedDevice), nor execs one unless BANKLAB_EMULATE=1.
#include <gtest/gtest.h>

#include <cstdlib>

#include "emulation.hpp"

namespace {

struct Named {
  const char* test;
  bool timed;
};

// Every kind of GPU test name the labs hold (build/*/judge/labNN.tests), as data.
constexpr Named kNames[] = {
    {"Lab00OnGpu.TileStoresMeetTheTimingTarget", true},
    {"Lab00OnGpu.MultiplyByIMeetsTheKernelTimingTarget", true},
    {"Lab04OnGpu.TransposeTimedBesideATiledCopyStillTransposes", true},
    {"Lab03OnGpu.PairSharedFloat4LoadCostsNoMoreThanAContiguousOne", true},
    {"Lab00OnGpu.MultiplyByIIsCorrect", false},
    {"Lab00OnGpu.RealAddressesHaveTheBanksOfTheFormula", false},
    {"Lab05OnGpu.TracedSharedAccessesOfBothKernelsAreConflictFree", false},
    {"Lab04OnGpu.TransposeIsCorrectForANonSquareMatrix", false},
};

TEST(Emulation, TimedTestsAreKnownByTheirNames) {
  for (const Named& n : kNames) EXPECT_EQ(judge::is_timed(n.test), n.timed) << n.test;
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
