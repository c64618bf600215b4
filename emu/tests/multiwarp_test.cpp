// nvcc's PTX of a block reduction (emu/tests/data/block_reduce.cu): 8 warps a block, 4 blocks,
// __syncthreads in a loop whose active lanes halve each step, divergent inside warp 0 at the end.
// The sums against the CPU's, and the shared-memory warp instructions per line and mask, worked
// out by hand from the source.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "banklab_emu/emulator.hpp"

namespace banklab::emu::test {
namespace {

TEST(MultiWarp, ABlockReductionSumsAndRecordsEveryStep) {
  std::ifstream f(BANKLAB_EMU_PTX_BLOCK_REDUCE);
  std::ostringstream text;
  text << f.rdbuf();
  const Module mod = parse_ptx(text.str());
  const Kernel* k = mod.find("_Z12block_reducePKiPi");
  ASSERT_NE(k, nullptr);
  constexpr int kBlocks = 4, kThreads = 256;
  std::vector<int> in(kBlocks * kThreads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 7 % 101) - 50;
  Device dev;
  std::uint64_t bufs[2] = {dev.alloc(in.size() * 4), dev.alloc(kBlocks * 4)};
  dev.write(bufs[0], in.data(), in.size() * 4);
  void* args[] = {&bufs[0], &bufs[1]};
  LaunchConfig cfg;
  cfg.grid.x = kBlocks;
  cfg.block.x = kThreads;
  EmuTrace tr;
  const LaunchResult r = launch(mod, *k, cfg, pack_params(*k, args), dev, &tr);
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<int> out(kBlocks);
  dev.read(bufs[1], out.data(), out.size() * 4);
  for (int b = 0; b < kBlocks; ++b) {
    int sum = 0;
    for (int t = 0; t < kThreads; ++t) sum += in[static_cast<std::size_t>(b * kThreads + t)];
    EXPECT_EQ(out[static_cast<std::size_t>(b)], sum) << "block " << b;
  }
  // Per (line, op, mask): warp instructions. Line 7 stores the block's 8 warps; line 10, for
  // s = 128, 64, 32, the s / 32 full warps, then s = 16 .. 1 warp 0's first s lanes, two loads and
  // a store each; line 13 lane 0's load of sh[0].
  std::map<std::pair<int, std::uint32_t>, std::uint64_t> loads, stores;
  for (const trace::Instruction& i : tr.take_instructions())
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
