// Judge for lab 01 (the 32-way conflict): the stride predictions, the row-sum tile on the CPU,
// and the GPU tier. Never compiled with a student's file: it reads the answers of
// grader/lab01_probe.cu and launches the student's compiled kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "grader/gpu/buffers.cuh"
#include "grader/gpu/kernel_timing.cuh"
#include "grader/gpu/ncu.cuh"
#include "grader/gpu/replay.cuh"
#include "grader/gpu/student.cuh"
#include "grader/gpu/trace.cuh"
#include "grader/grader.hpp"

namespace {

using banklab::Op;
using grader::Instruction;
using grader::answers;
using grader::instruction;

// A warp load where lane i reads the float at word i * stride.
Instruction strided_load(int stride) {
  return instruction("a float load where lane i reads word i * " + std::to_string(stride), Op::Load, 4,
                     [stride](int lane) { return lane * stride * 4; });
}

constexpr const char* kStrideHint =
    "bank = word % 32. List the banks of lanes 0, 1, 2, ... until one repeats: how many lanes end up in the same "
    "bank, each wanting a different word?";
constexpr const char* kRowSumHint =
    "the 32 lanes read 32 different rows at the same column: word = row * kRowStride + col. Either make the rows "
    "start in different banks (kRowStride; see the stride predictions), or let each lane visit the columns of its row "
    "in a different order (walk_col).";

std::vector<Instruction> staging_stores() {
  return grader::all_of(answers().access("staging_store"), [](const std::vector<int>& i) {
    return "warp 0: store row " + std::to_string(i[0]) + " of the tile (tile[r][lane])";
  });
}
std::vector<Instruction> row_sum_loads() {
  return grader::all_of(answers().access("row_sum_load"), [](const std::vector<int>& i) {
    return "warp 0, step " + std::to_string(i[0]) + ": load tile[lane][walk_col(lane, step)] (lane i adds up row i)";
  });
}

}  // namespace

// ---- predictions -----------------------------------------------------------------------------

TEST(Lab01Predictions, Stride2) {
  BANKLAB_EXPECT(grader::PredictionMatches("kStride2Wavefronts", grader::prediction("kStride2Wavefronts"), strided_load(2), kStrideHint));
}
TEST(Lab01Predictions, Stride4) {
  BANKLAB_EXPECT(grader::PredictionMatches("kStride4Wavefronts", grader::prediction("kStride4Wavefronts"), strided_load(4), kStrideHint));
}
TEST(Lab01Predictions, Stride8) {
  BANKLAB_EXPECT(grader::PredictionMatches("kStride8Wavefronts", grader::prediction("kStride8Wavefronts"), strided_load(8), kStrideHint));
}
TEST(Lab01Predictions, Stride16) {
  BANKLAB_EXPECT(grader::PredictionMatches("kStride16Wavefronts", grader::prediction("kStride16Wavefronts"), strided_load(16), kStrideHint));
}
TEST(Lab01Predictions, Stride32) {
  BANKLAB_EXPECT(grader::PredictionMatches("kStride32Wavefronts", grader::prediction("kStride32Wavefronts"), strided_load(32), kStrideHint));
}
TEST(Lab01Predictions, OddStride3) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kStride3Wavefronts", grader::prediction("kStride3Wavefronts"), strided_load(3),
      "3 and 32 share no factor: can 3*i and 3*j (i != j, both < 32) ever be equal modulo 32?"));
}
TEST(Lab01Predictions, Stride48) {
  BANKLAB_EXPECT(grader::PredictionMatches("kStride48Wavefronts", grader::prediction("kStride48Wavefronts"),
                                           strided_load(48),
                                           "48 = 16 * 3. Which banks does 48*i % 32 reach, and how many lanes land on "
                                           "each?"));
}

// ---- the layout, replayed on the CPU ---------------------------------------------------------

TEST(Lab01Layout, EveryElementOfTheTileHasItsOwnPlace) {
  const grader::Table& t = answers().table("tile_index");
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "tile_index(row, col)", 32 * 32, answers().value("kTileFloats"), [&](int e) { return t.at({e / 32, e % 32}); },
      "element", "keep kRowStride at least TILE_DIM, so that the rows do not overlap."));
}

TEST(Lab01Layout, EachLaneAddsEveryColumnOfItsRowOnce) {
  const grader::Table& walk = answers().table("walk_col");
  for (int lane = 0; lane < 32; ++lane) {
    BANKLAB_ASSERT(grader::IsInBoundsAndOneToOne(
        "walk_col(" + std::to_string(lane) + ", step) over the 32 steps", 32, 32,
        [&](int step) { return walk.at({lane, step}); }, "step",
        "each lane must add columns 0-31 of its row, each once: over the 32 steps walk_col(lane, step) must take "
        "every value 0-31 (a column outside 0-31 reads another row, or outside the tile)."));
  }
}

TEST(Lab01Layout, StagingStoresAreConflictFree) {
  BANKLAB_EXPECT(grader::AllAtMinimumWavefronts(staging_stores(),
                                                "a row of the tile is consecutive floats; keep kRowStride at least "
                                                "TILE_DIM."));
}

