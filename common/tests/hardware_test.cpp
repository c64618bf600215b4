// The address helpers shared by kernels and grader.
#include "banklab/hardware.hpp"

#include <gtest/gtest.h>

#include <set>

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

}  // namespace
}  // namespace banklab
