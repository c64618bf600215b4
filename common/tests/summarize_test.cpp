// summarize(): the one-pass answer (wavefronts, minimum, grouping, merged) against analyze(),
// the slow path that also explains, on every op, width and mask shape.
#include <gtest/gtest.h>

#include <random>

#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"
#include "test_util.hpp"

namespace banklab {
namespace {
using test::make;
using test::strided;

constexpr std::size_t kNumWidths = sizeof kLegalWidths / sizeof kLegalWidths[0];

// A random valid access whose shape is drawn from `rng`: masks full, random, every other lane,
// a suffix, one lane or none; offsets random in a small region (repeated words, conflicts),
// random over the whole 227 KiB (wide offsets), strided, in pairs or quads that share an
// address (merges), all on one word (broadcast), or at the very top of shared memory.
WarpAccess random_access(std::mt19937& rng) {
  WarpAccess a;
  a.op = rng() % 2 ? Op::Store : Op::Load;
  a.width = kLegalWidths[rng() % kNumWidths];
  switch (rng() % 6) {
    case 0: a.mask = 0xffffffffu; break;
    case 1: a.mask = static_cast<std::uint32_t>(rng()); break;
    case 2: a.mask = 0x55555555u & static_cast<std::uint32_t>(rng()); break;
    case 3: a.mask = 0xffffffffu << (rng() % 32); break;
    case 4: a.mask = 1u << (rng() % 32); break;
    default: a.mask = rng() % 4 ? 0xffffffffu : 0u; break;
  }
  const auto w = static_cast<std::uint32_t>(a.width);
  const std::uint32_t elems_all = kMaxSharedBytesPerBlock / w;
  const std::uint32_t elems = (rng() % 4 == 0) ? elems_all : (64u << (rng() % 10)) / w;
  const std::uint32_t base = rng() % elems;
  const std::uint32_t stride = rng() % 70;
  const int kind = static_cast<int>(rng() % 7);
  for (int i = 0; i < kWarpSize; ++i) {
    const auto u = static_cast<std::uint32_t>(i);
    std::uint32_t e = 0;
    switch (kind) {
      case 0: e = rng() % elems; break;                                   // random
      case 1: e = (base + u * stride) % elems_all; break;                 // strided
      case 2: e = (base + (u / 2) * stride) % elems_all; break;           // pairs share (i^1)
      case 3: e = (base + (u & ~2u) * stride) % elems_all; break;         // i^2 partners share
      case 4: e = base; break;                                            // broadcast
      case 5: e = elems_all - 1 - rng() % 64; break;                      // the top
      default: e = (rng() % 2) ? base : rng() % elems; break;             // partly shared
    }
    a.offset[static_cast<std::size_t>(i)] = e * w;
  }
  return a;
}

void expect_same_as_analyze(const WarpAccess& a, const Summary& s) {
  const Analysis r = analyze(a);
  ASSERT_EQ(s.wavefronts, r.wavefronts) << format_access_line(a);
  ASSERT_EQ(s.minimum, r.minimum) << format_access_line(a);
  ASSERT_EQ(s.grouping, r.grouping) << format_access_line(a);
  ASSERT_EQ(s.merged, r.merged) << format_access_line(a);
}

TEST(Summarize, AgreesWithAnalyzeOnRandomAccessesOfEveryShape) {
  std::mt19937 rng(20261122);
  int shapes[2][5][3] = {};  // op x width x grouping seen
  for (int n = 0; n < 200000; ++n) {
    const WarpAccess a = random_access(rng);
    ASSERT_TRUE(is_valid(a)) << format_access_line(a);
    const Summary s = summarize(a);
    expect_same_as_analyze(a, s);
    if (HasFatalFailure()) return;
    int wi = 0;
    while (kLegalWidths[wi] != a.width) ++wi;
    ++shapes[a.op == Op::Store][wi][static_cast<int>(s.grouping)];
  }
  // Every shape the hardware has was drawn many times: merged and unmerged wide loads too.
  for (int op = 0; op < 2; ++op) {
    for (int wi = 0; wi < 5; ++wi) {
      const int w = kLegalWidths[wi];
      if (w <= 4) EXPECT_GT(shapes[op][wi][0], 1000) << "width " << w;
      if (w == 8) EXPECT_GT(shapes[op][wi][1], 1000) << "width 8 half-warps";
      if (w == 16) EXPECT_GT(shapes[op][wi][2], 1000) << "width 16 quarter-warps";
      if (op == 0 && w == 8) EXPECT_GT(shapes[op][wi][0], 1000) << "merged 64-bit loads";
      if (op == 0 && w == 16) EXPECT_GT(shapes[op][wi][1], 1000) << "merged 128-bit loads";
    }
  }
}

TEST(Summarize, ThePortablePathAgreesWithAnalyzeToo) {
  std::mt19937 rng(7);
  for (int n = 0; n < 50000; ++n) {
    const WarpAccess a = random_access(rng);
    expect_same_as_analyze(a, detail::summarize_portable(a));
    if (HasFatalFailure()) return;
  }
}

TEST(Summarize, CountAndMinimumAreItsNumbers) {
  std::mt19937 rng(99);
  for (int n = 0; n < 20000; ++n) {
    const WarpAccess a = random_access(rng);
    const Summary s = summarize(a);
    ASSERT_EQ(count_wavefronts(a), s.wavefronts) << format_access_line(a);
    ASSERT_EQ(minimum_wavefronts(a), s.minimum) << format_access_line(a);
    bool merged = false;
    ASSERT_EQ(grouping_of(a, &merged), s.grouping) << format_access_line(a);
    ASSERT_EQ(merged, s.merged) << format_access_line(a);
  }
}

TEST(Summarize, AStrideOfThirtyTwoWordsTakesThirtyTwoWavefrontsWithMinimumOne) {
  const Summary s = summarize(strided(Op::Load, 4, 32));
  EXPECT_EQ(s.wavefronts, 32);
  EXPECT_EQ(s.minimum, 1);
  EXPECT_EQ(s.conflicts(), 31);
  EXPECT_EQ(s.grouping, Grouping::Warp);
  EXPECT_FALSE(s.merged);
}

TEST(Summarize, AMergedFloat2LoadIsOneWarpWideGroup) {
  // Lanes 2k and 2k+1 read the same float2: the 64-bit load merges.
  const Summary s = summarize(make(Op::Load, 8, [](int i) { return static_cast<std::uint32_t>(i / 2) * 8u; }));
  EXPECT_TRUE(s.merged);
  EXPECT_EQ(s.grouping, Grouping::Warp);
  EXPECT_EQ(s.wavefronts, 1);
}

TEST(Summarize, NoActiveLaneTakesNoWavefront) {
  const Summary s = summarize(strided(Op::Load, 16, 1, 0u));
  EXPECT_EQ(s.wavefronts, 0);
  EXPECT_EQ(s.minimum, 0);
}

TEST(Summarize, OffsetsAtTheTopOfSharedMemoryAreCounted) {
  // Every lane in bank 31 of a different row near the 227 KiB limit: 32 wavefronts.
  const Summary s = summarize(make(Op::Load, 4, [](int i) {
    return kMaxSharedBytesPerBlock - 4u - static_cast<std::uint32_t>(i) * 128u;
  }));
  EXPECT_EQ(s.wavefronts, 32);
  EXPECT_EQ(s.minimum, 1);
}

TEST(Summarize, AnInvalidAccessStillGetsTheGeneralPathsAnswer) {
  WarpAccess a = strided(Op::Load, 4, 1);
  a.offset[3] = 2;  // misaligned: not valid input, but the answer must not crash or change
  ASSERT_FALSE(is_valid(a));
  const Summary s = summarize(a);
  EXPECT_EQ(s.wavefronts, analyze(a).wavefronts);
  EXPECT_EQ(s.minimum, analyze(a).minimum);
}

TEST(IsValid, SaysYesExactlyWhenValidateFindsNothing) {
  std::mt19937 rng(5);
  int invalid = 0;
  for (int n = 0; n < 20000; ++n) {
    WarpAccess a = random_access(rng);
    switch (rng() % 4) {
      case 0: a.width = static_cast<int>(rng() % 20); break;                                    // maybe illegal
      case 1: a.offset[rng() % 32] += static_cast<std::uint32_t>(rng() % 4); break;             // maybe misaligned
      case 2: a.offset[rng() % 32] = kMaxSharedBytesPerBlock - static_cast<std::uint32_t>(rng() % 64); break;
      default: break;
    }
    ASSERT_EQ(is_valid(a), !validate(a).has_value()) << format_access_line(a);
    invalid += !is_valid(a);
  }
  EXPECT_GT(invalid, 1000);
}

TEST(LegalWidths, AreOneTwoFourEightAndSixteenBytes) {
  EXPECT_EQ(legal_widths_text(), "1, 2, 4, 8, 16");
  for (int w = -1; w <= 32; ++w)
    EXPECT_EQ(is_legal_width(w), w == 1 || w == 2 || w == 4 || w == 8 || w == 16) << w;
}

}  // namespace
}  // namespace banklab