TEST(Lab01Layout, RowSumLoadsAreConflictFree) {
  BANKLAB_EXPECT(grader::AllAtMinimumWavefronts(row_sum_loads(), kRowSumHint));
}

// ---- GPU tier ---------------------------------------------------------------------------------

namespace {

const grader::gpu::KernelName kRowSumsKernel{"_ZN5lab018row_sumsEPKfPf", "lab01::row_sums(const float* in, float* sums)"};

struct StudentRowSums {
  grader::gpu::StudentLibrary lib;
  cudaKernel_t k{};
  ::testing::AssertionResult found = lib.find(kRowSumsKernel, &k);
  cudaError_t operator()(const float* in, float* sums, int rows) const {
    return grader::gpu::launch(k, dim3(static_cast<unsigned>(rows / 32)), dim3(32), in, sums);
  }
};

// The grader's own row sums: one warp per 32 rows, the unpadded tile, each lane walking the
// columns of its row starting at its own lane (column (lane + step) % 32): 32 different banks.
__global__ void reference_row_sums(const float* in, float* sums) {
  __shared__ volatile float tile[32 * 32];
  const int lane = static_cast<int>(threadIdx.x);
  const long row0 = static_cast<long>(blockIdx.x) * 32;
  for (int r = 0; r < 32; ++r) tile[r * 32 + lane] = in[(row0 + r) * 32 + lane];
  __syncwarp();
  float sum = 0.0f;
  for (int step = 0; step < 32; ++step) sum += tile[lane * 32 + (lane + step) % 32];
  sums[row0 + lane] = sum;
}

}  // namespace

TEST(Lab01OnGpu, RowSumsAreCorrect) {
  BANKLAB_REQUIRE_GPU();
  StudentRowSums st;
  BANKLAB_ASSERT(st.found);
  constexpr int kRows = 32 * 512;
  const std::size_t n = static_cast<std::size_t>(kRows) * 32;
  // Whole numbers in [-16, 16]: every sum is exact, so any order of adding gives the same float.
  std::vector<float> in = grader::gpu::random_floats(n);
  for (float& x : in) x = std::round(x * 16.0f);
  std::vector<float> expected(kRows, 0.0f);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < 32; ++c) expected[static_cast<std::size_t>(r)] += in[static_cast<std::size_t>(r) * 32 + c];
  grader::gpu::DeviceBuffer<float> d_in(n);
  grader::gpu::GuardedBuffer<float> d_sums(kRows);
  d_in.upload(in);
  std::vector<Instruction> warp = staging_stores();
  for (Instruction& i : row_sum_loads()) warp.push_back(i);
  grader::gpu::announce_model_prediction("row_sums", warp, kRows / 32);
  BANKLAB_ASSERT(::testing::AssertionResult(st(d_in.get(), d_sums.get(), kRows) == cudaSuccess) << "launch failed");
  BANKLAB_ASSERT(grader::gpu::FinishesWithin(20.0, "lab01::row_sums"));
  BANKLAB_ASSERT(grader::gpu::LaunchSucceeded("lab01::row_sums"));
  BANKLAB_EXPECT(d_sums.guards_intact("lab01::row_sums"));
  BANKLAB_EXPECT(grader::gpu::AllMatch(expected, d_sums.download(), "row sums (all " + std::to_string(kRows) + " rows)"));
}

TEST(Lab01OnGpu, TracedSharedAccessesAreConflictFree) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_REQUIRE_TRACE();
  StudentRowSums st;
  BANKLAB_ASSERT(st.found);
  constexpr int kRows = 32 * 16;
  grader::gpu::DeviceBuffer<float> in(kRows * 32), sums(kRows);
  in.upload(grader::gpu::random_floats(kRows * 32));
  BANKLAB_EXPECT(grader::gpu::TracedSharedAccessesAreAtTheMinimum(
      "lab01::row_sums (512 rows)",
      [&] {
        CUDA_CHECK(st(in.get(), sums.get(), kRows));
        CUDA_CHECK(cudaDeviceSynchronize());
      },
      kRowSumHint));
}

TEST(Lab01OnGpu, RowSumsMeetTheKernelTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  StudentRowSums st;
  BANKLAB_ASSERT(st.found);
  constexpr int kRows = 32 * 16384;  // 64 MiB of input
  grader::gpu::DeviceBuffer<float> in(kRows * 32L), sums(kRows);
  in.upload(grader::gpu::random_floats(kRows * 32L));
  BANKLAB_EXPECT(grader::gpu::KernelMeetsTimingTarget(
      "lab01::row_sums, 524288 rows", [&] { CUDA_CHECK(st(in.get(), sums.get(), kRows)); },
      [&] {
        reference_row_sums<<<kRows / 32, 32>>>(in.get(), sums.get());
        CUDA_CHECK(cudaGetLastError());
      }));
}

TEST(Lab01OnGpu, StagingStoresMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(staging_stores()[5]));
}

TEST(Lab01OnGpu, RowSumLoadsMeetTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(row_sum_loads()[5]));
}
