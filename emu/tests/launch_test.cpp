// The executor's records (what the tracer would record), its limits and its refusals.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "banklab/model.hpp"
#include "emu_harness.hpp"

namespace banklab::emu::test {
namespace {

TEST(Records, AVectorStoreIsOneWarpInstructionOf16BytesALane) {
  const BodyRun r = run_body("shl.b32 %r2, %r10, 4;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\n"
                         "st.shared.v4.u32 [%r4], {%r10, %r10, %r10, %r10};");
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  ASSERT_EQ(r.shared.size(), 1u);
  const trace::Instruction& i = r.shared[0];
  EXPECT_EQ(i.access.op, Op::Store);
  EXPECT_EQ(i.access.width, 16);
  EXPECT_EQ(i.access.mask, 0xffffffffu);
  EXPECT_EQ(i.count, 1u);
  for (int lane = 0; lane < 32; ++lane) EXPECT_EQ(i.access.offset[static_cast<std::size_t>(lane)], 16u * lane);
}

TEST(Records, APredicatedLoadHasTheLanesThatRanIt) {
  const BodyRun r = run_body("setp.lt.u32 %p1, %r10, 8;\nshl.b32 %r2, %r10, 2;\nmov.u32 %r3, buf;\nadd.s32 %r4, %r3, %r2;\n"
                         "@%p1 ld.shared.u32 %r1, [%r4];");
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  ASSERT_EQ(r.shared.size(), 1u);
  EXPECT_EQ(r.shared[0].access.op, Op::Load);
  EXPECT_EQ(r.shared[0].access.mask, 0xffu);
  for (int lane = 0; lane < 8; ++lane) EXPECT_EQ(r.shared[0].access.offset[static_cast<std::size_t>(lane)], 4u * lane);
}

TEST(Records, EachSideOfADivergentBranchIsItsOwnWarpInstruction) {
  const BodyRun r = run_body("and.b32 %r2, %r10, 1;\nsetp.eq.u32 %p1, %r2, 1;\nmov.u32 %r3, buf;\n@%p1 bra $L1;\n"
                         "ld.shared.u32 %r1, [%r3];\nbra.uni $L2;\n$L1:\nld.shared.u32 %r1, [%r3+4];\n$L2:\n"
                         "ld.shared.u32 %r5, [%r3+8];");
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  ASSERT_EQ(r.shared.size(), 3u);
  std::uint32_t masks = 0;
  for (const trace::Instruction& i : r.shared) {
    if (i.access.offset[0] == 8 || i.access.offset[1] == 8) EXPECT_EQ(i.access.mask, 0xffffffffu) << "reconverged";
    else masks ^= i.access.mask;
  }
  EXPECT_EQ(masks, 0xffffffffu);  // odd lanes and even lanes, once each
}

TEST(Records, RepeatedWarpInstructionsAreMergedWithACount) {
  const BodyRun r = run_body("mov.u32 %r2, 0;\nmov.u32 %r3, buf;\n$L1:\nst.shared.u32 [%r3], %r10;\nadd.s32 %r2, %r2, 1;\n"
                         "setp.lt.u32 %p1, %r2, 4;\n@%p1 bra $L1;");
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  ASSERT_EQ(r.shared.size(), 1u);
  EXPECT_EQ(r.shared[0].count, 4u);
}

TEST(Limits, ARunawayKernelRanMoreThanTheLimit) {
  const BodyRun r = run_body("$L1:\nbra.uni $L1;", 32, 1000);
  EXPECT_EQ(r.result.status, LaunchResult::Status::RanTooLong);
  EXPECT_NE(r.result.message.find("ran more than 1000 warp instructions"), std::string::npos) << r.result.message;
}

TEST(Limits, AnInstructionItDoesNotKnowIsNotJudgedAndNamed) {
  const BodyRun r = run_body("bfind.u32 %r1, %r10;\ncvt.u64.u32 %rd1, %r1;");
  EXPECT_EQ(r.result.status, LaunchResult::Status::NotJudged);
  EXPECT_EQ(r.result.message.rfind("not judged (emulator: ", 0), 0u) << r.result.message;
  EXPECT_NE(r.result.message.find("bfind"), std::string::npos) << r.result.message;
  EXPECT_NE(r.result.message.find("PTX line 22"), std::string::npos) << r.result.message;
  EXPECT_EQ(r.out[0], 0u) << "the launch ended there";
}

TEST(Limits, AnUnknownInstructionThatNeverRunsStopsNothing) {
  const BodyRun r = run_body("mov.u64 %rd1, 3;\nbra.uni $L1;\nbfind.u32 %r1, %r10;\n$L1:");
  EXPECT_TRUE(r.result.ok()) << r.result.message;
  EXPECT_EQ(r.out[0], 3u);
}

TEST(Limits, AnUnknownSuffixIsNotJudged) {
  const BodyRun r = run_body("add.sat.s32 %r1, %r10, 1;");
  EXPECT_EQ(r.result.status, LaunchResult::Status::NotJudged);
  EXPECT_NE(r.result.message.find(".sat"), std::string::npos) << r.result.message;
}

TEST(Faults, AGlobalAccessOutsideEveryAllocationFails) {
  const BodyRun r = run_body("ld.global.u64 %rd1, [%rd13+4096];");
  EXPECT_EQ(r.result.status, LaunchResult::Status::Fault);
  EXPECT_NE(r.result.message.find("outside every allocation"), std::string::npos) << r.result.message;
}

TEST(Faults, AMisalignedSharedAccessFails) {
  const BodyRun r = run_body("mov.u32 %r3, buf;\nld.shared.u32 %r1, [%r3+2];");
  EXPECT_EQ(r.result.status, LaunchResult::Status::Fault);
  EXPECT_NE(r.result.message.find("misaligned"), std::string::npos) << r.result.message;
}

TEST(Faults, ASharedAccessPastTheBlocksSharedMemoryFails) {
  const BodyRun r = run_body("mov.u32 %r3, buf;\nld.shared.u32 %r1, [%r3+1024];");
  EXPECT_EQ(r.result.status, LaunchResult::Status::Fault);
  EXPECT_NE(r.result.message.find("outside the block's shared memory"), std::string::npos) << r.result.message;
}

// nanosleep ends the warp's turn (no time passes on the emulator): warp 0 waits for a flag warp 1
// sets, and gets it at warp 1's next turn, not after its own 4096 instructions; a loop of sleeps
// that never ends runs to the limit.
TEST(Limits, ASleepingWarpLetsTheOthersRunAndAnEndlessSleepRunsTooLong) {
  const BodyRun r = run_body("mov.u32 %r3, buf;\nsetp.ne.u32 %p1, %r10, 32;\n@%p1 bra $Lwait;\nst.volatile.shared.u32 [%r3], 7;\n"
                             "bra.uni $Ldone;\n$Lwait:\nsetp.ge.u32 %p2, %r10, 32;\n@%p2 bra $Ldone;\n$Lspin:\n"
                             "ld.volatile.shared.u32 %r1, [%r3];\nsetp.eq.u32 %p3, %r1, 0;\n@!%p3 bra $Lgot;\nnanosleep.u32 %r10;\n"
                             "bra.uni $Lspin;\n$Lgot:\ncvt.u64.u32 %rd1, %r1;\n$Ldone:",
                             64);
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  EXPECT_EQ(r.out[0], 7u);
  EXPECT_EQ(r.out[31], 7u);
  EXPECT_LT(r.result.warp_instructions, 100u) << "warp 0 slept through its turn";
  const BodyRun forever = run_body("$L1:\nnanosleep.u32 1;\nbra.uni $L1;", 32, 10000);
  EXPECT_EQ(forever.result.status, LaunchResult::Status::RanTooLong) << forever.result.message;
}

TEST(Reconvergence, ABranchMeetsAtItsImmediatePostDominator) {
  // 0 setp; 1 @p bra L1; 2 mov; 3 bra L2; L1: 4 mov; L2: 5 add; 6 ret
  const Module m = parse_ptx(kernel_around("setp.lt.u32 %p1, %r10, 2;\n@%p1 bra $L1;\nmov.u32 %r1, 2;\nbra.uni $L2;\n"
                                           "$L1:\nmov.u32 %r1, 1;\n$L2:\nadd.u32 %r1, %r1, 1;"));
  const Kernel& k = m.kernels.at(0);
  int branch = -1, join = -1;
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    if (k.code[i].family == Family::Bra && k.code[i].guard >= 0) branch = static_cast<int>(i);
    if (k.code[i].text.rfind("add.u32", 0) == 0) join = static_cast<int>(i);
  }
  ASSERT_GE(branch, 0);
  EXPECT_EQ(k.reconverge[static_cast<std::size_t>(branch)], join);
}

TEST(Parse, MalformedDeclarationsNameTheirLine) {
  EXPECT_THROW(parse_ptx(".visible .entry t(\n.param .u64 p\n)\n{\n.reg .b32 %r<0>;\nret;\n}\n"), std::runtime_error);
  EXPECT_THROW(parse_ptx(".visible .entry t(\n)\n{\nret;\n"), std::runtime_error);  // no end
}

}  // namespace
}  // namespace banklab::emu::test

