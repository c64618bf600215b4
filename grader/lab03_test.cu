// Grader for lab 03 (vector loads and stores): 8- and 16-byte shared accesses, their half- and
// quarter-warp groups, when loads merge, and a deinterleave kernel staged through shared memory.
//   Lab03Predictions  the handout's questions, checked against the bank model
//   Lab03Layout       slot_offset(): aligned, in bounds, one-to-one, every warp instruction of the
//                     kernel at its minimum
//   Lab03OnGpu        the kernel on a GPU: correct result, and the timing target
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "grader/gpu.cuh"
#include "grader/grader.hpp"

#include BANKLAB_LAB_SOURCE

namespace {

using banklab::Op;
using grader::Instruction;

constexpr int kWarps = lab03::kThreads / 32;

// Staging store k (0 or 1) of warp w: lane l stores float4 number e = 256 k + 32 w + l of the
// block, member e % 2 of pair e / 2.
Instruction staging_store(int warp, int k) {
  return grader::instruction(
      "warp " + std::to_string(warp) + ", staging store k = " + std::to_string(k) +
          " (lane l writes member e % 2 of pair e / 2, e = " + std::to_string(256 * k + 32 * warp) + " + l)",
      Op::Store, 16, [=](int lane) {
        const int e = k * lab03::kThreads + 32 * warp + lane;
        return lab03::slot_offset(e / 2, e % 2);
      });
}

// Warp w loads member m of pairs 32 w + lane.
Instruction member_load(int warp, int member) {
  return grader::instruction("warp " + std::to_string(warp) + ": load " + (member ? "b" : "a") +
                                 " of pair " + std::to_string(32 * warp) + " + lane",
                             Op::Load, 16, [=](int lane) { return lab03::slot_offset(32 * warp + lane, member); });
}

Instruction pattern(const char* what, Op op, int width, std::uint32_t (*offset)(int)) {
  return grader::instruction(what, op, width, offset);
}


}  // namespace

// ---- predictions ------------------------------------------------------------------------------

TEST(Lab03Predictions, ContiguousFloat2LoadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kFloat2ContiguousLoad", lab03::predict::kFloat2ContiguousLoad,
      pattern("a float2 load, lane i at i * 8", Op::Load, 8, [](int l) { return 8u * l; }),
      "32 lanes x 8 bytes is how many words? How many can one wavefront deliver?"));
}

TEST(Lab03Predictions, PairSharedFloat2LoadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kFloat2PairSharedLoad", lab03::predict::kFloat2PairSharedLoad,
      pattern("a float2 load, lane i at (i / 2) * 8", Op::Load, 8, [](int l) { return 8u * (l / 2); }),
      "lane i and lane i^1 ask for the same address. What does the hardware do with an 8-byte load "
      "when that holds for every lane, and how many distinct words are there?"));
}

TEST(Lab03Predictions, PairSharedFloat2StoreTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kFloat2PairSharedStore", lab03::predict::kFloat2PairSharedStore,
      pattern("a float2 store, lane i at (i / 2) * 8", Op::Store, 8, [](int l) { return 8u * (l / 2); }),
      "do stores get the same treatment as loads when lanes share addresses? Count per half-warp."));
}

TEST(Lab03Predictions, ContiguousFloat4LoadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kFloat4ContiguousLoad", lab03::predict::kFloat4ContiguousLoad,
      pattern("a float4 load, lane i at i * 16", Op::Load, 16, [](int l) { return 16u * l; }),
      "a 16-byte access is served in groups of how many lanes? How many words does each group need?"));
}

TEST(Lab03Predictions, Stride2Float4LoadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kFloat4Stride2Load", lab03::predict::kFloat4Stride2Load,
      pattern("a float4 load, lane i at i * 32", Op::Load, 16, [](int l) { return 32u * l; }),
      "list the banks of lanes 0-7 (each covers 4): which lanes of that quarter-warp land on the "
      "same banks?"));
}

TEST(Lab03Predictions, PairSharedStride32Float4LoadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kFloat4PairSharedStride32Load", lab03::predict::kFloat4PairSharedStride32Load,
      pattern("a float4 load, lane i at (i / 2) * 32", Op::Load, 16, [](int l) { return 32u * (l / 2); }),
      "lane i^1 has the same address as lane i everywhere: into which groups is this load split, "
      "and how many distinct words does each group need from its busiest bank?"));
}

