// nvcc's PTX of a block reduction (emu/tests/data/block_reduce.cu): 8 warps a block, 4 blocks,
// __syncthreads in a loop whose active lanes halve each step, divergent inside warp 0 at the end.
// The sums against the CPU's, and the shared-memory warp instructions per line and mask, worked
// out by hand from the source.
#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

#include "emu_harness.hpp"

namespace banklab::emu::test {
namespace {

TEST(MultiWarp, ABlockReductionSumsAndRecordsEveryStep) {
  Emu e(read_text(BANKLAB_EMU_PTX_BLOCK_REDUCE));
  constexpr int kBlocks = 4, kThreads = 256;
  std::vector<int> in(kBlocks * kThreads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 7 % 101) - 50;
  const std::uint64_t d_in = e.upload(in), d_out = e.alloc(kBlocks * 4);
  e.cfg.grid.x = kBlocks;
  e.cfg.block.x = kThreads;
  const LaunchResult r = e.run(e.kernel("_Z12block_reducePKiPi"), {d_in, d_out});
  ASSERT_TRUE(r.ok()) << r.message;
  const std::vector<int> out = e.download<int>(d_out, kBlocks);
  for (int b = 0; b < kBlocks; ++b) {
    int sum = 0;
    for (int t = 0; t < kThreads; ++t) sum += in[static_cast<std::size_t>(b * kThreads + t)];
    EXPECT_EQ(out[static_cast<std::size_t>(b)], sum) << "block " << b;
  }
  // Per (line, op, mask): warp instructions. Line 7 stores the block's 8 warps; line 10, for
  // s = 128, 64, 32, the s / 32 full warps, then s = 16 .. 1 warp 0's first s lanes, two loads and
  // a store each; line 13 lane 0's load of sh[0].
  std::map<std::pair<int, std::uint32_t>, std::uint64_t> loads, stores;
  for (const trace::Instruction& i : e.trace.take_instructions())
    (i.access.op == Op::Load ? loads : stores)[{i.line, i.access.mask}] += i.count;
  const std::map<std::pair<int, std::uint32_t>, std::uint64_t> want_loads = {
      {{10, 0xffffffffu}, 2 * 7 * kBlocks}, {{10, 0xffffu}, 2 * kBlocks}, {{10, 0xffu}, 2 * kBlocks},
      {{10, 0xfu}, 2 * kBlocks}, {{10, 0x3u}, 2 * kBlocks}, {{10, 0x1u}, 2 * kBlocks}, {{13, 0x1u}, kBlocks}};
  const std::map<std::pair<int, std::uint32_t>, std::uint64_t> want_stores = {
      {{7, 0xffffffffu}, 8 * kBlocks}, {{10, 0xffffffffu}, 7 * kBlocks}, {{10, 0xffffu}, kBlocks},
      {{10, 0xffu}, kBlocks}, {{10, 0xfu}, kBlocks}, {{10, 0x3u}, kBlocks}, {{10, 0x1u}, kBlocks}};
  EXPECT_EQ(loads, want_loads);
  EXPECT_EQ(stores, want_stores);
}

}  // namespace
}  // namespace banklab::emu::test
