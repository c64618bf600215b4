// The address helpers shared by kernels and grader.
#include "banklab/hardware.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <type_traits>
#include <vector>

namespace banklab {
namespace {

TEST(Hardware, BankIsTheWordIndexModulo32) {
  EXPECT_EQ(bank_of(0), 0);
  EXPECT_EQ(bank_of(4), 1);
  EXPECT_EQ(bank_of(127), 31);
  EXPECT_EQ(bank_of(128), 0);
  EXPECT_EQ(bank_of(kMaxSharedBytesPerBlock - 4), 31);
}

TEST(Hardware, APaddedRowShiftsAColumnByOneBankPerRow) {
  for (int r = 0; r < 32; ++r)
    EXPECT_EQ(bank_of(4u * static_cast<std::uint32_t>(padded_index(r, 0, 32, 1))), r);
}

TEST(Hardware, TheSwizzleIsItsOwnInverse) {
  constexpr Swizzle<3, 4, 3> s;
  for (std::uint32_t x = 0; x < 4096; ++x) EXPECT_EQ(s(s(x)), x);
}

TEST(Hardware, TheSwizzleIsABijectionOnATile) {
  constexpr Swizzle<3, 4, 3> s;
  std::set<std::uint32_t> seen;
  for (std::uint32_t x = 0; x < 1024; ++x) seen.insert(s(x));
  EXPECT_EQ(seen.size(), 1024u);
  EXPECT_EQ(*seen.rbegin(), 1023u);
}

TEST(Hardware, TheSwizzleXorsRowBitsIntoChunkBits) {
  constexpr Swizzle<3, 4, 3> s;
  // row 1 (bit 7), chunk 0 -> chunk 1
  EXPECT_EQ(s(128u), 128u + 16u);
  static_assert(Swizzle<3, 4, 3>::kTargetMask == 0x70u);
  static_assert(Swizzle<3, 4, 3>::kSourceMask == 0x380u);
}

TEST(Hardware, TheColumnXorSwizzleSpreadsAColumnOverAllBanks) {
  std::set<int> banks;
  for (int r = 0; r < 32; ++r) banks.insert(bank_of(4u * static_cast<std::uint32_t>(xor_swizzle_index(r, 5))));
  EXPECT_EQ(banks.size(), 32u);
}


// The TMA swizzle modes, written from the CUDA programming guide's description (chunk within a
// span XOR line), against CuTe's Swizzle<B, 4, 3> on every byte offset of shared memory.
template <TmaSwizzle Mode, int B>
void expect_tma_mode_is_cute_swizzle() {
  static_assert(std::is_same_v<TmaSwizzleOf<Mode>, Swizzle<B, 4, 3>>);
  constexpr Swizzle<B, 4, 3> cute;
  std::uint32_t differ = 0, first = 0;
  for (std::uint32_t off = 0; off < kMaxSharedBytesPerBlock; ++off)
    if (tma_swizzled_offset(Mode, off) != cute(off) && differ++ == 0) first = off;
  EXPECT_EQ(differ, 0u) << "TMA " << static_cast<std::uint32_t>(Mode) << "-byte swizzle differs from Swizzle<" << B
                        << ", 4, 3> first at byte " << first;
}

TEST(Hardware, TheTmaSwizzleModesAreCuteSwizzlesOnByteOffsets) {
  expect_tma_mode_is_cute_swizzle<TmaSwizzle::Bytes32, 1>();
  expect_tma_mode_is_cute_swizzle<TmaSwizzle::Bytes64, 2>();
  expect_tma_mode_is_cute_swizzle<TmaSwizzle::Bytes128, 3>();
  for (std::uint32_t off = 0; off < 4096; ++off) EXPECT_EQ(tma_swizzled_offset(TmaSwizzle::None, off), off);
}

TEST(Hardware, ATmaSwizzlePermutesTheChunksOfEachSpanAndRepeatsEveryPeriod) {
  for (TmaSwizzle mode : {TmaSwizzle::Bytes32, TmaSwizzle::Bytes64, TmaSwizzle::Bytes128}) {
    const std::uint32_t span = static_cast<std::uint32_t>(mode), period = tma_swizzle_period(mode);
    EXPECT_EQ(period, span * 8u);
    std::vector<int> seen(period, 0);
    for (std::uint32_t off = 0; off < period; ++off) {
      const std::uint32_t to = tma_swizzled_offset(mode, off);
      ++seen[to];
      EXPECT_EQ(to % 16u, off % 16u) << "a byte stays in its 16-byte chunk";
      EXPECT_EQ(to / span, off / span) << "chunks move only inside their span";
      EXPECT_EQ(tma_swizzled_offset(mode, off + period), to + period) << "the pattern repeats every period";
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(period)) << "a bijection of each period";
  }
}

TEST(Hardware, The128ByteTmaSwizzleSpreadsAChunkColumnOfEightLinesOverAllBanks) {
  // The layout a TMA copy with 128-byte rows and SWIZZLE_128B leaves: chunk c of row r at
  // chunk c ^ (r % 8), so 8 rows read at one chunk (ldmatrix's 8 row addresses) use 32 banks.
  for (std::uint32_t c = 0; c < 8; ++c) {
    std::uint32_t banks = 0;
    for (std::uint32_t r = 0; r < 8; ++r) {
      const std::uint32_t off = tma_swizzled_offset(TmaSwizzle::Bytes128, r * 128u + c * 16u);
      EXPECT_EQ(off, r * 128u + ((c ^ r) * 16u));
      for (std::uint32_t w = 0; w < 4; ++w) banks |= 1u << bank_of(off + 4u * w);
    }
    EXPECT_EQ(banks, 0xffffffffu) << "chunk " << c;
  }
}

}  // namespace
}  // namespace banklab
