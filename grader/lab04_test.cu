// Grader for lab 04 (padding): the tiled transpose through tile[32][32 + kPad].
//   Lab04Predictions  the handout's questions, checked against the bank model
//   Lab04Layout       tile_index(): in bounds, one-to-one, every warp instruction conflict-free
//   Lab04OnGpu        the kernel on a GPU: correct result, and the timing target
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

constexpr int kTile = lab04::TILE_DIM;
constexpr int kRows = lab04::BLOCK_ROWS;
constexpr int kWarpsPerBlock = kRows;  // blockDim = (32, 8): warp w is threadIdx.y == w

std::string at(int row, const char* col) { return "[" + std::to_string(row) + "][" + col + "]"; }

// Warp `warp` of a block, loop step j: lane l stores tile[warp + j][l].
Instruction row_write(int warp, int j) {
  return grader::instruction(
      "warp " + std::to_string(warp) + ", j = " + std::to_string(j) + ": store tile" +
          at(warp + j, "lane") + " (row write)",
      Op::Store, 4, [=](int lane) { return lab04::tile_index(warp + j, lane) * 4; });
}

// Warp `warp` of a block, loop step j: lane l loads tile[l][warp + j].
Instruction column_read(int warp, int j) {
  return grader::instruction(
      "warp " + std::to_string(warp) + ", j = " + std::to_string(j) + ": load tile[lane][" +
          std::to_string(warp + j) + "] (column read)",
      Op::Load, 4, [=](int lane) { return lab04::tile_index(lane, warp + j) * 4; });
}

// Column c of a tile of `elem`-byte elements whose rows are `row_bytes` long: lane i reads row i.
Instruction column_of(const std::string& what, int elem, int row_bytes, int c = 0) {
  return grader::instruction(what, Op::Load, elem, [=](int lane) { return lane * row_bytes + c * elem; });
}

bool conflict_free(const Instruction& in) {
  return !banklab::validate(in.access) &&
         banklab::count_wavefronts(in.access) == banklab::minimum_wavefronts(in.access);
}

// Smallest row padding in bytes (a multiple of `step`) whose column read of `elem`-byte
// elements, 32 per row, is valid and at the minimum.
int smallest_conflict_free_pad_bytes(int elem, int step) {
  for (int pad = 0; pad <= 256; pad += step)
    if (conflict_free(column_of("", elem, 32 * elem + pad))) return pad;
  return -1;
}


}  // namespace

// ---- predictions ------------------------------------------------------------------------------

TEST(Lab04Predictions, UnpaddedColumnReadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kUnpaddedColumnReadWavefronts", lab04::predict::kUnpaddedColumnReadWavefronts,
      column_of("a column read of float tile[32][32]", 4, 32 * 4),
      "a row is 32 floats = 128 bytes. In which bank is tile[i][0], for each i?"));
}

TEST(Lab04Predictions, PaddedColumnReadTakesThePredictedWavefronts) {
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kPaddedColumnReadWavefronts", lab04::predict::kPaddedColumnReadWavefronts,
      column_of("a column read of float tile[32][33]", 4, 33 * 4),
      "a row is now 33 floats. In which bank does row i start?"));
}

TEST(Lab04Predictions, PaddedTileSizeIsPredicted) {
  BANKLAB_EXPECT(grader::ValuePredictionMatches(
      "kPaddedTileBytes", lab04::predict::kPaddedTileBytes, 32 * 33 * static_cast<long>(sizeof(float)),
      "how many bytes does float tile[32][33] take? The pad floats are allocated too."));
}

TEST(Lab04Predictions, DoublePadIsTheSmallestConflictFreeOne) {
  const int truth = smallest_conflict_free_pad_bytes(8, 8) / 8;
  const int p = lab04::predict::kDoublePad;
  std::string question =
      "what is the smallest pad p (in doubles) for which lane i reading tile[i][c] of "
      "double tile[32][32 + p] is conflict-free? An 8-byte load is served in two half-warps of 16 "
      "lanes, each lane needing 2 banks.";
  if (p >= 0 && p <= 32) {
    const Instruction mine = column_of("the column read of double tile[32][" + std::to_string(32 + p) + "]",
                                       8, (32 + p) * 8);
    question += conflict_free(mine) ? " Your p is conflict-free, but a smaller pad is too."
                                    : "\n  Your p: " + grader::describe(banklab::analyze(mine.access)) +
                                          "  See it: " + grader::explain_command(mine.access);
  }
  BANKLAB_EXPECT(grader::ValuePredictionMatches("kDoublePad", p, truth, question));
}

TEST(Lab04Predictions, PaddedDoubleColumnReadTakesThePredictedWavefronts) {
  const int p = lab04::predict::kDoublePad >= 0 && lab04::predict::kDoublePad <= 32 ? lab04::predict::kDoublePad : 0;
  BANKLAB_EXPECT(grader::PredictionMatches(
      "kPaddedDoubleColumnReadWavefronts", lab04::predict::kPaddedDoubleColumnReadWavefronts,
      column_of("a column read of double tile[32][" + std::to_string(32 + p) + "] (your kDoublePad)", 8,
                (32 + p) * 8),
      "an 8-byte load whose lanes all have different addresses is served as two half-warps. How "
      "many wavefronts does each half need at best?"));
}

