// The fast count path of the model (what predict and the benchmark use) against the full
// analysis, on many random valid patterns of every width, op and mask shape.
#include <gtest/gtest.h>

#include <random>

#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"

namespace banklab {
namespace {

TEST(ModelAgreement, CountAndMinimumMatchTheFullAnalysisOnRandomPatterns) {
  std::mt19937 rng(2024);
  int checked = 0;
  for (int n = 0; n < 100000; ++n) {
    WarpAccess a;
    a.op = rng() % 2 ? Op::Store : Op::Load;
    a.width = kLegalWidths[rng() % (sizeof kLegalWidths / sizeof kLegalWidths[0])];
    switch (rng() % 4) {
      case 0: a.mask = 0xffffffffu; break;
      case 1: a.mask = static_cast<std::uint32_t>(rng()); break;
      case 2: a.mask = 0x55555555u & static_cast<std::uint32_t>(rng()); break;
      default: a.mask = 0xffffffffu << (rng() % 32); break;
    }
    // Small regions make repeated words, conflicts and merges likely; some reach the top.
    const std::uint32_t region = (rng() % 8 == 0) ? kMaxSharedBytesPerBlock : 64u << (rng() % 8);
    const std::uint32_t elems = region / static_cast<std::uint32_t>(a.width);
    const int kind = static_cast<int>(rng() % 3);
    for (int i = 0; i < kWarpSize; ++i) {
      std::uint32_t e = rng() % elems;
      if (kind == 1 && (i & 1)) e = a.offset[static_cast<std::size_t>(i - 1)] / static_cast<std::uint32_t>(a.width);
      if (kind == 2 && (i & 2)) e = a.offset[static_cast<std::size_t>(i - 2)] / static_cast<std::uint32_t>(a.width);
      a.offset[static_cast<std::size_t>(i)] = e * static_cast<std::uint32_t>(a.width);
    }
    ASSERT_FALSE(validate(a).has_value()) << format_access_line(a);
    const Analysis r = analyze(a);
    ASSERT_EQ(count_wavefronts(a), r.wavefronts) << format_access_line(a);
    ASSERT_EQ(minimum_wavefronts(a), r.minimum) << format_access_line(a);
    ++checked;
  }
  EXPECT_EQ(checked, 100000);
}

}  // namespace
}  // namespace banklab