TEST(Lab03Predictions, NcuConflictCounterOfThePairSharedFloat4LoadIsPredicted) {
  const Instruction in = pattern("", Op::Load, 16, [](int l) { return 32u * (l / 2); });
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kFloat4PairSharedStride32NcuConflicts", lab03::predict::kFloat4PairSharedStride32NcuConflicts,
      banklab::count_wavefronts(in.access) - banklab::minimum_wavefronts(in.access),
      "Nsight Compute's bank-conflict counter reports wavefronts minus the minimum for the groups "
      "the hardware actually used (sum over groups of ceil(distinct words / 32)). Which groups did "
      "it use for this load?"));
}

TEST(Lab03Predictions, SameAddressFloat4LoadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kFloat4SameAddressLoad", lab03::predict::kFloat4SameAddressLoad,
      pattern("a float4 load, every lane at offset 0", Op::Load, 16, [](int) { return 0u; }),
      "one address is a broadcast. But can a 16-byte load ever be served as one group of 32 lanes?"));
}

TEST(Lab03Predictions, SameAddressFloat4StoreTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kFloat4SameAddressStore", lab03::predict::kFloat4SameAddressStore,
      pattern("a float4 store, every lane at offset 0", Op::Store, 16, [](int) { return 0u; }),
      "lanes writing the same word are one write, never a conflict. But what are the groups of a "
      "16-byte store?"));
}

// ---- the layout -------------------------------------------------------------------------------

TEST(Lab03Layout, SlotOffsetsAreSixteenByteAligned) {
  for (int pair = 0; pair < lab03::kPairsPerBlock; ++pair)
    for (int member = 0; member < 2; ++member)
      ASSERT_EQ(lab03::slot_offset(pair, member) % 16u, 0u)
          << "slot_offset(" << pair << ", " << member << ") = " << lab03::slot_offset(pair, member)
          << " is not a multiple of 16: a float4 in shared memory must be 16-byte aligned.";
}

TEST(Lab03Layout, SlotOffsetIsInBoundsAndOneToOne) {
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "lab03::slot_offset (slot e is member e % 2 of pair e / 2; index = byte offset / 16)",
      2 * lab03::kPairsPerBlock, static_cast<long>(lab03::kTileBytes / 16u),
      [](int e) { return static_cast<long>(lab03::slot_offset(e / 2, e % 2) / 16u); }, "slot"));
}

TEST(Lab03Layout, StagingStoresAreConflictFree) {
  for (int warp = 0; warp < kWarps; ++warp)
    for (int k = 0; k < 2; ++k)
      BANKLAB_ASSERT(grader::AtMinimumWavefronts(
          staging_store(warp, k),
          "a 16-byte store is served in quarter-warps of 8 lanes; here each quarter-warp writes the a "
          "and the b of 4 pairs. Which banks do those 4 a's and 4 b's use in your layout?"));
}

TEST(Lab03Layout, LoadsOfAAreConflictFree) {
  for (int warp = 0; warp < kWarps; ++warp)
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        member_load(warp, 0), "lanes 0-7 of a quarter-warp need 8 x 4 = 32 words: all 32 banks, once each. "
                              "How far apart are the a's of consecutive pairs in your layout?"));
}

TEST(Lab03Layout, LoadsOfBAreConflictFree) {
  for (int warp = 0; warp < kWarps; ++warp)
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        member_load(warp, 1), "the same question for the b's: how far apart are the b's of consecutive "
                              "pairs?"));
}

// ---- on the GPU -------------------------------------------------------------------------------