TEST(Lab04Predictions, Float4RowPadIsTheSmallestConflictFreeOne) {
  const int truth = smallest_conflict_free_pad_bytes(16, 4);
  const int p = lab04::predict::kFloat4RowPadBytes;
  std::string question =
      "what is the smallest row padding in bytes for which lane i reading the float4 at row i of a "
      "tile of 32 rows x 8 float4 is conflict-free? A 16-byte load is served in quarter-warps of 8 "
      "lanes, and every float4 must stay 16-byte aligned.";
  if (p >= 0 && p <= 256 && p % 4 == 0) {
    const Instruction mine = column_of("the float4 column read with rows of " + std::to_string(128 + p) +
                                           " bytes", 16, 128 + p);
    if (auto err = banklab::validate(mine.access))
      question += " With your pad: " + *err;
    else if (conflict_free(mine))
      question += " Your pad is conflict-free, but a smaller one is too.";
    else
      question += "\n  Your pad: " + grader::describe(banklab::analyze(mine.access)) +
                  "  See it: " + grader::explain_command(mine.access);
  }
  BANKLAB_EXPECT(grader::ValuePredictionMatches("kFloat4RowPadBytes", p, truth, question));
}

// ---- the layout -------------------------------------------------------------------------------

TEST(Lab04Layout, TileIndexIsInBoundsAndOneToOne) {
  BANKLAB_EXPECT(grader::IsInBoundsAndOneToOne(
      "lab04::tile_index (element e is tile[e / 32][e % 32])", kTile * kTile, lab04::kTileFloats,
      [](int e) { return lab04::tile_index(e / kTile, e % kTile); }, "element"));
}

TEST(Lab04Layout, RowWritesOfTheTileAreConflictFree) {
  for (int warp = 0; warp < kWarpsPerBlock; ++warp)
    for (int j = 0; j < kTile; j += kRows)
      BANKLAB_ASSERT(grader::AtMinimumWavefronts(
          row_write(warp, j), "a row write must stay conflict-free: keep consecutive columns of a "
                              "row in consecutive words."));
}

TEST(Lab04Layout, ColumnReadsOfTheTileAreConflictFree) {
  for (int warp = 0; warp < kWarpsPerBlock; ++warp)
    for (int j = 0; j < kTile; j += kRows)
      BANKLAB_ASSERT(grader::AtMinimumWavefronts(
          column_read(warp, j),
          "lane i reads row i. Row i starts (32 + kPad) * i words in: how many banks apart are two "
          "consecutive rows, and for which kPad do 32 rows land in 32 different banks?"));
}

TEST(Lab04Layout, TheTileUsesTheSmallestConflictFreePad) {
  const int smallest = smallest_conflict_free_pad_bytes(4, 4) / 4;
  EXPECT_LE(lab04::kPad, smallest)
      << "kPad = " << lab04::kPad << " makes the column read conflict-free, but every pad float costs "
      << kTile * 4 << " bytes per tile (" << (lab04::kPad - smallest) * kTile * 4
      << " bytes more than needed here): shared memory limits how many blocks fit on an SM. "
         "Find the smallest pad that works.";
}

// ---- on the GPU -------------------------------------------------------------------------------

namespace {

// Model's shared wavefronts for one launch: every block issues the same 32 + 32 instructions.
void announce(int width, int height) {
  std::vector<Instruction> block;
  for (int warp = 0; warp < kWarpsPerBlock; ++warp)
    for (int j = 0; j < kTile; j += kRows) {
      block.push_back(row_write(warp, j));
      block.push_back(column_read(warp, j));
    }
  const long long blocks = static_cast<long long>(width / kTile) * (height / kTile);
  grader::gpu::announce_model_prediction("transpose_padded",
                                         blocks * grader::total_wavefronts(block, Op::Load),
                                         blocks * grader::total_wavefronts(block, Op::Store));
}

// in: `height` rows of `width` floats; checks lab04::transpose against a CPU transpose.
void check_transpose(int width, int height) {
  announce(width, height);
  BANKLAB_EXPECT(grader::gpu::TransposesCorrectly(
      "lab04::transpose", [](float* o, const float* i, int w, int h) { lab04::transpose(o, i, w, h); }, width, height));
}

// One access of the kernel as a pattern for the timing harness; offset() uses tile_index().
struct RowWrite {
  banklab::Op op = banklab::Op::Store;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int row = 0;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return static_cast<std::uint32_t>(lab04::tile_index(row, lane)) * 4u;
  }
};

struct ColumnRead {
  banklab::Op op = banklab::Op::Load;
  int width = 4;
  std::uint32_t mask = 0xffffffffu;
  int col = 0;
  __host__ __device__ std::uint32_t offset(int lane) const {
    return static_cast<std::uint32_t>(lab04::tile_index(lane, col)) * 4u;
  }
};

}  // namespace

TEST(Lab04OnGpu, TransposeIsCorrectFor1024x1024) {
  BANKLAB_REQUIRE_GPU();
  check_transpose(1024, 1024);
}

TEST(Lab04OnGpu, TransposeIsCorrectForANonSquareMatrix) {
  BANKLAB_REQUIRE_GPU();
  check_transpose(256, 96);  // 96 rows of 256: blockIdx.x and blockIdx.y cover different ranges
}

TEST(Lab04OnGpu, RowWriteMeetsTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(RowWrite{}, "lab04 row write tile[r][lane]"));
}

TEST(Lab04OnGpu, ColumnReadMeetsTheTimingTarget) {
  BANKLAB_REQUIRE_GPU();
  BANKLAB_EXPECT(grader::gpu::MeetsTimingTarget(ColumnRead{}, "lab04 column read tile[lane][c]"));
}

TEST(Lab04OnGpu, TransposeTimedBesideATiledCopyStillTransposes) {
  BANKLAB_REQUIRE_GPU();
  // Prints the fraction of a tiled copy's bandwidth; the speed target itself lives in
  // bench/gpu_perf.sh (a timed unit test would flip with the machine's load).
  BANKLAB_EXPECT(grader::gpu::TransposeMeasuredBesideACopy(
      "lab04 transpose", [](float* o, const float* i, int w, int h) { lab04::transpose(o, i, w, h); }));
}
