// Behaviours of the reference bank model, one per test.
#include "banklab/model.hpp"

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace banklab {
namespace {
using test::make;
using test::strided;

TEST(Model, ConsecutiveWordsAreConflictFree) {
  EXPECT_EQ(count_wavefronts(strided(Op::Load, 4, 1)), 1);
}

TEST(Model, StrideTwoWordsIsATwoWayConflict) {
  EXPECT_EQ(count_wavefronts(strided(Op::Load, 4, 2)), 2);
}

TEST(Model, OddStridesAreConflictFree) {
  for (std::uint32_t s : {3u, 5u, 7u, 9u, 17u, 31u, 33u})
    EXPECT_EQ(count_wavefronts(strided(Op::Load, 4, s)), 1) << "stride " << s;
}

TEST(Model, StrideThirtyTwoPutsTheWholeWarpInOneBank) {
  const Analysis r = analyze(strided(Op::Load, 4, 32));
  EXPECT_EQ(r.wavefronts, 32);
  EXPECT_EQ(r.minimum, 1);
  EXPECT_EQ(r.groups.at(0).worst_bank, 0);
}

TEST(Model, PowerOfTwoStrideSGivesAnSWayConflict) {
  for (std::uint32_t s : {2u, 4u, 8u, 16u, 32u})
    EXPECT_EQ(count_wavefronts(strided(Op::Load, 4, s)), static_cast<int>(s)) << "stride " << s;
}

TEST(Model, StrideThirtyThreeIsConflictFree) {
  EXPECT_EQ(count_wavefronts(strided(Op::Load, 4, 33)), 1);
}

TEST(Model, AllLanesReadingOneWordIsABroadcast) {
  const Analysis r = analyze(strided(Op::Load, 4, 0));
  EXPECT_EQ(r.wavefronts, 1);
  EXPECT_EQ(r.conflicts(), 0);
  ASSERT_EQ(r.wavefront_detail.size(), 1u);
  for (const LaneWord& x : r.wavefront_detail[0].served) EXPECT_TRUE(x.shared);
}

TEST(Model, AllLanesStoringToOneWordIsNotAConflict) {
  EXPECT_EQ(count_wavefronts(strided(Op::Store, 4, 0)), 1);
}

TEST(Model, BytesAndShortsBehaveAsAccessesToTheirWord) {
  // 32 consecutive bytes live in 8 words: a multicast, one wavefront.
  EXPECT_EQ(count_wavefronts(strided(Op::Load, 1, 1)), 1);
  // shorts at a stride of 64 elements = 128 bytes: every lane in bank 0, other words.
  EXPECT_EQ(count_wavefronts(strided(Op::Load, 2, 64)), 32);
}

TEST(Model, InactiveLanesNeverCost) {
  // stride 2 over the low half only: 16 lanes over 32 banks, no conflict.
  EXPECT_EQ(count_wavefronts(strided(Op::Load, 4, 2, 0x0000ffffu)), 1);
  EXPECT_EQ(count_wavefronts(strided(Op::Load, 4, 32, 0x00000001u)), 1);
}

TEST(Model, NoActiveLaneTakesNoWavefront) {
  EXPECT_EQ(count_wavefronts(strided(Op::Load, 4, 1, 0)), 0);
  EXPECT_EQ(minimum_wavefronts(strided(Op::Load, 4, 1, 0)), 0);
}

TEST(Model, ContiguousFloat2LoadTakesTwoHalfWarpWavefronts) {
  const Analysis r = analyze(strided(Op::Load, 8, 1));
  EXPECT_EQ(r.wavefronts, 2);
  EXPECT_EQ(r.minimum, 2);
  EXPECT_EQ(r.grouping, Grouping::HalfWarps);
  EXPECT_FALSE(r.merged);
}

TEST(Model, Float2LoadMergesIntoOneGroupWhenLanePairsShareAnAddress) {
  // lanes i and i^1 read the same float2: 16 distinct float2 = 32 words, one wavefront.
  const Analysis r = analyze(make(Op::Load, 8, [](int i) { return static_cast<std::uint32_t>(i / 2) * 8; }));
  EXPECT_TRUE(r.merged);
  EXPECT_EQ(r.grouping, Grouping::Warp);
  EXPECT_EQ(r.wavefronts, 1);
}

TEST(Model, Float2LoadMergesWhenTheI2PartnerIsInactive) {
  // only lanes with bit 1 clear are active, so lane i^2 is always inactive; the 16 active
  // lanes read 16 consecutive float2 (32 words): one wavefront once merged, 2 as half-warps.
  const Analysis r = analyze(make(Op::Load, 8, [](int i) { return static_cast<std::uint32_t>((i / 4) * 2 + i % 4) * 8; },
                                  0x33333333u));
  EXPECT_TRUE(r.merged);
  EXPECT_EQ(r.wavefronts, 1);
}

TEST(Model, Float2StoresNeverMerge) {
  const Analysis r = analyze(make(Op::Store, 8, [](int i) { return static_cast<std::uint32_t>(i / 2) * 8; }));
  EXPECT_FALSE(r.merged);
  EXPECT_EQ(r.grouping, Grouping::HalfWarps);
  EXPECT_EQ(r.wavefronts, 2);
}

TEST(Model, ContiguousFloat4TakesFourQuarterWarpWavefronts) {
  const Analysis r = analyze(strided(Op::Load, 16, 1));
  EXPECT_EQ(r.grouping, Grouping::QuarterWarps);
  EXPECT_EQ(r.wavefronts, 4);
  EXPECT_EQ(r.minimum, 4);
}

TEST(Model, Float4LoadMergesIntoHalfWarpsButNeverIntoTheWholeWarp) {
  // every lane reads the same float4: merged halves, one wavefront each.
  const Analysis r = analyze(strided(Op::Load, 16, 0));
  EXPECT_TRUE(r.merged);
  EXPECT_EQ(r.grouping, Grouping::HalfWarps);
  EXPECT_EQ(r.wavefronts, 2);
}

TEST(Model, Float4StoresStayInQuarterWarps) {
  EXPECT_EQ(analyze(strided(Op::Store, 16, 0)).grouping, Grouping::QuarterWarps);
  EXPECT_EQ(count_wavefronts(strided(Op::Store, 16, 0)), 4);
}

TEST(Model, LanePairsSharingAFloat4AtStrideTwoShowTwoConflictsButTakeFourWavefronts) {
  // The measured case behind Nsight Compute's surprising counter: merged half-warps whose ideal
  // is one wavefront each, so ncu reports 2 "conflicts" on an access as fast as plain float4.
  const Analysis r = analyze(make(Op::Load, 16, [](int i) { return static_cast<std::uint32_t>(i / 2) * 32; }));
  EXPECT_TRUE(r.merged);
  EXPECT_EQ(r.wavefronts, 4);
  EXPECT_EQ(r.minimum, 2);
  EXPECT_EQ(r.conflicts(), 2);
}

TEST(Model, EveryRequestedWordIsServedExactlyOnceInTheDetail) {
  const Analysis r = analyze(strided(Op::Load, 8, 2));
  int served = 0;
  for (const Wavefront& w : r.wavefront_detail) served += static_cast<int>(w.served.size());
  EXPECT_EQ(served, 64);  // 32 lanes x 2 words
  EXPECT_EQ(static_cast<int>(r.wavefront_detail.size()), r.wavefronts);
}

TEST(Model, ValidateRejectsAMisalignedOffset) {
  WarpAccess a = strided(Op::Load, 8, 1);
  a.offset[3] = 4;
  ASSERT_TRUE(validate(a).has_value());
  EXPECT_NE(validate(a)->find("lane 3"), std::string::npos);
}

TEST(Model, ValidateRejectsAnOffsetBeyondSharedMemory) {
  WarpAccess a = strided(Op::Load, 4, 1);
  a.offset[0] = kMaxSharedBytesPerBlock;
  EXPECT_TRUE(validate(a).has_value());
  a.offset[0] = kMaxSharedBytesPerBlock - 4;
  EXPECT_FALSE(validate(a).has_value());
}

TEST(Model, ValidateRejectsWidthThree) {
  WarpAccess a = strided(Op::Load, 4, 1);
  a.width = 3;
  EXPECT_TRUE(validate(a).has_value());
}

TEST(Model, CountAndMinimumAgreeWithTheFullAnalysis) {
  std::uint32_t x = 12345;
  auto rnd = [&] { x = x * 1664525u + 1013904223u; return x >> 8; };
  for (int n = 0; n < 2000; ++n) {
    const int width = 1 << (2 + static_cast<int>(rnd() % 3));
    const std::uint32_t range = 1u + rnd() % 4096;
    WarpAccess a = make(n % 2 ? Op::Load : Op::Store, width,
                        [&](int) { return (rnd() % range) * static_cast<std::uint32_t>(width); },
                        rnd() | rnd() << 16);
    const Analysis r = analyze(a);
    ASSERT_EQ(r.wavefronts, count_wavefronts(a));
    ASSERT_EQ(r.minimum, minimum_wavefronts(a));
    ASSERT_LE(r.minimum, r.wavefronts);
  }
}

}  // namespace
}  // namespace banklab