namespace banklab::emu::test {
namespace {

// The PTX is the student's: text cut short or changed anywhere is refused or run, never a crash.
// nvcc's PTX of the block reduction cut at 300 places and with 300 single bytes changed, each run
// on 2 blocks with a small instruction limit.
TEST(Untrusted, CutOrChangedPtxIsRefusedOrRunNeverACrash) {
  const std::string ptx = read_text(BANKLAB_EMU_PTX_BLOCK_REDUCE);
  ASSERT_GT(ptx.size(), 1000u);
  int parsed = 0, refused = 0, ran = 0;
  std::uint64_t seed = 47;
  for (int n = 0; n < 600; ++n) {
    std::string text = ptx;
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    const std::size_t at = static_cast<std::size_t>(seed >> 33) % text.size();
    if (n < 300) text.resize(at);
    else text[at] = "%[]{},;.0123456789abcdefgxyz-+@!$_ \n"[(seed >> 20) % 36];
    std::unique_ptr<Emu> e;
    try {
      e = std::make_unique<Emu>(text);
    } catch (const std::runtime_error&) {
      ++refused;
      continue;
    }
    ++parsed;
    for (const Kernel& k : e->mod.kernels) {
      const std::uint64_t bufs[2] = {e->alloc(1 << 16), e->alloc(1 << 16)};
      std::vector<unsigned char> params(k.param_bytes + 64, 0);  // the two buffers first, whatever the params say
      std::memcpy(params.data(), bufs, sizeof bufs);
      e->cfg.grid.x = 2;
      e->cfg.max_warp_instructions = 20000;
      const LaunchResult r = e->run_params(k, params);
      ran += r.ok() ? 1 : 0;
      (void)e->trace.take_instructions();
    }
  }
  EXPECT_EQ(parsed + refused, 600);
  EXPECT_GT(refused, 0);
  EXPECT_GT(parsed, 0);
  std::cout << "[ untrusted ] " << parsed << " read, " << refused << " refused, " << ran << " launches ran to the end\n";
}

}  // namespace
}  // namespace banklab::emu::test

namespace banklab::emu::test {
namespace {

// EmuTrace answers the calls the judge's traced check makes of trace::Session (clear, take, dropped).
TEST(Records, ClearForgetsTheRecordsSoFarAsTheSessionDoes) {
  Emu e(kernel_around("mov.u32 %r3, buf;\nst.shared.u32 [%r3], %r10;"));
  const std::vector<std::uint64_t> bufs = {e.alloc(256), e.alloc(512)};
  ASSERT_TRUE(e.run(e.kernel(), bufs).ok());
  e.trace.clear();
  ASSERT_TRUE(e.run(e.kernel(), bufs).ok());
  const std::vector<trace::Instruction> ins = e.trace.take_instructions();
  ASSERT_EQ(ins.size(), 1u);
  EXPECT_EQ(ins[0].count, 1u) << "the launch before clear() is forgotten";
  EXPECT_EQ(e.trace.dropped(), 0u);
  EXPECT_TRUE(e.trace.take_instructions().empty());
}

}  // namespace
}  // namespace banklab::emu::test
