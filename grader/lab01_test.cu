// Grader for lab 01 (the 32-way conflict): the stride predictions, the row-sum tile on the CPU,
// and the GPU tier.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "grader/gpu.cuh"
#include "grader/grader.hpp"

#include BANKLAB_LAB_SOURCE

namespace {

using banklab::Op;
using grader::instruction;
using lab01::TILE_DIM;

// A warp load where lane i reads the float at word i * stride.
grader::Instruction strided_load(int stride) {
  return instruction("a float load where lane i reads word i * " + std::to_string(stride), Op::Load,
                     4, [stride](int lane) { return lane * stride * 4; });
}

constexpr const char* kStrideHint =
    "bank = word % 32. List the banks of lanes 0, 1, 2, ... until one repeats: how many lanes "
    "end up in the same bank, each wanting a different word?";

// ---- predictions -----------------------------------------------------------------------------

TEST(Lab01Predictions, Stride2) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kStride2Wavefronts", lab01::predict::kStride2Wavefronts, strided_load(2), kStrideHint));
}
TEST(Lab01Predictions, Stride4) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kStride4Wavefronts", lab01::predict::kStride4Wavefronts, strided_load(4), kStrideHint));
}
TEST(Lab01Predictions, Stride8) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kStride8Wavefronts", lab01::predict::kStride8Wavefronts, strided_load(8), kStrideHint));
}
TEST(Lab01Predictions, Stride16) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kStride16Wavefronts", lab01::predict::kStride16Wavefronts, strided_load(16), kStrideHint));
}
TEST(Lab01Predictions, Stride32) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kStride32Wavefronts", lab01::predict::kStride32Wavefronts, strided_load(32), kStrideHint));
}
TEST(Lab01Predictions, OddStride3) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kStride3Wavefronts", lab01::predict::kStride3Wavefronts, strided_load(3),
      "3 and 32 share no factor: can 3*i and 3*j (i != j, both < 32) ever be equal modulo 32?"));
}
TEST(Lab01Predictions, Stride48) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kStride48Wavefronts", lab01::predict::kStride48Wavefronts, strided_load(48),
      "48 = 16 * 3. Which banks does 48*i % 32 reach, and how many lanes land on each?"));
}

// ---- the layout, replayed on the CPU ---------------------------------------------------------

TEST(Lab01Layout, EveryElementOfTheTileHasItsOwnPlace) {
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "tile_index(row, col)", TILE_DIM * TILE_DIM, lab01::kTileFloats,
      [](int e) { return lab01::tile_index(e / TILE_DIM, e % TILE_DIM); }));
}

TEST(Lab01Layout, EachLaneAddsEveryColumnOfItsRowOnce) {
  for (int lane = 0; lane < TILE_DIM; ++lane) {
    const std::string what = "walk_col(" + std::to_string(lane) + ", step) over the 32 steps";
    BANKLAB_ASSERT(grader::IsInBoundsAndOneToOne(
        what.c_str(), TILE_DIM, TILE_DIM,
        [lane](int step) { return lab01::walk_col(lane, step); }, "step"))
        << "Each lane must add columns 0-31 of its row, each once (a column outside 0-31 reads "
           "another row, or outside the tile).";
  }
}

TEST(Lab01Layout, StagingStoresAreConflictFree) {
  for (int r = 0; r < TILE_DIM; ++r) {
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        instruction("warp 0: store row " + std::to_string(r) + " of the tile (tile[r][lane])",
                    Op::Store, 4, [r](int lane) { return lab01::tile_index(r, lane) * 4; }),
        "a row of the tile is consecutive floats; keep kRowStride at least TILE_DIM."));
  }
}

TEST(Lab01Layout, RowSumLoadsAreConflictFree) {
  for (int step = 0; step < TILE_DIM; ++step) {
    BANKLAB_ASSERT(grader::AtMinimumWavefronts(
        instruction(
            "warp 0, step " + std::to_string(step) +
                ": load tile[lane][walk_col(lane, step)] (lane i adds up row i)",
            Op::Load, 4,
            [step](int lane) { return lab01::tile_index(lane, lab01::walk_col(lane, step)) * 4; }),
        "the 32 lanes read 32 different rows at the same column: word = row * kRowStride + col. "
        "Either make the rows start in different banks (kRowStride; see the stride predictions), "
        "or let each lane visit the columns of its row in a different order (walk_col)."))
        << "(other steps are alike)";
  }
}

// ---- GPU tier ---------------------------------------------------------------------------------

struct StagingPattern {
  banklab::Op op = banklab::Op::Store;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int row = 0;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return static_cast<std::uint32_t>(lab01::tile_index(row, lane)) * 4u;
  }
};
struct RowSumPattern {
  banklab::Op op = banklab::Op::Load;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int step = 0;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return static_cast<std::uint32_t>(lab01::tile_index(lane, lab01::walk_col(lane, step))) * 4u;
  }
};

TEST(Lab01OnGpu, RowSumsAreCorrect) {
  BANKLAB_REQUIRE_GPU();
  constexpr int kRows = 32 * 512;
  const std::size_t n = static_cast<std::size_t>(kRows) * TILE_DIM;
  // Whole numbers in [-16, 16]: every sum is exact, so any order of adding gives the same float.
  std::vector<float> in = grader::gpu::random_floats(n);
  for (float& x : in) x = std::round(x * 16.0f);
  std::vector<float> expected(kRows, 0.0f);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < TILE_DIM; ++c)
      expected[r] += in[static_cast<std::size_t>(r) * TILE_DIM + c];
  grader::gpu::DeviceBuffer<float> d_in(n), d_sums(kRows);
  d_in.upload(in);
  d_sums.poison();
  long long ld = 0, st = 0;
  for (int i = 0; i < TILE_DIM; ++i) {
    st += banklab::count_wavefronts(
        grader::gpu::to_access(StagingPattern{banklab::Op::Store, 4, ~0u, i}));
    ld += banklab::count_wavefronts(
        grader::gpu::to_access(RowSumPattern{banklab::Op::Load, 4, ~0u, i}));
  }
  const long long warps = kRows / TILE_DIM;
  grader::gpu::announce_model_prediction("row_sums", ld * warps, st * warps);
  lab01::row_sums_launch(d_in.get(), d_sums.get(), kRows);
  BANKLAB_ASSERT(grader::gpu::LaunchSucceeded("row_sums"));
  BANKLAB_EXPECT(grader::gpu::AllMatch(expected, d_sums.download(), "row sums"));
}

TEST(Lab01OnGpu, StagingStoresMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(
      StagingPattern{banklab::Op::Store, 4, ~0u, 5}, "lab 01 staging store (row 5)"));
}

TEST(Lab01OnGpu, RowSumLoadsMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(
      RowSumPattern{banklab::Op::Load, 4, ~0u, 5}, "lab 01 row-sum load (step 5)"));
}

}  // namespace