namespace {

struct StagingStore {
  banklab::Op op = banklab::Op::Store;
  int width = 16;
  std::uint32_t mask = 0xffffffffu;
  int warp = 1;
  __host__ __device__ std::uint32_t offset(int lane) const {
    const int e = 32 * warp + lane;
    return lab03::slot_offset(e / 2, e % 2);
  }
};

struct MemberLoad {
  banklab::Op op = banklab::Op::Load;
  int width = 16;
  std::uint32_t mask = 0xffffffffu;
  int member = 0;
  __host__ __device__ std::uint32_t offset(int lane) const { return lab03::slot_offset(32 + lane, member); }
};

// Lanes 2k and 2k+1 load the same float4; pairs 32 bytes apart (the handout's counter example).
struct PairSharedFloat4Load {
  banklab::Op op = banklab::Op::Load;
  int width = 16;
  std::uint32_t mask = 0xffffffffu;
  __host__ __device__ std::uint32_t offset(int lane) const { return 32u * static_cast<std::uint32_t>(lane / 2); }
};

}  // namespace

TEST(Lab03OnGpu, DeinterleaveIsCorrect) {
  BANKLAB_REQUIRE_GPU();
  const int pairs = 64 * lab03::kPairsPerBlock;
  const std::vector<float> in = grader::gpu::random_floats(8 * static_cast<std::size_t>(pairs));
  std::vector<float> a(4 * static_cast<std::size_t>(pairs)), b(a.size());
  for (std::size_t i = 0; i < static_cast<std::size_t>(pairs); ++i)
    for (int c = 0; c < 4; ++c) {
      a[4 * i + c] = in[8 * i + c];
      b[4 * i + c] = in[8 * i + 4 + c];
    }

  std::vector<Instruction> block;
  for (int warp = 0; warp < kWarps; ++warp) {
    block.push_back(staging_store(warp, 0));
    block.push_back(staging_store(warp, 1));
    block.push_back(member_load(warp, 0));
    block.push_back(member_load(warp, 1));
  }
  const long long blocks = pairs / lab03::kPairsPerBlock;
  grader::gpu::announce_model_prediction("deinterleave", blocks * grader::total_wavefronts(block, Op::Load),
                                         blocks * grader::total_wavefronts(block, Op::Store));

  grader::gpu::DeviceBuffer<float> d_in(in.size()), d_a(a.size()), d_b(b.size());
  d_in.upload(in);
  d_a.poison();
  d_b.poison();
  lab03::split_pairs(reinterpret_cast<float4*>(d_a.get()), reinterpret_cast<float4*>(d_b.get()),
                     reinterpret_cast<const float4*>(d_in.get()), pairs);
  BANKLAB_ASSERT(grader::gpu::FinishesWithin(20.0, "lab03::split_pairs"));
  BANKLAB_ASSERT(grader::gpu::LaunchSucceeded("lab03::split_pairs"));
  BANKLAB_EXPECT(grader::gpu::AllMatch(a, d_a.download(), "a_out (float index = 4 * pair + component)"));
  BANKLAB_EXPECT(grader::gpu::AllMatch(b, d_b.download(), "b_out (float index = 4 * pair + component)"));
}

TEST(Lab03OnGpu, StagingStoreMeetsTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(StagingStore{}, "lab03 staging store (warp 1)"));
}

TEST(Lab03OnGpu, LoadOfAMeetsTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(MemberLoad{banklab::Op::Load, 16, 0xffffffffu, 0}, "lab03 load of a"));
}

TEST(Lab03OnGpu, LoadOfBMeetsTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(MemberLoad{banklab::Op::Load, 16, 0xffffffffu, 1}, "lab03 load of b"));
}

// The handout's point about the counter: this load shows 2 "bank conflicts" in Nsight Compute,
// yet costs no more than a plain contiguous float4 load (4 wavefronts each).
TEST(Lab03OnGpu, PairSharedFloat4LoadCostsNoMoreThanAContiguousOne) {
  BANKLAB_REQUIRE_GPU();
  const grader::gpu::TimingResult r = grader::gpu::time_pattern(PairSharedFloat4Load{});
  std::printf("[ TIMING   ] lab03 pair-shared float4 load: measured %.2f wavefronts per instruction "
              "(contiguous float4 reference: %d), model %d, minimum %d\n",
              r.measured_wavefronts(), r.reference, r.predicted, r.minimum);
  EXPECT_LE(r.pattern_ms, 1.10 * r.reference_ms)
      << "the pair-shared float4 load took " << r.pattern_ms << " ms against " << r.reference_ms
      << " ms for a contiguous float4 load; the model says both take 4 wavefronts.";
}
